package github

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/authtest"
)

// TestWriteScope: over HTTP behind a JWT issuer and behind static tokens, a token with
// only the read scope reads and is refused create_issue (403 insufficient_scope
// naming github:write) without GitHub receiving any write; a token with github:write
// reaches the confirmation (or writes); Protected Resource Metadata lists
// github:write (issue 13, item 1). That every other write tool needs the same scope
// is TestEveryWriteToolNeedsTheWriteScope's check.
func TestWriteScope(t *testing.T) {
	if writeScope != "github:write" {
		t.Fatalf("writeScope = %q, want github:write (the README names it)", writeScope)
	}
	authtest.CheckWriteScope(t, authtest.WriteScopeCase{
		WriteScope: writeScope,
		Setup: func(t *testing.T) (*mcpkit.Server, func(*testing.T)) {
			f := newFake(t)
			return newServer(t, f, BackendConfig{}, Config{AllowWrites: true}), func(t *testing.T) {
				if n := f.writes(); n != 0 {
					t.Errorf("GitHub received %d writes after the refused calls: %+v", n, f.requests())
				}
			}
		},
		Read:  authtest.Call{Tool: "get_issue", Arguments: validArgs["get_issue"]},
		Write: authtest.Call{Tool: "create_issue", Arguments: validArgs["create_issue"]},
	})
}

// TestEveryWriteToolNeedsTheWriteScope: every tool registered with writes allowed
// (every toolset) that is not marked read-only needs github:write, and those are
// exactly the write tools of the catalog.
func TestEveryWriteToolNeedsTheWriteScope(t *testing.T) {
	got := authtest.CheckToolScopes(t, newServer(t, newFake(t), BackendConfig{}, Config{AllowWrites: true}), writeScope)
	if d := cmp.Diff(slices.Sorted(slices.Values(writeToolNames)), slices.Sorted(slices.Values(got))); d != "" {
		t.Errorf("tools not marked read-only (-want +got):\n%s", d)
	}
}
