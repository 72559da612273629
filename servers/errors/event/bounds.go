package event

import (
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Bounds on an event's tags, applied when it is ingested (normalizeTags) and when
// grouping adds its own (deriveIssueFields), so one SDK payload cannot make the store
// or a later answer large.
const (
	MaxTags     = 200
	MaxTagValue = 200
	MaxTagKey   = 64
)

// Capped cuts s to at most max bytes on a rune boundary.
func Capped(s string, max int) string {
	out, _ := mcpkit.TruncateText(s, max)
	return out
}

// SortPairs sorts pairs by key, keeping the order of equal keys.
func SortPairs(p []Pair) {
	slices.SortStableFunc(p, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
}

// FirstNonEmpty is the first of s that is not empty ("" when all are).
func FirstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
