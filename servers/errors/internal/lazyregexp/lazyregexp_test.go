package lazyregexp

import (
	"slices"
	"testing"
)

// TestNewCompilesOnFirstUse: New only registers the expression; the first match
// compiles it.
func TestNewCompilesOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	if !slices.Contains(Exprs(), `^a+b$`) {
		t.Fatalf("Exprs() = %q: the new expression is missing", Exprs())
	}
	if !re.MatchString("aab") || re.MatchString("ba") {
		t.Error("the lazy regexp matches differently from the expression")
	}
}
