package errorserver

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/authtest"
)

// TestNoWriteTools: the errors server has no tool that changes anything, so no token
// needs errors:write (the scope its README reserves): every registered tool is marked
// read-only and needs no scope beyond the deployment's (issue 13, item 1). A write
// tool added one day would need errors:write (ServerOptions.WriteScope), and would
// first have to stop the server being ReadOnly.
func TestNoWriteTools(t *testing.T) {
	if writeScope != "errors:write" {
		t.Fatalf("writeScope = %q, want errors:write (the README names it)", writeScope)
	}
	s := New(Config{Logger: quietLogger}, openTestStore(t, t.TempDir()))
	if len(s.Tools()) == 0 {
		t.Fatal("no tools registered")
	}
	if got := authtest.CheckToolScopes(t, s, writeScope); len(got) != 0 {
		t.Errorf("tools not marked read-only: %v; the errors server has none", got)
	}
}
