package filesystem

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/authtest"
)

// TestWriteScope: over HTTP behind a JWT issuer and behind static tokens, a token with
// only the read scope reads files and is refused write_file, edit_file,
// create_directory and move_file (403 insufficient_scope naming files:write), and the
// refused write_file writes nothing; a token with files:write writes (or reaches the
// confirmation); Protected Resource Metadata lists files:write (issue 13, item 1:
// a read-only token could write files).
func TestWriteScope(t *testing.T) {
	if writeScope != "files:write" {
		t.Fatalf("writeScope = %q, want files:write (the README names it)", writeScope)
	}
	var dir string
	authtest.CheckWriteScope(t, authtest.WriteScopeCase{
		WriteScope: writeScope,
		Setup: func(t *testing.T) (*mcpkit.Server, func(*testing.T)) {
			dir = toolFixture(t)
			before := treeSnapshot(t, dir)
			return newServerOn(t, Config{AllowWrites: true}, dir), func(t *testing.T) {
				if d := cmp.Diff(before, treeSnapshot(t, dir)); d != "" {
					t.Errorf("the refused calls changed the directory (-before +after):\n%s", d)
				}
			}
		},
		Read:  authtest.Call{Tool: "read_text_file", Arguments: map[string]any{"path": "hello.txt"}},
		Write: authtest.Call{Tool: "write_file", Arguments: map[string]any{"path": "new.txt", "content": "written\n"}},
		Proceeded: func(t *testing.T, r *authtest.Reply) {
			var res struct {
				ResultType string `json:"resultType"`
			}
			if json.Unmarshal(r.Result, &res) == nil && res.ResultType == "input_required" {
				return // the user is asked first
			}
			if got := readFile(t, filepath.Join(dir, "new.txt")); got != "written\n" {
				t.Errorf("new.txt after write_file with files:write: %q", got)
			}
		},
	})
}

// TestEveryWriteToolNeedsTheWriteScope: every tool registered with writes allowed that
// is not marked read-only needs files:write, and those are exactly the write tools.
func TestEveryWriteToolNeedsTheWriteScope(t *testing.T) {
	s := newServerOn(t, Config{AllowWrites: true}, t.TempDir())
	got := authtest.CheckToolScopes(t, s, writeScope)
	if d := cmp.Diff(slices.Sorted(slices.Values(writeTools)), slices.Sorted(slices.Values(got))); d != "" {
		t.Errorf("tools not marked read-only (-want +got):\n%s", d)
	}
}

// treeSnapshot maps every path under dir to its content ("/" for a directory).
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
