package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleVersions runs go list in dir (offline-safe: the module cache only) with
// extra environment and returns the "path version" pairs it prints.
func moduleVersions(t *testing.T, dir string, args []string, env ...string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr)
	}
	vs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, v, ok := strings.Cut(line, " "); ok && v != "" {
			vs[path] = v
		}
	}
	return vs
}

// TestShopRequirementsMatchWorkspace: the shop's module (built with GOWORK=off, as its
// own release would be) selects the same version of every module it shares with the
// workspace, so `go run ./examples/checkout` builds it offline from the module cache
// the workspace filled (issue #25: the shop pinned golang.org/x/text v0.14.0 while the
// cache held only newer ones, and failed offline after minutes of compiling).
func TestShopRequirementsMatchWorkspace(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := moduleVersions(t, repo, []string{"-m", "-f", "{{.Path}} {{.Version}}", "all"})
	// The modules of the packages the demo builds (./cmd/shop, ./cmd/night), not the
	// whole graph: the test-only requirements of sentry-go never reach the cache.
	shop := moduleVersions(t, filepath.Join(repo, "examples", "checkout", "shop"),
		[]string{"-deps", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}", "./cmd/shop", "./cmd/night"}, "GOWORK=off")
	shared := 0
	for path, v := range shop {
		wv, ok := work[path]
		if !ok {
			continue
		}
		shared++
		if wv != v {
			t.Errorf("examples/checkout/shop selects %s %s, the workspace %s: run `cd examples/checkout/shop && GOWORK=off go get %s@%s && GOWORK=off go mod tidy`", path, v, wv, path, wv)
		}
	}
	if shared == 0 {
		t.Fatal("the shop shares no module with the workspace: sentry-go at least")
	}
}
