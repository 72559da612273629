package realclient

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builds holds one *build per absolute package directory, so each server binary is
// compiled at most once per test binary, and only when a test needs it.
var builds sync.Map

// buildDirs are the temporary directories BuildCommand made; CleanupBuilds removes them.
var (
	buildDirsMu sync.Mutex
	buildDirs   []string
)

type build struct {
	once sync.Once
	path string
	err  error
}

// BuildCommand builds the main package pkg (e.g. "./cmd/mcp-server-x", relative to the
// test's working directory) into a fresh temporary directory and returns the
// binary's path: the real-client and process tests run the binary users run. The
// first call for a package builds it; later calls (from any goroutine) reuse the
// result, including a failed build, which fails every test that asks.
//
// Go has no hook for the end of a test binary, so the directories stay until the
// package's TestMain calls CleanupBuilds after m.Run.
func BuildCommand(t testing.TB, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatalf("realclient: locating %s: %v", pkg, err)
	}
	v, _ := builds.LoadOrStore(abs, new(build))
	b := v.(*build)
	b.once.Do(func() {
		name := filepath.Base(abs)
		dir, err := os.MkdirTemp("", name+"-test")
		if err != nil {
			b.err = err
			return
		}
		buildDirsMu.Lock()
		buildDirs = append(buildDirs, dir)
		buildDirsMu.Unlock()
		b.path = filepath.Join(dir, name)
		// Built as the Makefile builds a release (no cgo, no symbol tables), so tests
		// and benchmarks run what users run.
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", b.path, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// CleanupBuilds removes every binary BuildCommand built. Call it from TestMain after
// m.Run, before os.Exit.
func CleanupBuilds() {
	buildDirsMu.Lock()
	defer buildDirsMu.Unlock()
	for _, dir := range buildDirs {
		os.RemoveAll(dir)
	}
	buildDirs = nil
}
