package filesystem

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeTree creates files (path -> content) under dir; a path ending in "/" is a
// directory.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openTestRoots opens Roots on dirs and closes them at the end of the test.
func openTestRoots(t testing.TB, dirs ...string) *Roots {
	t.Helper()
	rs, err := OpenRoots(dirs...)
	if err != nil {
		t.Fatalf("OpenRoots(%v): %v", dirs, err)
	}
	t.Cleanup(func() { rs.Close() })
	return rs
}

// newTestRoot makes a temporary directory with files and Roots on it.
func newTestRoot(t testing.TB, files map[string]string) (*Roots, string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	return openTestRoots(t, dir), dir
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }
