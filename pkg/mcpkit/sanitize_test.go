package mcpkit

import (
	"strings"
	"testing"
)

// isClean reads eight bytes at a time; it must agree with the plain byte-by-byte rule
// for every byte value at every position of a word and in the tail.
func TestIsCleanMatchesByteRule(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
		}
		return true
	}
	base := "abcdefghijklmnopqrstuvw" // 23 bytes: two words and a tail
	for pos := range len(base) {
		for c := range 256 {
			s := base[:pos] + string([]byte{byte(c)}) + base[pos+1:]
			if got, want := isClean(s), slow(s); got != want {
				t.Fatalf("byte %#x at %d: isClean = %v, want %v", c, pos, got, want)
			}
		}
	}
	if !isClean(strings.Repeat("line\twith tab\r\n", 100)) {
		t.Error("text with tabs and CRLF is clean")
	}
	if SanitizeText("a\u202eb\x00c") != "abc" {
		t.Errorf("SanitizeText kept a hidden or control character: %q", SanitizeText("a\u202eb\x00c"))
	}
}
