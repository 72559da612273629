package filesystem

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/server/main.go", true},
		{"*.go", "main.go.txt", false},
		{"main.go", "a/b/main.go", true},
		{"cmd/*.go", "cmd/main.go", true},
		{"cmd/*.go", "cmd/x/main.go", false},
		{"cmd/*.go", "x/cmd/main.go", false},
		{"cmd/**/main.go", "cmd/main.go", true},
		{"cmd/**/main.go", "cmd/a/b/main.go", true},
		{"**/main.go", "main.go", true},
		{"**/main.go", "a/main.go", true},
		{"src/**", "src/a/b.ts", true},
		{"src/**", "src", false},
		{"/src/*.ts", "src/a.ts", true},
		{"./src/*.ts", "src/a.ts", true},
		{"*.{ts,tsx}", "a/b.tsx", true},
		{"*.{ts,tsx}", "a/b.js", false},
		{"{cmd,pkg}/**/*.go", "pkg/x/y.go", true},
		{"{cmd,pkg}/**/*.go", "internal/y.go", false},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file10.txt", false},
		{"[abc].txt", "b.txt", true},
		{"[!abc].txt", "b.txt", false},
		{"[!abc].txt", "d.txt", true},
		{"*", "anything/at/all", true},
		{"a*b", "a/b", false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("glob %q match %q = %v; want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"", "empty glob"},
		{"  ", "empty glob"},
		{"[abc", "invalid glob"},
		{"{a,b", "unmatched '{'"},
		{"a}", "unmatched '}'"},
		{strings.Repeat("{a,b}", 10), "more than 64"},
		{"a\x00b", "NUL"},
	}
	for _, tt := range tests {
		_, err := compileGlob(tt.pattern)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compileGlob(%q) error = %v; want it to contain %q", tt.pattern, err, tt.want)
		}
	}
}
