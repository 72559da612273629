package mcpkit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SanitizeText makes untrusted text (file contents, issue bodies, exception messages)
// safe to hand to a model: it drops invisible format characters and bidirectional
// controls that can hide instructions from a human reviewer (Trojan Source,
// CVE-2021-42574), drops C0/C1 controls other than tab, newline and carriage return,
// and replaces invalid UTF-8 with U+FFFD. Visible text is never changed.
func SanitizeText(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			continue
		}
		if hidden(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isClean is the fast path: pure printable ASCII (plus \t \n \r) needs no work.
func isClean(s string) bool {
	// Eight bytes at a time: a word with no byte >= 0x80, none below 0x20 and no 0x7f is
	// clean as a whole; only a word with a line break or tab (or a real problem) is
	// looked at byte by byte.
	const (
		lo   = 0x0101010101010101
		hi   = 0x8080808080808080
		ctrl = 0x2020202020202020
		del  = 0x7f7f7f7f7f7f7f7f
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi != 0 {
			return false
		}
		d := w ^ del
		if (w-ctrl)&^w&hi == 0 && (d-lo)&^d&hi == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if c := s[j]; (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return false
		}
	}
	return true
}

// IsHidden reports whether SanitizeText drops r: a control other than tab, newline
// and carriage return, or a character that renders as nothing or reorders what
// renders. Servers that show such characters instead of dropping them (as visible
// escapes on a page or in a diff) ask it rune by rune.
func IsHidden(r rune) bool { return hidden(r) }

// hidden reports whether r is a character that renders as nothing (or reorders what
// renders) and so must not reach a model or a reviewer.
func hidden(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', // zero-width and BOM
		'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', // bidi embeddings and overrides
		'\u2066', '\u2067', '\u2068', '\u2069', // bidi isolates
		'\u200e', '\u200f', '\u061c', // directional marks
		'\u00ad', '\u180e': // soft hyphen, Mongolian vowel separator
		return true
	}
	if r >= 0xe0000 && r <= 0xe007f { // tag characters ("ASCII smuggling")
		return true
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// TruncateText returns s cut to at most max bytes without splitting a UTF-8 character,
// and whether anything was cut. max <= 0 means no limit.
func TruncateText(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// CleanText is [SanitizeText] followed by [TruncateText]: the one call for a text field
// that comes from an untrusted source and flows back to a model.
func CleanText(s string, max int) (string, bool) {
	return TruncateText(SanitizeText(s), max)
}
