package backend

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// MarkHidden is the page's counterpart of mcpkit.SanitizeText: every character that
// SanitizeText would drop (bidirectional controls such as U+202E, zero-width and
// other invisible characters, C0/C1 controls) is replaced by a visible escape such as
// ⟨U+202E⟩. A model is best served by text without them; a person reading an event
// should see that it carried them (a Trojan Source line, a spoofed file name), and
// as escapes they can no longer reorder or hide what the page shows. Tab, newline and
// carriage return stay; invalid UTF-8 becomes U+FFFD.
func MarkHidden(s string) string {
	if mcpkit.SanitizeText(s) == s {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case mcpkit.IsHidden(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
