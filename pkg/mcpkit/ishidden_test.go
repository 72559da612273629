package mcpkit

import (
	"testing"
	"unicode/utf8"
)

// TestIsHiddenIsWhatSanitizeDrops: IsHidden(r) answers for one rune what SanitizeText
// does to it, over the BMP and the tag block.
func TestIsHiddenIsWhatSanitizeDrops(t *testing.T) {
	hiddenSeen := 0
	for r := rune(0); r <= 0xe00ff; r++ {
		if r == 0x10000 {
			r = 0xe0000
		}
		if !utf8.ValidRune(r) {
			continue
		}
		dropped := SanitizeText(string(r)) == ""
		if IsHidden(r) != dropped {
			t.Fatalf("U+%04X: IsHidden %v, SanitizeText drops it %v", r, IsHidden(r), dropped)
		}
		if dropped {
			hiddenSeen++
		}
	}
	if hiddenSeen < 100 {
		t.Fatalf("only %d hidden runes seen: the check compared almost nothing", hiddenSeen)
	}
}
