package errorserver

import (
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Bounds on an event's tags, applied when it is ingested (normalizeTags) and when
// grouping adds its own (deriveIssueFields), so one SDK payload cannot make the store
// or a later answer large.
const (
	ingestMaxTags     = 200
	ingestMaxTagValue = 200
	ingestMaxTagKey   = 64
)

// capped cuts s to at most max bytes on a rune boundary.
func capped(s string, max int) string {
	out, _ := mcpkit.TruncateText(s, max)
	return out
}

// sortPairs sorts pairs by key, keeping the order of equal keys.
func sortPairs(p []tagPair) {
	slices.SortStableFunc(p, func(a, b tagPair) int { return strings.Compare(a.Key, b.Key) })
}

// firstNonEmpty is the first of s that is not empty ("" when all are).
func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
