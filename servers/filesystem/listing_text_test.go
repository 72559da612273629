package filesystem

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// listingFixture has a file, a directory, a link, a FIFO and names a reader could
// misread (a line break, a bidirectional override, a trailing space), all with one
// modification time.
func listingFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"b.txt":                   "12345",
		"a/inner.txt":             "x",
		"evil\nfake.txt":          "",
		"rtl\u202etxt.exe":        "",
		"space ":                  "",
		"long-" + "x" + ".js":     strings.Repeat("y", 300),
		"a/deeper/deepest/z.go":   "package z\n",
		"a/deeper/deepest/q/r.go": "package r\n",
		"s/one":                   "1",
		"s/two":                   "22",
		"s/three":                 "333",
	})
	if err := os.Symlink("b.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		os.Chtimes(p, when, when)
		return nil
	})
	return dir
}

// TestListingText (issue 30): list_directory and directory_tree answer with text, one
// entry a line, a type mark instead of JSON fields, sizes and times only with details,
// and misreadable names quoted. Before, both answered with the JSON of every entry.
func TestListingText(t *testing.T) {
	dir := listingFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20260728, nil)
	call := func(tool string, args map[string]any) string {
		t.Helper()
		r := c.CallTool(tool, args)
		if r.IsError || r.StructuredContent != nil {
			t.Fatalf("%s %v: isError %v, structuredContent %s: %s", tool, args, r.IsError, r.StructuredContent, r.Text())
		}
		return r.Text()
	}
	h := "[" + dir + ": "
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_directory", map[string]any{}, h + "9 entries]\na/\nb.txt\n\"evil\\nfake.txt\"\nlink (symlink)\nlong-x.js\npipe (special file)\n\"rtl\\u202etxt.exe\"\ns/\n\"space \"\n"},
		{"list_directory", map[string]any{"details": true, "limit": 3},
			h + "entries 1-3 of 9; name, bytes, modified (UTC); truncated: 6 more entries; call again with offset=3]\na/\t-\t2026-11-02T09:30:00Z\nb.txt\t5\t2026-11-02T09:30:00Z\n\"evil\\nfake.txt\"\t0\t2026-11-02T09:30:00Z\n"},
		{"list_directory", map[string]any{"path": "s", "sortBy": "size", "limit": 2}, "[" + filepath.Join(dir, "s") + ": entries 1-2 of 3; largest first; truncated: 1 more entries; call again with offset=2]\nthree\ntwo\n"},
		{"list_directory", map[string]any{"offset": 20}, h + "no entries at offset 20; 9 entries in all]\n"},
		{"list_directory", map[string]any{"path": "a/deeper/deepest/q"}, "[" + filepath.Join(dir, "a/deeper/deepest/q") + ": 1 entry]\nr.go\n"},
		{"directory_tree", map[string]any{"path": "a", "maxDepth": 2},
			"[" + filepath.Join(dir, "a") + ": 3 entries; directories at depth 2 were not expanded; raise maxDepth or call again on one of them]\ndeeper/\ndeeper/deepest/\ninner.txt\n"},
		{"directory_tree", map[string]any{"path": "a", "details": true},
			"[" + filepath.Join(dir, "a") + ": 5 entries; path, bytes, modified (UTC); directories at depth 3 were not expanded; raise maxDepth or call again on one of them]\ndeeper/\t-\t2026-11-02T09:30:00Z\ndeeper/deepest/\t-\t2026-11-02T09:30:00Z\ndeeper/deepest/q/\t-\t2026-11-02T09:30:00Z\ndeeper/deepest/z.go\t10\t2026-11-02T09:30:00Z\ninner.txt\t1\t2026-11-02T09:30:00Z\n"},
		{"directory_tree", map[string]any{"path": "a", "maxEntries": 1}, "[" + filepath.Join(dir, "a") + ": 1 entry; truncated: stopped at maxEntries=1; raise maxEntries (at most 10000) or call again on a subdirectory or with exclude patterns]\ndeeper/\n"},
	} {
		if got := call(tc.tool, tc.args); got != tc.want {
			t.Errorf("%s %v:\n got %q\nwant %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"list_directory", "directory_tree"} {
		if got, want := call(tool, map[string]any{"path": "empty"}), "["+filepath.Join(dir, "empty")+": empty directory]\n"; got != want {
			t.Errorf("%s of an empty directory = %q; want %q", tool, got, want)
		}
	}
}

// TestListingStructuredComplete: for clients that take output schemas
// (Config.OutputSchemas), structuredContent carries every entry's type, size and time
// whatever details says, and the text is the same compact text.
func TestListingStructuredComplete(t *testing.T) {
	dir := listingFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{OutputSchemas: true}, dir), mcpkit.Revision20260728, nil)
	r := c.CallTool("list_directory", map[string]any{"limit": 2})
	ld := structured[ListDirectoryOutput](t, "list_directory", r)
	want := []DirEntry{
		{Name: "a", Type: "directory", Size: ld.Entries[0].Size, Modified: "2026-11-02T09:30:00Z"},
		{Name: "b.txt", Type: "file", Size: 5, Modified: "2026-11-02T09:30:00Z"},
	}
	if d := cmp.Diff(want, ld.Entries); d != "" || ld.Total != 9 || ld.NextOffset != 2 || !ld.Truncated {
		t.Errorf("structured listing (total %d, next %d, truncated %v) (-want +got):\n%s", ld.Total, ld.NextOffset, ld.Truncated, d)
	}
	if !strings.HasPrefix(r.Text(), "[") || strings.Contains(r.Text(), `"name"`) {
		t.Errorf("text with output schemas = %q; want the compact text", r.Text())
	}
	tree := structured[DirectoryTreeOutput](t, "directory_tree", c.CallTool("directory_tree", map[string]any{"path": "a"}))
	for _, e := range tree.Entries {
		if e.Modified != "2026-11-02T09:30:00Z" || e.Type == "file" && e.Size == 0 {
			t.Errorf("tree entry %+v lacks its time or size", e)
		}
	}
}

// TestListingFiftyEntriesBytes (issue 30): a directory of 50 entries, as the tokens
// command's fixture has it (44 asset files, 6 directories), lists in at most 1,200
// bytes of text; the JSON it replaced was 4,323.
func TestListingFiftyEntriesBytes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, w := range []string{"cart", "checkout", "payment", "shipping", "account", "search", "product", "review", "wishlist", "promo", "footer"} {
		for _, k := range []string{"icon-%s.svg", "banner-%s.webp", "%s.css", "%s.js"} {
			files["web/assets/"+fmt.Sprintf(k, w)] = "x"
		}
	}
	for _, d := range []string{"fonts", "images", "vendor", "locales", "legacy", "print"} {
		files["web/assets/"+d+"/"] = ""
	}
	writeTree(t, dir, files)
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20260728, nil)
	r := c.CallTool("list_directory", map[string]any{"path": "web/assets"})
	text := r.Text()
	// What a host passes the model: structuredContent's JSON when present, else text.
	host := len(text)
	if r.StructuredContent != nil {
		js, _ := json.Marshal(r.StructuredContent)
		host = len(js)
	}
	if strings.Count(text, "\n") != 51 || host > 1200 {
		t.Errorf("50-entry listing: %d lines, %d bytes as hosts pass it; want 51 lines in at most 1,200 bytes:\n%s", strings.Count(text, "\n"), host, text)
	}
	t.Logf("50-entry listing: %d bytes (path %d bytes)", host, len(dir))
}
