package errorserver

import (
	"regexp"
	"testing"
)

// TestLazyRegexps compiles every expression the package compiles on first use.
func TestLazyRegexps(t *testing.T) {
	if len(lazyRegexps) == 0 {
		t.Fatal("no lazy regexps registered")
	}
	for _, l := range lazyRegexps {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("%s: %v", l.expr, err)
		}
	}
}
