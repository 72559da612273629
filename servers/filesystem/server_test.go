package filesystem

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

var (
	revisions  = []string{mcpkit.Revision20260728, mcpkit.Revision20251125}
	readTools  = []string{"list_allowed_directories", "list_directory", "directory_tree", "read_text_file", "read_media_file", "read_multiple_files", "search_files", "search_file_contents", "get_file_info"}
	writeTools = []string{"write_file", "edit_file", "create_directory", "move_file", "copy_file", "delete_file", "delete_directory"}
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newServerOn builds the MCP server over dirs; the roots close when the test ends.
func newServerOn(t testing.TB, cfg Config, dirs ...string) *mcpkit.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	return New(cfg, openTestRoots(t, dirs...))
}

// structured decodes a successful tool result's structuredContent as T; an isError
// result fails the test with its message.
func structured[T any](t testing.TB, what string, r *mcpkittest.ToolResult) T {
	t.Helper()
	var out T
	if r.IsError {
		t.Fatalf("%s: isError: %s", what, r.Text())
	}
	if err := json.Unmarshal(r.StructuredContent, &out); err != nil {
		t.Fatalf("%s: structuredContent %s: %v", what, r.StructuredContent, err)
	}
	return out
}

// pngBytes is a valid 2x1 PNG, so content sniffing sees image/png.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 1))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// toolFixture is the tree every tool is called on.
func toolFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"hello.txt":   "hello\nworld\n",
		"sub/note.md": "# Note\nthe needle is here\n",
		"data.bin":    "\x00\x01\x02binary\x00",
		"img.png":     string(pngBytes(t)),
	})
	return dir
}

