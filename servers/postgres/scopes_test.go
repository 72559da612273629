package postgres

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/authtest"
)

// TestWriteScope: over HTTP behind a JWT issuer and behind static tokens, a token with
// only the read scope queries and is refused execute (403 insufficient_scope naming
// db:write) before anything is planned or confirmed, and the table is unchanged; a
// token with db:write reaches the confirmation (or runs); Protected Resource Metadata
// lists db:write (issue 13, item 1).
func TestWriteScope(t *testing.T) {
	if writeScope != "db:write" {
		t.Fatalf("writeScope = %q, want db:write (the README names it)", writeScope)
	}
	authtest.CheckWriteScope(t, authtest.WriteScopeCase{
		WriteScope: writeScope,
		Setup: func(t *testing.T) (*mcpkit.Server, func(*testing.T)) {
			_, db := shopDB(t, Options{})
			return newServer(db, Config{AllowWrites: true}), func(t *testing.T) {
				if n := rowCount(t, db, "SELECT count(*) FROM public.t"); n != 5 {
					t.Errorf("public.t has %d rows after the refused execute, want 5", n)
				}
			}
		},
		Read:  authtest.Call{Tool: "query", Arguments: map[string]any{"sql": "SELECT count(*) FROM public.t"}},
		Write: authtest.Call{Tool: "execute", Arguments: map[string]any{"sql": "INSERT INTO public.t VALUES (6, 'six')"}},
	})
}

// TestEveryWriteToolNeedsTheWriteScope: every tool registered with writes allowed that
// is not marked read-only needs db:write, and execute is the only one.
func TestEveryWriteToolNeedsTheWriteScope(t *testing.T) {
	_, db := shopDB(t, Options{})
	if got := authtest.CheckToolScopes(t, newServer(db, Config{AllowWrites: true}), writeScope); len(got) != 1 || got[0] != "execute" {
		t.Errorf("write tools %v, want [execute]", got)
	}
}
