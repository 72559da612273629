package event

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCodeMapPaths(t *testing.T) {
	root := t.TempDir()
	c := NewCodeMap([]CodeMapping{{StackRoot: "example.com/shop/", SourceRoot: root}, {StackRoot: `C:\build\shop`, SourceRoot: root + "/win"}, {StackRoot: "example.com/shop/vendor/x", SourceRoot: root + "/x"}}, nil)
	for file, want := range map[string]string{
		"example.com/shop/checkout/payment.go":   filepath.Join(root, "checkout", "payment.go"),
		"example.com/shop/vendor/x/y.go":         filepath.Join(root, "x", "y.go"), // the longest stack root wins
		`C:\build\shop\checkout\payment.go`:      filepath.Join(root, "win", "checkout", "payment.go"),
		"example.com/shopping/cart.go":           "",
		"example.com/shop/../../etc/passwd":      "", // never outside the source root
		"example.com/shop/checkout/../../../etc": "",
		"example.com/shop":                       "",
	} {
		if got := c.LocalPath(&Frame{Filename: file}); got != want {
			t.Errorf("localPath(%q) = %q; want %q", file, got, want)
		}
	}
	var none *CodeMap
	if none.LocalPath(&Frame{Filename: "a/b.go"}) != "" || len(none.ApplyInApp([]Frame{{InApp: true}})) != 1 {
		t.Error("a nil code map changes frames")
	}
	if NewCodeMap(nil, nil) != nil {
		t.Error("no mappings and no prefixes: want a nil code map")
	}
}

func TestParseCodeMapping(t *testing.T) {
	m, err := ParseCodeMapping(" example.com/shop/ = testdata ")
	if abs, _ := filepath.Abs("testdata"); err != nil || m != (CodeMapping{StackRoot: "example.com/shop/", SourceRoot: abs}) {
		t.Errorf("ParseCodeMapping = %+v, %v", m, err)
	}
	for _, bad := range []string{"", "example.com/shop", "=/src", "example.com/shop="} {
		if _, err := ParseCodeMapping(bad); err == nil || !strings.Contains(err.Error(), "STACK_ROOT=SOURCE_ROOT") {
			t.Errorf("ParseCodeMapping(%q) = %v; want an error naming STACK_ROOT=SOURCE_ROOT", bad, err)
		}
	}
	if d := cmp.Diff([]string{"a=/x", "b=/y", "c"}, SplitList(" a=/x, b=/y;;c ;")); d != "" {
		t.Errorf("SplitList (-want +got):\n%s", d)
	}
}

// TestInAppDependencyFileIsNotApp: a frame of a dependency's file (the module cache,
// or a versioned module path) is not in-app because the SDK reports the
// application's module for it (sentryhttp wrapping a handler of example.com/shop/web).
// The module decides only where the file does not name a dependency.
func TestInAppDependencyFileIsNotApp(t *testing.T) {
	frames := []Frame{
		{Function: "sentryhttp", Module: "example.com/shop/web", Filename: "github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go"},
		{Function: "cache", Module: "example.com/shop/web", AbsPath: "/home/me/go/pkg/mod/github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go", Filename: "sentryhttp.go"},
		{Function: "trimpath", Module: "example.com/shop/web", Filename: "example.com/shop/web/handler.go"},
		{Function: "build", Module: "example.com/shop/web", AbsPath: "/build/shop/web/handler.go", Filename: "handler.go"},
		{Function: "nofile", Module: "example.com/shop/web"},
		{Function: "other", Module: "github.com/x/y", Filename: "github.com/x/y@v1.0.0/y.go"},
	}
	want := map[string]bool{"sentryhttp": false, "cache": false, "trimpath": true, "build": true, "nofile": true, "other": false}
	for _, c := range []*CodeMap{
		NewCodeMap(nil, []string{"example.com/shop"}),
		NewCodeMap([]CodeMapping{{StackRoot: "example.com/shop", SourceRoot: t.TempDir()}}, nil),
	} {
		for _, f := range c.ApplyInApp(frames) {
			if f.InApp != want[f.Function] {
				t.Errorf("prefixes %v: frame %s (module %s, file %s%s) inApp=%t; want %t", c.InApp, f.Function, f.Module, f.AbsPath, f.Filename, f.InApp, want[f.Function])
			}
		}
	}
}
