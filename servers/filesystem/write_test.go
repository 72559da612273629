package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFile(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"old.txt": "old", "sub/": ""})
	if err := os.Chmod(filepath.Join(dir, "old.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	out, err := rs.WriteFile(ctx, WriteFileInput{Path: "old.txt", Content: "new content"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(WriteFileOutput{Path: filepath.Join(dir, "old.txt"), BytesWritten: 11}, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if got := readFile(t, filepath.Join(dir, "old.txt")); got != "new content" {
		t.Errorf("content = %q", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, "old.txt")); st.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v; want 0600 kept", st.Mode().Perm())
	}
	out, err = rs.WriteFile(ctx, WriteFileInput{Path: filepath.Join(dir, "sub", "new.txt"), Content: ""})
	if err != nil || !out.Created {
		t.Fatalf("creating an empty file: %+v, %v", out, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 1 {
		t.Errorf("sub has %d entries; a temporary file was left behind", len(entries))
	}

	errs := []struct{ path, want string }{
		{"missing/x.txt", "does not exist; create it first with create_directory"},
		{"sub", "is a directory"},
		{"", "is an allowed directory itself"},
		{"old.txt/x", "not a directory"},
	}
	for _, e := range errs {
		if _, err := rs.WriteFile(ctx, WriteFileInput{Path: e.path, Content: "x"}); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("WriteFile(%q) error = %v; want %q", e.path, err, e.want)
		}
	}
}

func TestCreateDirectory(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"file": "x"})
	ctx := testCtx(t)
	out, err := rs.CreateDirectory(ctx, CreateDirectoryInput{Path: "a/b/c"})
	if err != nil || !out.Created {
		t.Fatalf("CreateDirectory: %+v, %v", out, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a/b/c")); err != nil || !st.IsDir() {
		t.Fatalf("a/b/c not created: %v", err)
	}
	out, err = rs.CreateDirectory(ctx, CreateDirectoryInput{Path: "a/b"})
	if err != nil || out.Created {
		t.Errorf("existing directory: %+v, %v; want created=false, no error", out, err)
	}
	if _, err := rs.CreateDirectory(ctx, CreateDirectoryInput{Path: "file"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("over a file: %v", err)
	}
}

func TestMoveFile(t *testing.T) {
	files := map[string]string{"a.txt": "A", "b.txt": "B", "dir/": "", "dir/c.txt": "C"}
	tests := []struct {
		name      string
		in        MoveFileInput
		wantErr   string
		wantFiles map[string]string // files expected afterwards (subset check)
		gone      []string
	}{
		{"rename", MoveFileInput{Source: "a.txt", Destination: "z.txt"}, "", map[string]string{"z.txt": "A", "b.txt": "B"}, []string{"a.txt"}},
		{"no overwrite", MoveFileInput{Source: "a.txt", Destination: "b.txt"}, "already exists; pass overwrite=true", map[string]string{"a.txt": "A", "b.txt": "B"}, nil},
		{"overwrite", MoveFileInput{Source: "a.txt", Destination: "b.txt", Overwrite: true}, "", map[string]string{"b.txt": "A"}, []string{"a.txt"}},
		{"into directory", MoveFileInput{Source: "a.txt", Destination: "dir"}, "", map[string]string{"dir/a.txt": "A"}, []string{"a.txt"}},
		{"into directory no overwrite", MoveFileInput{Source: "b.txt", Destination: "dir/c.txt"}, "already exists", map[string]string{"dir/c.txt": "C"}, nil},
		{"directory into itself", MoveFileInput{Source: "dir", Destination: "dir/inner"}, "into itself", map[string]string{"dir/c.txt": "C"}, nil},
		{"missing source", MoveFileInput{Source: "nope", Destination: "x"}, "no such file", nil, nil},
		{"missing destination dir", MoveFileInput{Source: "a.txt", Destination: "no/x"}, "does not exist", map[string]string{"a.txt": "A"}, nil},
		{"root itself", MoveFileInput{Source: "", Destination: "x"}, "cannot be moved", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, dir := newTestRoot(t, files)
			_, err := rs.MoveFile(testCtx(t), tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v; want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			for name, content := range tt.wantFiles {
				if got := readFile(t, filepath.Join(dir, name)); got != content {
					t.Errorf("%s = %q; want %q", name, got, content)
				}
			}
			for _, name := range tt.gone {
				if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
					t.Errorf("%s still exists", name)
				}
			}
		})
	}
	t.Run("across roots refused", func(t *testing.T) {
		a, b := t.TempDir(), t.TempDir()
		writeTree(t, a, map[string]string{"f": "x"})
		rs := openTestRoots(t, a, b)
		_, err := rs.MoveFile(testCtx(t), MoveFileInput{Source: filepath.Join(a, "f"), Destination: filepath.Join(b, "f")})
		if err == nil || !strings.Contains(err.Error(), "different allowed directories") {
			t.Fatalf("error = %v", err)
		}
	})
}
