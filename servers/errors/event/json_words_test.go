package event

import (
	"strings"
	"testing"
)

// TestWordRuns checks the word-at-a-time runs against a byte-at-a-time rule: every
// byte value at every place of two words.
func TestWordRuns(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	htmlSafe := func(c byte) bool { return plain(c) && c != '<' && c != '>' && c != '&' }
	for c := range 256 {
		for at := range 16 {
			b := []byte(strings.Repeat("a", 16))
			b[at] = byte(c)
			s := string(b)
			for _, tc := range []struct {
				name string
				run  func(string, int) int
				ok   func(byte) bool
			}{{"plainRun", PlainRun, plain}, {"htmlSafeRun", htmlSafeRun, htmlSafe}} {
				want := 16
				if !tc.ok(byte(c)) {
					want = at / 8 * 8
				}
				if got := tc.run(s, 0); got != want {
					t.Errorf("%s(%q) = %d, want %d", tc.name, s, got, want)
				}
			}
		}
	}
}
