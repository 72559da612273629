package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"foo/a.txt": "a", "foo-evil/x": "x", "bar/b.txt": "b", "real/r.txt": "r"})
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	foo, bar, link := filepath.Join(base, "foo"), filepath.Join(base, "bar"), filepath.Join(base, "link")
	rs := openTestRoots(t, foo, bar, link)
	realDir := filepath.Join(base, "real")

	tests := []struct {
		name     string
		path     string
		wantRoot string // Dir() of the root; "" when an error is expected
		wantRel  string
		wantErr  string
	}{
		{"empty is first root", "", foo, ".", ""},
		{"relative", "a.txt", foo, "a.txt", ""},
		{"relative dot", ".", foo, ".", ""},
		{"relative inner dotdot", "sub/../a.txt", foo, "a.txt", ""},
		{"absolute first", filepath.Join(foo, "a.txt"), foo, "a.txt", ""},
		{"absolute second", filepath.Join(bar, "b.txt"), bar, "b.txt", ""},
		{"absolute root itself", bar, bar, ".", ""},
		{"trailing slash", bar + "/", bar, ".", ""},
		{"double slashes", strings.ReplaceAll(bar, "/", "//") + "//b.txt", bar, "b.txt", ""},
		{"symlinked root as given", filepath.Join(link, "r.txt"), link, "r.txt", ""},
		{"symlinked root resolved", filepath.Join(realDir, "r.txt"), link, "r.txt", ""},
		{"absolute dotdot back inside", filepath.Join(foo, "..", "foo", "a.txt"), foo, "a.txt", ""},
		{"relative escape", "../foo-evil/x", "", "", "leads outside the allowed directories"},
		{"bare dotdot", "..", "", "", "leads outside"},
		{"dotdot chain", "a/../../..", "", "", "leads outside"},
		{"sibling prefix", filepath.Join(base, "foo-evil", "x"), "", "", "outside the allowed directories"},
		{"absolute elsewhere", "/etc/passwd", "", "", "outside the allowed directories"},
		{"absolute dotdot out", foo + "/../foo-evil/x", "", "", "outside the allowed directories"},
		{"parent of roots", base, "", "", "outside"},
		{"nul byte", "a.txt\x00../../etc/passwd", "", "", "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rel, err := rs.Resolve(tt.path)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Resolve(%q) = %s, %q; want error containing %q", tt.path, r.Dir(), rel, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve(%q) error %q; want it to contain %q", tt.path, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), foo) && !strings.Contains(err.Error(), "NUL") {
					t.Errorf("error %q does not list the allowed directories", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			if diff := cmp.Diff([]string{tt.wantRoot, tt.wantRel}, []string{r.Dir(), rel}); diff != "" {
				t.Errorf("Resolve(%q) mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestOpenRootsErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"file": "x"})
	tests := []struct {
		name string
		dirs []string
		want string
	}{
		{"none", nil, "no allowed directories"},
		{"empty string", []string{""}, "empty string"},
		{"missing", []string{filepath.Join(dir, "nope")}, "cannot be resolved"},
		{"a file", []string{filepath.Join(dir, "file")}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OpenRoots(tt.dirs...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("OpenRoots(%q) error = %v; want it to contain %q", tt.dirs, err, tt.want)
			}
		})
	}
	rs := openTestRoots(t, dir, dir+"/", filepath.Join(dir, "."))
	if got := len(rs.List()); got != 1 {
		t.Errorf("duplicate roots: got %d roots, want 1", got)
	}
}

func TestNarrow(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"srv/a/x.txt": "x", "srv/b/y.txt": "y", "other/z.txt": "z", "srv2/w.txt": "w"})
	srv, srv2 := filepath.Join(base, "srv"), filepath.Join(base, "srv2")
	rs := openTestRoots(t, srv, srv2)
	tests := []struct {
		name    string
		client  []string
		want    []string
		wantErr string
	}{
		{"inside narrows", []string{filepath.Join(srv, "a")}, []string{filepath.Join(srv, "a")}, ""},
		{"file uri", []string{"file://" + filepath.Join(srv, "b")}, []string{filepath.Join(srv, "b")}, ""},
		{"containing keeps server root", []string{base}, []string{srv, srv2}, ""},
		{"equal", []string{srv2}, []string{srv2}, ""},
		{"outside ignored", []string{filepath.Join(base, "other"), filepath.Join(srv, "a")}, []string{filepath.Join(srv, "a")}, ""},
		{"sibling prefix ignored", []string{srv + "-evil", srv2}, []string{srv2}, ""},
		{"only outside", []string{filepath.Join(base, "other")}, nil, "none of the client's roots"},
		{"relative ignored", []string{"srv/a"}, nil, "none of the client's roots"},
		{"missing dir inside ignored", []string{filepath.Join(srv, "nope")}, nil, "none of the client's roots"},
		{"encoded dotdot escape ignored", []string{"file://" + srv + "/%2e%2e/other"}, nil, "none of the client's roots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := rs.Narrow(tt.client)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Narrow(%q) error = %v; want %q", tt.client, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Narrow(%q): %v", tt.client, err)
			}
			defer n.Close()
			if diff := cmp.Diff(tt.want, n.Dirs()); diff != "" {
				t.Errorf("Narrow(%q) dirs (-want +got):\n%s", tt.client, diff)
			}
		})
	}

	// A narrowed root cannot reach its server root's other parts.
	n, err := rs.Narrow([]string{filepath.Join(srv, "a")})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, _, err := n.Resolve(filepath.Join(srv, "b", "y.txt")); err == nil {
		t.Error("narrowed roots resolved a path outside the client root")
	}
	if _, err := n.ReadTextFile(testCtx(t), ReadTextFileInput{Path: "../b/y.txt"}); err == nil {
		t.Error("narrowed roots read ../b/y.txt")
	}
	got, err := n.ReadTextFile(testCtx(t), ReadTextFileInput{Path: "x.txt"})
	if err != nil || got.Content != "x" {
		t.Errorf("narrowed read x.txt = %q, %v; want \"x\"", got.Content, err)
	}
}
