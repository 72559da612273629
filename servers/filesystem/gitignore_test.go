package filesystem

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGitignoreRules(t *testing.T) {
	rules := `# comment
*.log
!keep.log
build/
/root-only.txt
docs/*.md
**/generated/**
a/**/z
\#hash
\!bang
trailing.txt   
space\ 
[Tt]emp
`
	f := parseGitignore("", []byte(rules))
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"x.log", false, true},
		{"deep/dir/x.log", false, true},
		{"keep.log", false, false},
		{"deep/keep.log", false, false},
		{"build", true, true},
		{"sub/build", true, true},
		{"build", false, false}, // dir-only pattern, and this is a file
		{"root-only.txt", false, true},
		{"sub/root-only.txt", false, false}, // anchored
		{"docs/a.md", false, true},
		{"docs/sub/a.md", false, false}, // * does not cross /
		{"x/docs/a.md", false, false},   // anchored (slash in the middle)
		{"generated/x.go", false, true},
		{"p/generated/q/x.go", false, true},
		{"a/z", false, true},
		{"a/b/c/z", false, true},
		{"b/a/z", false, false},
		{"#hash", false, true},
		{"!bang", false, true},
		{"comment", false, false},
		{"trailing.txt", false, true},
		{"space ", false, true},
		{"Temp", true, true},
		{"temp", false, true},
		{"main.go", false, false},
	}
	for _, tt := range tests {
		s := ignoreStack{}.push(f)
		if got := s.ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v; want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestGitignoreNestedPrecedence(t *testing.T) {
	top := parseGitignore("", []byte("*.txt\n!/keep/\n"))
	sub := parseGitignore("pkg", []byte("!important.txt\nlocal-only\n/anchored\n"))
	s := ignoreStack{}.push(top).push(sub)
	tests := []struct {
		path string
		want bool
	}{
		{"a.txt", true},
		{"pkg/a.txt", true},
		{"pkg/important.txt", false}, // deeper file re-includes
		{"important.txt", true},      // the deeper rule does not apply above its directory
		{"pkg/local-only", true},
		{"local-only", false},
		{"pkg/anchored", true},
		{"pkg/x/anchored", false},
	}
	for _, tt := range tests {
		if got := s.ignored(tt.path, false); got != tt.want {
			t.Errorf("ignored(%q) = %v; want %v", tt.path, got, tt.want)
		}
	}
}

// TestWalkHonoursGitignore checks the walker end to end: nested .gitignore files, an
// excluded directory whose contents cannot be re-included, .git skipped, and rules of
// parent directories applied when the walk starts in a subdirectory.
func TestWalkHonoursGitignore(t *testing.T) {
	rs, _ := newTestRoot(t, map[string]string{
		".gitignore":           "*.log\nnode_modules/\n/dist\n",
		"a.go":                 "",
		"a.log":                "",
		"node_modules/x/y.js":  "",
		"dist/out.js":          "",
		"src/dist/keep.js":     "", // /dist is anchored to the root
		"src/.gitignore":       "secret.txt\n!special.log\n",
		"src/secret.txt":       "",
		"src/special.log":      "",
		"src/other.log":        "",
		"src/deep/secret.txt":  "",
		".git/config":          "",
		"node_modules/.keep":   "",
		"src/deep/visible.txt": "",
	})
	walk := func(start string, gitignore bool) []string {
		t.Helper()
		root, rel, err := rs.Resolve(start)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if _, err := walkTree(testCtx(t), root, rel, walkOptions{gitignore: gitignore}, func(e *walkEntry) error {
			got = append(got, e.rel)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := []string{".gitignore", "a.go", "src", "src/.gitignore", "src/deep", "src/dist", "src/special.log", "src/deep/visible.txt", "src/dist/keep.js"}
	if diff := cmp.Diff(want, walk("", true)); diff != "" {
		t.Errorf("walk from root (-want +got):\n%s", diff)
	}
	wantSub := []string{".gitignore", "deep", "dist", "special.log", "deep/visible.txt", "dist/keep.js"}
	if diff := cmp.Diff(wantSub, walk("src", true)); diff != "" {
		t.Errorf("walk from src (-want +got):\n%s", diff)
	}
	if got := len(walk("", false)); got != 21 {
		t.Errorf("walk without gitignore visited %d entries; want 21 (every file and directory)", got)
	}
}
