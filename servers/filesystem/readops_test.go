package filesystem

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestListDirectory(t *testing.T) {
	// Sizes far apart from any directory's size on common file systems.
	rs, dir := newTestRoot(t, map[string]string{"b.txt": strings.Repeat("b", 50000), "a.txt": "a", "c.txt": strings.Repeat("c", 100000), "sub/": ""})
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, n := range []string{"a.txt", "b.txt", "c.txt", "sub"} {
		mt := old.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, n), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	names := func(o ListDirectoryOutput) []string {
		var s []string
		for _, e := range o.Entries {
			s = append(s, e.Name+":"+e.Type)
		}
		return s
	}
	ctx := testCtx(t)
	tests := []struct {
		in       ListDirectoryInput
		want     []string
		next     int
		truncate bool
	}{
		{ListDirectoryInput{}, []string{"a.txt:file", "b.txt:file", "c.txt:file", "link:symlink", "sub:directory"}, 0, false},
		{ListDirectoryInput{SortBy: "size", Limit: 2}, []string{"c.txt:file", "b.txt:file"}, 2, true},
		{ListDirectoryInput{SortBy: "modified", Offset: 1, Limit: 2}, []string{"sub:directory", "c.txt:file"}, 3, true},
		{ListDirectoryInput{Offset: 4}, []string{"sub:directory"}, 0, false},
		{ListDirectoryInput{Offset: 9}, nil, 0, false},
	}
	for _, tt := range tests {
		got, err := rs.ListDirectory(ctx, tt.in)
		if err != nil {
			t.Fatalf("ListDirectory(%+v): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("ListDirectory(%+v) (-want +got):\n%s", tt.in, diff)
		}
		if got.NextOffset != tt.next || got.Truncated != tt.truncate || got.Total != 5 {
			t.Errorf("ListDirectory(%+v): next=%d truncated=%v total=%d; want %d %v 5", tt.in, got.NextOffset, got.Truncated, got.Total, tt.next, tt.truncate)
		}
	}
	got, _ := rs.ListDirectory(ctx, ListDirectoryInput{})
	if e := got.Entries[2]; e.Size != 100000 || e.Modified != "2020-01-01T02:00:00Z" {
		t.Errorf("c.txt entry = %+v; want size 100000, modified 2020-01-01T02:00:00Z", e)
	}
	for _, bad := range []ListDirectoryInput{{SortBy: "color"}, {Limit: MaxListLimit + 1}, {Offset: -1}, {Path: "a.txt"}} {
		if _, err := rs.ListDirectory(ctx, bad); err == nil {
			t.Errorf("ListDirectory(%+v) succeeded; want an error", bad)
		}
	}
}

func TestDirectoryTree(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{
		"a/b/c/d.txt": "dddd", "a/x.txt": "x", "a-b.txt": "", "z.txt": "zz", "node_modules/m.js": "",
		".gitignore": "*.log\n", "debug.log": "",
	})
	ctx := testCtx(t)
	paths := func(o DirectoryTreeOutput) []string {
		var s []string
		for _, e := range o.Entries {
			s = append(s, e.Path)
		}
		return s
	}
	got, err := rs.DirectoryTree(ctx, DirectoryTreeInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "a", "a/b", "a/b/c", "a/x.txt", "a-b.txt", "node_modules", "node_modules/m.js", "z.txt"}
	if diff := cmp.Diff(want, paths(got)); diff != "" {
		t.Errorf("default tree (-want +got):\n%s", diff)
	}
	if got.Hint == "" || got.Truncated {
		t.Errorf("depth-limited tree: hint %q truncated %v; want a depth hint, not truncated", got.Hint, got.Truncated)
	}
	if got.Path != dir {
		t.Errorf("path = %q; want %q", got.Path, dir)
	}

	got, err = rs.DirectoryTree(ctx, DirectoryTreeInput{MaxDepth: 1, Exclude: []string{"node_modules"}, RespectGitignore: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{".gitignore", "a", "a-b.txt", "debug.log", "z.txt"}
	if diff := cmp.Diff(want, paths(got)); diff != "" {
		t.Errorf("depth 1, exclude, no gitignore (-want +got):\n%s", diff)
	}

	got, err = rs.DirectoryTree(ctx, DirectoryTreeInput{MaxEntries: 3, MaxDepth: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 3 || !got.Truncated || got.Visited != 4 {
		t.Errorf("capped tree: %d entries, truncated=%v, visited=%d; want 3, true, 4 (stops right after the cap)", len(got.Entries), got.Truncated, got.Visited)
	}
	if _, err := rs.DirectoryTree(ctx, DirectoryTreeInput{Path: "z.txt"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("tree of a file: %v", err)
	}
	if _, err := rs.DirectoryTree(ctx, DirectoryTreeInput{MaxDepth: 65}); err == nil {
		t.Error("maxDepth 65 accepted")
	}
}

func TestSearchFiles(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{
		"main.go": "", "cmd/tool/main.go": "", "pkg/a.go": "", "pkg/a_test.go": "", "pkg/b.txt": "",
		"vendor/v.go": "", ".gitignore": "vendor/\n",
	})
	ctx := testCtx(t)
	rel := func(o SearchFilesOutput) []string {
		var s []string
		for _, m := range o.Matches {
			r, _ := filepath.Rel(dir, m.Path)
			s = append(s, filepath.ToSlash(r))
		}
		return s
	}
	tests := []struct {
		in   SearchFilesInput
		want []string
	}{
		{SearchFilesInput{Pattern: "*.go"}, []string{"main.go", "pkg/a.go", "pkg/a_test.go", "cmd/tool/main.go"}},
		{SearchFilesInput{Pattern: "*.go", Exclude: []string{"*_test.go"}}, []string{"main.go", "pkg/a.go", "cmd/tool/main.go"}},
		{SearchFilesInput{Pattern: "cmd/**/main.go"}, []string{"cmd/tool/main.go"}},
		{SearchFilesInput{Pattern: "*.{txt,go}", Path: "pkg"}, []string{"pkg/a.go", "pkg/a_test.go", "pkg/b.txt"}},
		{SearchFilesInput{Pattern: "*.go", RespectGitignore: ptr(false)}, []string{"main.go", "pkg/a.go", "pkg/a_test.go", "vendor/v.go", "cmd/tool/main.go"}},
		{SearchFilesInput{Pattern: "pkg"}, []string{"pkg"}},
	}
	for _, tt := range tests {
		got, err := rs.SearchFiles(ctx, tt.in)
		if err != nil {
			t.Fatalf("SearchFiles(%+v): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, rel(got)); diff != "" {
			t.Errorf("SearchFiles(%+v) (-want +got):\n%s", tt.in, diff)
		}
		if got.Truncated {
			t.Errorf("SearchFiles(%+v) truncated", tt.in)
		}
	}
	got, err := rs.SearchFiles(ctx, SearchFilesInput{Pattern: "*.go", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Matches) != 2 || !got.Truncated || !strings.Contains(got.Hint, "maxResults=2") {
		t.Errorf("capped search: %d matches, truncated=%v, hint=%q", len(got.Matches), got.Truncated, got.Hint)
	}
	if _, err := rs.SearchFiles(ctx, SearchFilesInput{Pattern: "[bad"}); err == nil || !strings.Contains(err.Error(), "invalid glob") {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestSearchFileContents(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{
		"a.go":        "package a\n// TODO one\nfunc A() {}\n// todo two\n",
		"b.txt":       "nothing\nTODO three\n",
		"bin.dat":     "TODO\x00binary",
		"big.txt":     strings.Repeat("TODO big\n", 100),
		"ignored.log": "TODO ignored\n",
		".gitignore":  "*.log\n",
		"ctx.txt":     "1\n2\nneedle\n3\n4\n",
		"u16.txt":     utf16le("utf16 TODO here\n", true),
		"regex.txt":   "a.b\naxb\n",
	})
	ctx := testCtx(t)
	type hit struct {
		File string
		Line int
		Text string
	}
	hits := func(o SearchFileContentsOutput) []hit {
		var s []hit
		for _, m := range o.Matches {
			r, _ := filepath.Rel(dir, m.Path)
			s = append(s, hit{r, m.Line, m.Text})
		}
		return s
	}
	got, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "TODO", MaxFileBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []hit{{"a.go", 2, "// TODO one"}, {"b.txt", 2, "TODO three"}, {"u16.txt", 1, "utf16 TODO here"}}
	if diff := cmp.Diff(want, hits(got)); diff != "" {
		t.Errorf("TODO search (-want +got):\n%s", diff)
	}
	if got.FilesSkipped != 2 { // bin.dat (binary) and big.txt (over maxFileBytes)
		t.Errorf("filesSkipped = %d; want 2", got.FilesSkipped)
	}
	got, _ = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "todo", CaseInsensitive: true, Include: "*.go"})
	if diff := cmp.Diff([]hit{{"a.go", 2, "// TODO one"}, {"a.go", 4, "// todo two"}}, hits(got)); diff != "" {
		t.Errorf("case-insensitive include (-want +got):\n%s", diff)
	}
	got, _ = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "a.b", Literal: true})
	if diff := cmp.Diff([]hit{{"regex.txt", 1, "a.b"}}, hits(got)); diff != "" {
		t.Errorf("literal (-want +got):\n%s", diff)
	}
	got, _ = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "needle", ContextLines: 2})
	if len(got.Matches) != 1 || !cmp.Equal(got.Matches[0].Before, []string{"1", "2"}) || !cmp.Equal(got.Matches[0].After, []string{"3", "4"}) {
		t.Errorf("context: %+v", got.Matches)
	}
	got, _ = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "TODO big", MaxResults: 5})
	// Files are searched in name order: .gitignore, a.go, b.txt, big.txt; the search
	// must stop inside big.txt and never open the files after it.
	if len(got.Matches) != 5 || !got.Truncated || got.FilesSearched != 4 {
		t.Errorf("capped: %d matches, truncated=%v, filesSearched=%d; want 5, true, 4 (a stop inside big.txt)", len(got.Matches), got.Truncated, got.FilesSearched)
	}
	got, err = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "TODO", Path: "b.txt"})
	if err != nil || len(got.Matches) != 1 {
		t.Errorf("single file: %+v, %v", got.Matches, err)
	}
	for _, bad := range []SearchFileContentsInput{{Pattern: ""}, {Pattern: "(unclosed"}, {Pattern: "x", ContextLines: 11}, {Pattern: "x", Include: "[bad"}} {
		if _, err := rs.SearchFileContents(ctx, bad); err == nil {
			t.Errorf("SearchFileContents(%+v) succeeded; want an error", bad)
		}
	}
	// RE2 runs in linear time: a pattern that backtracks catastrophically elsewhere
	// finishes here (no timing asserted: the test would hang, not fail, otherwise).
	writeTree(t, dir, map[string]string{"evil.txt": strings.Repeat("a", 5000) + "!\n"})
	if _, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "(a+)+$", Include: "evil.txt"}); err != nil {
		t.Fatal(err)
	}
}

