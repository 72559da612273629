package hello

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/authtest"
)

// TestWriteScope: over HTTP behind a JWT issuer and behind static tokens, a token with
// only the read scope reads notes and is refused write_note (403 insufficient_scope
// naming notes:write) without the note changing; a token with notes:write gets to the
// confirmation; Protected Resource Metadata lists notes:write (issue 13, item 1).
func TestWriteScope(t *testing.T) {
	if writeScope != "notes:write" {
		t.Fatalf("writeScope = %q, want notes:write (the README names it)", writeScope)
	}
	authtest.CheckWriteScope(t, authtest.WriteScopeCase{
		WriteScope: writeScope,
		Setup: func(t *testing.T) (*mcpkit.Server, func(*testing.T)) {
			s, dir := newServer(t, true, map[string]string{"todo.md": "buy milk\n"})
			return s, func(t *testing.T) {
				if got := note(t, dir, "todo"); got != "buy milk\n" {
					t.Errorf("todo.md after the refused write_note: %q", got)
				}
			}
		},
		Read:  authtest.Call{Tool: "read_note", Arguments: map[string]any{"name": "todo"}},
		Write: authtest.Call{Tool: "write_note", Arguments: map[string]any{"name": "todo", "text": "sell milk\n"}},
	})
}

// TestEveryWriteToolNeedsTheWriteScope: every tool registered with writes allowed that
// is not marked read-only needs notes:write, whatever table row it came from.
func TestEveryWriteToolNeedsTheWriteScope(t *testing.T) {
	s, _ := newServer(t, true, nil)
	if got := authtest.CheckToolScopes(t, s, writeScope); len(got) != 1 || got[0] != "write_note" {
		t.Errorf("write tools %v, want [write_note]", got)
	}
}
