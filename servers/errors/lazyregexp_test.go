package errorserver

import (
	"regexp"
	"testing"

	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"
)

// TestLazyRegexps compiles every expression the server compiles on first use (this
// package links every package that makes one).
func TestLazyRegexps(t *testing.T) {
	exprs := lazyregexp.Exprs()
	if len(exprs) == 0 {
		t.Fatal("no lazy regexps registered")
	}
	for _, expr := range exprs {
		if _, err := regexp.Compile(expr); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}