func listToolNames(t testing.TB, c *mcpkittest.Client) []mcpkit.Tool {
	t.Helper()
	var res struct {
		Tools []mcpkit.Tool `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &res); err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestToolsGolden snapshots tools/list per mode and checks the read-only promise: in
// TestInputSchemas holds input_schemas.json, the schemas New takes instead of
// generating them at every start, to what the tools' Go types generate (-update or
// go generate rewrites it).
func TestInputSchemas(t *testing.T) {
	dir := t.TempDir()
	mcpkittest.InputSchemas(t, "input_schemas.json", newServerOn(t, Config{}, dir), newServerOn(t, Config{AllowWrites: true}, dir))
}

// read-only mode no write tool exists and every tool says readOnlyHint; with writes,
// exactly the write tools are added and none of them claims to be read-only. The list
// is the same at both revisions.
func TestToolsGolden(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		mode   string
		cfg    Config
		golden string
		want   []string
	}{
		{"readonly", Config{}, "testdata/tools_readonly.golden.json", readTools},
		{"writes", Config{AllowWrites: true}, "testdata/tools_writes.golden.json", append(slices.Clone(readTools), writeTools...)},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := newServerOn(t, tc.cfg, dir)
			size := mcpkittest.ToolsGolden(t, mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil), tc.golden)
			t.Logf("tools/list is %d bytes", size)
			for _, rev := range revisions {
				tools := listToolNames(t, mcpkittest.Connect(t, s, rev, nil))
				var names []string
				for _, tl := range tools {
					names = append(names, tl.Name)
					ro := tl.Annotations != nil && tl.Annotations.ReadOnlyHint
					if want := slices.Contains(readTools, tl.Name); ro != want {
						t.Errorf("%s %s: readOnlyHint=%v, want %v", rev, tl.Name, ro, want)
					}
					if tl.Description == "" || tl.Title == "" {
						t.Errorf("%s %s: missing title or description", rev, tl.Name)
					}
				}
				if d := cmp.Diff(tc.want, names); d != "" {
					t.Errorf("%s tools (-want +got):\n%s", rev, d)
				}
			}
		})
	}
}

// TestDescriptionsSayWhenToUse checks the parts of the descriptions a model relies on
// to choose: names versus contents search point at each other, and the instructions
// say once, for every tool whose result can be cut, how truncation is reported.
func TestDescriptionsSayWhenToUse(t *testing.T) {
	s := newServerOn(t, Config{AllowWrites: true}, t.TempDir())
	desc := map[string]string{}
	for _, tl := range s.Tools() {
		desc[tl.Name] = tl.Description
	}
	for _, tc := range []struct{ tool, phrase string }{
		{"search_files", "never file contents: to find text inside files use search_file_contents"},
		{"search_file_contents", "to find files by their name use search_files"},
		{"read_text_file", "use read_multiple_files"},
		{"edit_file", "dryRun"},
		{"write_file", "use edit_file"},
	} {
		if !strings.Contains(desc[tc.tool], tc.phrase) {
			t.Errorf("%s description lacks %q: %s", tc.tool, tc.phrase, desc[tc.tool])
		}
	}
	for _, phrase := range []string{"Results are bounded", "truncated", "hint", "nextOffset as offset"} {
		if !strings.Contains(instructions, phrase) {
			t.Errorf("the instructions do not say how a cut result is marked (%q): %s", phrase, instructions)
		}
	}
}

// TestEveryToolBothRevisions calls every tool through the protocol (every message
// validated against the revision's schema by mcpkittest) and checks the values it
// returns and, for writes, the bytes on disk.
func TestEveryToolBothRevisions(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			dir := toolFixture(t)
			// The confirmation of destructive writes has its own tests (confirm_test.go):
			// here the server runs as for a host that confirms each call itself.
			c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true, NoConfirm: true}, dir), rev, nil)

			dirs := structured[ListAllowedDirectoriesOutput](t, "list_allowed_directories", c.CallTool("list_allowed_directories", map[string]any{}))
			if d := cmp.Diff(ListAllowedDirectoriesOutput{Directories: []string{dir}}, dirs); d != "" {
				t.Errorf("list_allowed_directories (-want +got):\n%s", d)
			}

			// Listings are text alone (issue 30): a header, then one entry a line.
			ld := c.CallTool("list_directory", map[string]any{"path": dir})
			if want := "[" + dir + ": 4 entries]\ndata.bin\nhello.txt\nimg.png\nsub/\n"; ld.IsError || ld.Text() != want || ld.StructuredContent != nil {
				t.Errorf("list_directory = %q, structuredContent %s; want %q alone", ld.Text(), ld.StructuredContent, want)
			}
			tree := c.CallTool("directory_tree", map[string]any{"path": dir, "excludePatterns": []string{"*.bin"}})
			if want := "[" + dir + ": 4 entries]\nhello.txt\nimg.png\nsub/\nsub/note.md\n"; tree.IsError || tree.Text() != want || tree.StructuredContent != nil {
				t.Errorf("directory_tree with excludePatterns = %q, structuredContent %s; want %q alone", tree.Text(), tree.StructuredContent, want)
			}

			// The text alone (no structuredContent): a header naming the lines, then
			// them; UTF-8 is not worth a mention.
			rt := c.CallTool("read_text_file", map[string]any{"path": "hello.txt", "tail": 1})
			if want := "[" + filepath.Join(dir, "hello.txt") + ": line 2 of 2]\nworld\n"; rt.IsError || rt.Text() != want || rt.StructuredContent != nil {
				t.Errorf("read_text_file tail 1 = %q, structuredContent %s; want %q alone", rt.Text(), rt.StructuredContent, want)
			}

			media := c.CallTool("read_media_file", map[string]any{"path": "img.png"})
			info := structured[MediaFileInfo](t, "read_media_file", media)
			if info.MimeType != "image/png" || info.Kind != "image" || info.URI != FileURI(openTestRoots(t, dir).List()[0], "img.png") {
				t.Errorf("read_media_file info = %+v", info)
			}
			if len(media.Content) != 2 || media.Content[1].Type != "image" || media.Content[1].Data != base64.StdEncoding.EncodeToString(pngBytes(t)) {
				t.Errorf("read_media_file content blocks = %+v; want text then the image's bytes", media.Content)
			}

			multi := structured[ReadMultipleFilesOutput](t, "read_multiple_files", c.CallTool("read_multiple_files", map[string]any{"paths": []string{"hello.txt", "missing.txt"}}))
			if len(multi.Files) != 2 || multi.Files[0].Result == nil || multi.Files[0].Result.Content != "hello\nworld\n" || !strings.Contains(multi.Files[1].Error, "no such file") {
				t.Errorf("read_multiple_files = %+v; want hello.txt's text and an error for missing.txt", multi)
			}

			sf := structured[SearchFilesOutput](t, "search_files", c.CallTool("search_files", map[string]any{"pattern": "*.md"}))
			if len(sf.Matches) != 1 || sf.Matches[0].Path != filepath.Join(dir, "sub", "note.md") {
				t.Errorf("search_files *.md = %+v", sf.Matches)
			}

			sc := structured[SearchFileContentsOutput](t, "search_file_contents", c.CallTool("search_file_contents", map[string]any{"pattern": "need+le"}))
			if len(sc.Matches) != 1 || sc.Matches[0].Line != 2 || sc.Matches[0].Path != filepath.Join(dir, "sub", "note.md") {
				t.Errorf("search_file_contents = %+v; want line 2 of sub/note.md", sc.Matches)
			}

			fi := structured[FileInfo](t, "get_file_info", c.CallTool("get_file_info", map[string]any{"path": "hello.txt"}))
			if fi.Type != "file" || fi.Size != 12 {
				t.Errorf("get_file_info = %+v; want a 12-byte file", fi)
			}

			wf := structured[WriteFileOutput](t, "write_file", c.CallTool("write_file", map[string]any{"path": "new.txt", "content": "fresh\n"}))
			if !wf.Created || readFile(t, filepath.Join(dir, "new.txt")) != "fresh\n" {
				t.Errorf("write_file = %+v; disk %q", wf, readFile(t, filepath.Join(dir, "new.txt")))
			}

			ef := structured[EditFileOutput](t, "edit_file", c.CallTool("edit_file", map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "world", "newText": "there"}}}))
			if ef.Replacements != 1 || !strings.Contains(ef.Diff, "+there") || readFile(t, filepath.Join(dir, "hello.txt")) != "hello\nthere\n" {
				t.Errorf("edit_file = %+v; disk %q", ef, readFile(t, filepath.Join(dir, "hello.txt")))
			}

			cd := structured[CreateDirectoryOutput](t, "create_directory", c.CallTool("create_directory", map[string]any{"path": "made/deep"}))
			if st, err := os.Stat(filepath.Join(dir, "made", "deep")); !cd.Created || err != nil || !st.IsDir() {
				t.Errorf("create_directory = %+v; stat: %v", cd, err)
			}

			mv := structured[MoveFileOutput](t, "move_file", c.CallTool("move_file", map[string]any{"source": "new.txt", "destination": "made/deep"}))
			if mv.Destination != filepath.Join(dir, "made", "deep", "new.txt") || readFile(t, mv.Destination) != "fresh\n" {
				t.Errorf("move_file = %+v", mv)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
				t.Errorf("new.txt still exists after the move: %v", err)
			}
		})
	}
}

// TestReadMediaFileOtherTypes: a binary file that is neither image nor audio comes
// back as an embedded resource blob with its file:// URI.
func TestReadMediaFileOtherTypes(t *testing.T) {
	dir := toolFixture(t)
	for _, rev := range revisions {
		c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), rev, nil)
		r := c.CallTool("read_media_file", map[string]any{"path": "data.bin"})
		info := structured[MediaFileInfo](t, "read_media_file", r)
		if info.Kind != "other" || len(r.Content) != 2 || r.Content[1].Type != "resource" || r.Content[1].Resource == nil {
			t.Fatalf("%s: read_media_file data.bin = %+v %+v", rev, info, r.Content)
		}
		rc := r.Content[1].Resource
		if got, _ := base64.StdEncoding.DecodeString(rc.Blob); string(got) != "\x00\x01\x02binary\x00" || rc.URI != info.URI {
			t.Errorf("%s: embedded resource %s %q; want the file's bytes at %s", rev, rc.URI, got, info.URI)
		}
	}
}

// TestBoundedResultsSayTruncated: a capped result through the protocol carries
// truncated and a hint that names how to get the rest.
func TestBoundedResultsSayTruncated(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[filepath.Join("d", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".txt")] = "needle\n"
	}
	writeTree(t, dir, files)
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20260728, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"list_directory", map[string]any{"path": "d", "limit": 5}},
		{"directory_tree", map[string]any{"maxEntries": 5}},
		{"search_files", map[string]any{"pattern": "*.txt", "maxResults": 5}},
		{"search_file_contents", map[string]any{"pattern": "needle", "maxResults": 5}},
		{"read_text_file", map[string]any{"path": "d/a.txt", "maxBytes": 3}},
	} {
		r := c.CallTool(tc.tool, tc.args)
		if tc.tool == "read_text_file" || tc.tool == "list_directory" || tc.tool == "directory_tree" { // text alone: the header says it
			if !strings.Contains(r.Text(), "; truncated: ") {
				t.Errorf("%s %v: %q; want a header saying truncated, with a hint", tc.tool, tc.args, r.Text())
			}
			continue
		}
		got := structured[mcpkit.Truncation](t, tc.tool, r)
		if !got.Truncated || got.Hint == "" {
			t.Errorf("%s %v: truncated=%v hint=%q; want truncated with a hint", tc.tool, tc.args, got.Truncated, got.Hint)
		}
	}
}
