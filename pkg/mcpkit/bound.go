package mcpkit

import "strconv"

// Truncation is embedded in a tool's output struct wherever the tool may return less
// than all there is. A result that was cut says so, and says how to get the rest, so a
// model never mistakes a partial answer for a complete one.
type Truncation struct {
	// Truncated is true when the result holds less than all that matched.
	Truncated bool `json:"truncated,omitempty" jsonschema_description:"True when the result was cut at a limit; see hint for how to get the rest"`
	// Hint tells the model how to get the rest: an offset, a page, a narrower query.
	Hint string `json:"hint,omitempty" jsonschema_description:"How to get what was left out when truncated"`
}

// Cut marks the result truncated with a hint for the next call.
func (t *Truncation) Cut(hint string) {
	t.Truncated = true
	if t.Hint == "" {
		t.Hint = hint
	}
}

// CapSlice returns at most max items of s and whether any were dropped. max <= 0 means
// no limit.
func CapSlice[T any](s []T, max int) ([]T, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	return s[:max:max], true
}

// CleanField sanitizes one untrusted text field ([CleanText]) and caps it at max bytes;
// when it had to cut, it marks the result truncated with a hint naming the field.
func (t *Truncation) CleanField(field, s string, max int) string {
	out, cut := CleanText(s, max)
	if cut {
		t.Cut(field + " was cut at " + strconv.Itoa(max) + " bytes")
	}
	return out
}
