package filesystem

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestGoSDKEditKeepsBytes: edit_file called by the Go SDK client, over stdio and HTTP
// at both revisions, on a CRLF file, a Latin-1 file and a UTF-16LE file with a BOM:
// the bytes on disk afterwards keep the line breaks and the encoding, and the result
// names both. The edits are written the way a model writes them: LF line breaks and
// UTF-8 text.
func TestGoSDKEditKeepsBytes(t *testing.T) {
	cases := []struct {
		file, before     string
		oldText, newText string
		after            string
		encoding, ending string
	}{
		{"crlf.txt", "first line\r\nsecond line\r\nthird\r\n", "second line\nthird", "2nd line\nwith more\nthird",
			"first line\r\n2nd line\r\nwith more\r\nthird\r\n", "utf-8", "crlf"},
		{"latin1.txt", "caf\xe9 cr\xe8me\nna\xefve\n", "crème", "brûlée",
			"caf\xe9 br\xfbl\xe9e\nna\xefve\n", "latin-1", "lf"},
		{"utf16.txt", utf16le("héllo\r\nwörld\r\n", true), "wörld\n", "wörld ✓\nzwei\n",
			utf16le("héllo\r\nwörld ✓\r\nzwei\r\n", true), "utf-16le", "crlf"},
	}
	for _, transport := range transports {
		for _, rev := range revisions {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				files := map[string]string{}
				for _, c := range cases {
					files[c.file] = c.before
				}
				writeTree(t, dir, files)
				var asked []string // the user accepts each edit's confirmation
				cs := realclient.GoSDKConnect(t, confirmingClient("accept", &asked), clientTarget(t, transport, dir, false), rev)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				for _, c := range cases {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_file", Arguments: map[string]any{
						"path": c.file, "edits": []map[string]string{{"oldText": c.oldText, "newText": c.newText}},
					}})
					if err != nil {
						t.Fatalf("%s: %v", c.file, err)
					}
					if res.IsError {
						t.Errorf("%s: isError: %+v", c.file, res.Content)
						continue
					}
					var out EditFileOutput
					raw, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(raw, &out); err != nil {
						t.Fatal(err)
					}
					if out.Encoding != c.encoding || out.LineEnding != c.ending || out.Replacements != 1 {
						t.Errorf("%s: encoding %s, line ending %s, %d replacements; want %s, %s, 1", c.file, out.Encoding, out.LineEnding, out.Replacements, c.encoding, c.ending)
					}
					if got := readFile(t, filepath.Join(dir, c.file)); got != c.after {
						t.Errorf("%s: bytes on disk\n got %q\nwant %q", c.file, got, c.after)
					}
				}
			})
		}
	}
}

// TestGoSDKClientRootsNarrow: a Go SDK client at 2025-11-25 that offers one
// subdirectory as its root confines the session to it, over stdio and HTTP: the
// server asks roots/list itself and the client's answer decides.
func TestGoSDKClientRootsNarrow(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			dir := toolFixture(t)
			client := mcp.NewClient(&mcp.Implementation{Name: "fs-roots-test", Version: "1.0.0"}, nil)
			client.AddRoots(&mcp.Root{URI: pathURI(filepath.Join(dir, "sub")), Name: "sub"})
			cs := realclient.GoSDKConnect(t, client, clientTarget(t, transport, dir, false), "2025-11-25")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			call := func(tool string, args map[string]any) (*mcp.CallToolResult, string) {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res, realclient.GoSDKText(res)
			}
			res, txt := call("list_allowed_directories", map[string]any{})
			want := `{"directories":["` + filepath.Join(dir, "sub") + `"],"narrowedByClientRoots":true}`
			if res.IsError || txt != want {
				t.Errorf("list_allowed_directories = %s; want %s", txt, want)
			}
			if res, txt := call("read_text_file", map[string]any{"path": "note.md"}); res.IsError || txt != "# Note\nthe needle is here\n" || res.StructuredContent != nil {
				t.Errorf("reading inside the client's root: %s", txt)
			}
			if res, txt := call("read_text_file", map[string]any{"path": filepath.Join(dir, "hello.txt")}); !res.IsError {
				t.Errorf("reading outside the client's root succeeded: %s", txt)
			}
		})
	}
}