func TestGetFileInfo(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"f.txt": "hello", "sub/": ""})
	mt := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "f.txt"), mt, mt)
	os.Chmod(filepath.Join(dir, "f.txt"), 0o640)
	os.Symlink("f.txt", filepath.Join(dir, "in-link"))
	os.Symlink("../outside", filepath.Join(dir, "out-link"))
	os.Symlink("missing", filepath.Join(dir, "dangling"))
	ctx := testCtx(t)
	got, err := rs.GetFileInfo(ctx, GetFileInfoInput{Path: "f.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := FileInfo{Path: filepath.Join(dir, "f.txt"), Type: "file", Size: 5, Mode: "-rw-r-----", Permissions: "0640", Modified: "2021-05-06T07:08:09Z", Accessed: got.Accessed, Changed: got.Changed, HardLinks: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("file info (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ path, target, resolves string }{
		{"in-link", "f.txt", "inside"}, {"out-link", "../outside", "outside"}, {"dangling", "missing", "broken"},
	} {
		got, err := rs.GetFileInfo(ctx, GetFileInfoInput{Path: tt.path})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"symlink", tt.target, tt.resolves}, []string{got.Type, got.SymlinkTarget, got.SymlinkResolves}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
	if got, _ := rs.GetFileInfo(ctx, GetFileInfoInput{Path: "sub"}); got.Type != "directory" {
		t.Errorf("sub type = %q", got.Type)
	}
}

func TestReadMediaFile(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	rs, _ := newTestRoot(t, map[string]string{"i.png": png, "i.dat": png, "s.mp3": "ID3\x03\x00fake", "x.bin": "\x00\x01", "v.svg": "<svg></svg>"})
	ctx := testCtx(t)
	for _, tt := range []struct{ path, mime, kind string }{
		{"i.png", "image/png", "image"},
		{"i.dat", "image/png", "image"}, // content wins over a wrong extension
		{"s.mp3", "audio/mpeg", "audio"},
		{"x.bin", "application/octet-stream", "other"},
		{"v.svg", "image/svg+xml", "image"},
	} {
		got, err := rs.ReadMediaFile(ctx, ReadMediaFileInput{Path: tt.path})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{tt.mime, tt.kind}, []string{got.MimeType, got.Kind}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
		if tt.path == "i.png" {
			if data, _ := base64.StdEncoding.DecodeString(got.Data); string(data) != png {
				t.Errorf("data does not round-trip")
			}
		}
	}
	if _, err := rs.ReadMediaFile(ctx, ReadMediaFileInput{Path: "i.png", MaxBytes: 4}); err == nil || !strings.Contains(err.Error(), "over maxBytes=4") {
		t.Errorf("over maxBytes: %v", err)
	}
}

func TestReadMultipleFiles(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"a.txt": "A\n", "b.txt": strings.Repeat("b", 100)})
	got, err := rs.ReadMultipleFiles(testCtx(t), ReadMultipleFilesInput{Paths: []string{"a.txt", "missing.txt", "../escape", "b.txt"}, MaxBytesPerFile: 10})
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, f := range got.Files {
		switch {
		case f.Error != "":
			summary = append(summary, f.Path+" error")
		case f.Result.Truncated:
			summary = append(summary, fmt.Sprintf("%s %q truncated", f.Path, f.Result.Content))
		default:
			summary = append(summary, fmt.Sprintf("%s %q", f.Path, f.Result.Content))
		}
	}
	want := []string{`a.txt "A\n"`, "missing.txt error", "../escape error", `b.txt "bbbbbbbbbb" truncated`}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(got.Files[2].Error, "leads outside") || got.Files[0].Result.Path != filepath.Join(dir, "a.txt") {
		t.Errorf("escape error %q; first path %q", got.Files[2].Error, got.Files[0].Result.Path)
	}
	if _, err := rs.ReadMultipleFiles(testCtx(t), ReadMultipleFilesInput{}); err == nil {
		t.Error("empty paths accepted")
	}
}
