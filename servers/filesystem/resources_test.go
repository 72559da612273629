package filesystem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileURIRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a b/ü%x#y?.txt": "x"})
	rs := openTestRoots(t, dir)
	root := rs.List()[0]
	rel := filepath.Join("a b", "ü%x#y?.txt")
	uri := FileURI(root, rel)
	if strings.ContainsAny(strings.TrimPrefix(uri, "file://"), " #?") {
		t.Errorf("URI %q is not percent-encoded", uri)
	}
	r, gotRel, err := rs.ResolveURI(uri)
	if err != nil || r != root || gotRel != rel {
		t.Fatalf("ResolveURI(%q) = %v, %q, %v; want the root and %q", uri, r, gotRel, err, rel)
	}
	got, err := rs.ReadFileResource(testCtx(t), uri)
	if err != nil || got.Text != "x" || got.URI != uri {
		t.Errorf("ReadFileResource = %+v, %v", got, err)
	}
}

func TestListFileResourcesPagination(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, map[string]string{"1.txt": "", "2.txt": "", "d/3.txt": "", ".gitignore": "*.log\n", "x.log": ""})
	writeTree(t, b, map[string]string{"4.pdf": "", "5.png": ""})
	rs := openTestRoots(t, a, b)
	ctx := testCtx(t)
	var names []string
	cursor := ""
	pages := 0
	for {
		page, err := rs.ListFileResources(ctx, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range page.Resources {
			names = append(names, r.Name+" "+r.MimeType)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
	}
	want := []string{".gitignore ", "1.txt ", "2.txt ", "d/3.txt ", "4.pdf application/pdf", "5.png image/png"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("%d pages; want 3", pages)
	}
	for _, bad := range []string{"garbage!", EncodeCursor(0)[:3], "Zm9vOjE"} {
		if _, err := rs.ListFileResources(ctx, bad, 2); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("cursor %q: error %v; want ErrInvalidCursor", bad, err)
		}
	}
}

func TestReadFileResourceKinds(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{
		"t.txt": "hi\u202e\n", "j.json": `{"a":1}`, "p.png": "\x89PNG\r\n\x1a\n\x00\x00", "u.txt": utf16le("wide\n", true),
		"big.txt": strings.Repeat("x", MaxResourceBytes+1),
	})
	ctx := testCtx(t)
	root := rs.List()[0]
	for _, tt := range []struct {
		name, mime string
		isText     bool
		text       string
	}{
		{"t.txt", "text/plain; charset=utf-8", true, "hi\n"},
		{"j.json", "application/json", true, `{"a":1}`},
		{"p.png", "image/png", false, ""},
		{"u.txt", "text/plain; charset=utf-8", true, "wide\n"},
	} {
		got, err := rs.ReadFileResource(ctx, FileURI(root, tt.name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]any{tt.mime, tt.isText, tt.text}, []any{got.MimeType, got.IsText, got.Text}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if !tt.isText && got.Blob == "" {
			t.Errorf("%s: no blob", tt.name)
		}
	}
	if _, err := rs.ReadFileResource(ctx, FileURI(root, "big.txt")); err == nil || !strings.Contains(err.Error(), "use read_text_file") {
		t.Errorf("big resource: %v", err)
	}
	_ = os.Remove(filepath.Join(dir, "t.txt"))
	if _, err := rs.ReadFileResource(ctx, FileURI(root, "t.txt")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing resource: %v", err)
	}
}
