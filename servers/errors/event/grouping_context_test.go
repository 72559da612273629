package event

import (
	"strings"
	"testing"
)

func TestGroupingBySourceLine(t *testing.T) {
	frame := func(mod, file, fn string, line int, code string, inApp bool) Frame {
		f := Frame{Module: mod, Filename: file, Function: fn, Line: line, InApp: inApp}
		if code != "" {
			f.Context = []ContextLine{{Line: line - 1, Code: "if x {"}, {Line: line, Code: code}, {Line: line + 1, Code: "}"}}
		}
		return f
	}
	exc := func(platform string, frames ...Frame) *Event {
		return &Event{Platform: platform, Exceptions: []Exception{{Type: "AddressError", Value: "v", Frames: frames}}}
	}
	zip := `raise AddressError("address has no zip code")`
	city := `raise AddressError("address has no city")`
	long := "x = " + strings.Repeat("a", 130)
	cases := []struct {
		name  string
		a, b  *Event
		equal bool
	}{
		{"python: two raise sites in one function", exc("python", frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("shop.address", "", "validate", 9, city, true)), false},
		{"python: the same line moved and reindented", exc("python", frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("shop.address", "", "validate", 30, "\t  "+strings.ReplaceAll(zip, " ", "  ")+" ", true)), true},
		{"python: no source lines, Sentry's fallback to module and function", exc("python", frame("shop.address", "", "validate", 7, "", true)),
			exc("python", frame("shop.address", "", "validate", 9, "", true)), true},
		{"node: two raise sites", exc("node", frame("shop:address", "/app/shop/address.js", "validate", 3, `throw new Error("address has no zip code");`, true)),
			exc("node", frame("shop:address", "/app/shop/address.js", "validate", 6, `throw new Error("address has no city");`, true)), false},
		{"javascript: lines over 120 characters do not group", exc("javascript", frame("", "app.min.js", "a", 1, long+"1", true)),
			exc("javascript", frame("", "app.min.js", "a", 1, long+"2", true)), true},
		{"go: source lines do not group (not among Sentry's context-line platforms)", exc("go", frame("example.com/shop", "", "validate", 12, `return errors.New("address has no zip code")`, true)),
			exc("go", frame("example.com/shop", "", "validate", 15, `return errors.New("address has no city")`, true)), true},
		{"python: library frames' lines do not count when there are in-app ones", exc("python", frame("lib", "", "call", 5, "a()", false), frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("lib", "", "call", 5, "b()", false), frame("shop.address", "", "validate", 7, zip, true)), true},
		{"no module: the file stands in for it", exc("go", frame("", "a/pay.go", "charge", 5, "", true)),
			exc("go", frame("", "b/pay.go", "charge", 5, "", true)), false},
	}
	for _, tc := range cases {
		a, b := IssueIDFor("1", GroupingParts(tc.a)), IssueIDFor("1", GroupingParts(tc.b))
		if (a == b) != tc.equal {
			t.Errorf("%s: same issue = %v, want %v (%q vs %q)", tc.name, a == b, tc.equal, GroupingParts(tc.a), GroupingParts(tc.b))
		}
	}
}
