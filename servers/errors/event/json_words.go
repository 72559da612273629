package event

// Eight bytes at a time: the JSON decoder and appender look for the few bytes that
// end a plain run of string text (a quote, a backslash, a control or non-ASCII byte,
// and for the appender the HTML-special ones), testing a word of eight bytes with a
// handful of integer operations instead of each byte on its own.

const (
	wordLSB = 0x0101010101010101
	wordMSB = 0x8080808080808080
)

// word8 reads s[i:i+8] as a little-endian word (one load once compiled).
func word8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hasByte reports whether a byte of w is c.
func hasByte(w uint64, c byte) bool {
	x := w ^ (wordLSB * uint64(c))
	return (x-wordLSB)&^x&wordMSB != 0
}

// plainWord reports whether the eight bytes of w are printable ASCII other than a
// quote and a backslash: text a JSON string holds as it is.
func plainWord(w uint64) bool {
	return w&wordMSB == 0 && (w-wordLSB*0x20)&^w&wordMSB == 0 && !hasByte(w, '"') && !hasByte(w, '\\')
}

// PlainRun returns the end of the run of plain text (see plainWord) from i, whole
// words only: the caller looks at the bytes after it one by one.
func PlainRun(s string, i int) int {
	for i+8 <= len(s) && plainWord(word8(s, i)) {
		i += 8
	}
	return i
}

// htmlSafeRun is plainRun that also stops at <, > and &, which json.Marshal escapes.
func htmlSafeRun(s string, i int) int {
	for i+8 <= len(s) {
		w := word8(s, i)
		if !plainWord(w) || hasByte(w, '<') || hasByte(w, '>') || hasByte(w, '&') {
			break
		}
		i += 8
	}
	return i
}
