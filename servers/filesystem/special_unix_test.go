//go:build unix

package filesystem

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSpecialFilesRefused: a FIFO in a root would block a reader forever; every
// operation that reads content refuses it before opening it for reading, and walks
// skip it.
func TestSpecialFilesRefused(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"ok.txt": "fifo-free\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx := testCtx(t)
	calls := map[string]func() error{
		"read_text_file":  func() error { _, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "pipe"}); return err },
		"read_media_file": func() error { _, err := rs.ReadMediaFile(ctx, ReadMediaFileInput{Path: "pipe"}); return err },
		"edit_file": func() error {
			_, err := rs.EditFile(ctx, EditFileInput{Path: "pipe", Edits: []Edit{{"a", "b"}}})
			return err
		},
		"write_file": func() error { _, err := rs.WriteFile(ctx, WriteFileInput{Path: "pipe", Content: "x"}); return err },
		"resource":   func() error { _, err := rs.ReadFileResource(ctx, FileURI(rs.List()[0], "pipe")); return err },
		"grep single": func() error {
			_, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Path: "pipe", Pattern: "x"})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s on a FIFO: %v; want a 'not a regular file' refusal", name, err)
		}
	}
	// A FIFO where a .gitignore is expected must not block a walk either.
	writeTree(t, dir, map[string]string{"sub/x.txt": "fifo-free too\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "fifo"})
	if err != nil || len(got.Matches) != 2 {
		t.Errorf("grep over a tree with FIFOs: %+v, %v", got.Matches, err)
	}
	if _, err := rs.DirectoryTree(ctx, DirectoryTreeInput{Path: "sub"}); err != nil {
		t.Errorf("tree starting below a FIFO .gitignore: %v", err)
	}
}
