package distcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the server binaries the tests build, once per test binary.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "distcheck-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testVersion is stamped into the binaries the tests build; --version must print it.
const testVersion = "v0.0.0-distcheck"

var (
	buildOnce  sync.Once
	builtSet   map[string]*Server
	buildErrs  map[string]error
	serverDirs []ServerDir
	findErr    error
)

// repoRoot is the repository root: two directories up from this package, checked by
// its go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(gomod, []byte("module github.com/mcpkit/reference\n")) {
		t.Fatalf("%s is not the repository root (go.mod of github.com/mcpkit/reference): %v", root, err)
	}
	return root
}

// builtServers builds every server once (two at a time: the machine has two shared
// cores) and returns those that built. A server that fails to build is an error of
// every test that asks for it, naming the build's output.
func builtServers(t *testing.T) map[string]*Server {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		serverDirs, findErr = FindServers(root)
		builtSet, buildErrs = map[string]*Server{}, map[string]error{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		slots := make(chan struct{}, 2)
		for _, sd := range serverDirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				s, err := BuildServer(context.Background(), sd, binDir, testVersion)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					buildErrs[sd.Name] = err
				} else {
					builtSet[sd.Name] = s
				}
			}()
		}
		wg.Wait()
	})
	if findErr != nil {
		t.Fatal(findErr)
	}
	if len(serverDirs) == 0 {
		t.Fatalf("no servers/*/cmd/mcp-server-* or examples/*/cmd/mcp-server-* under %s", root)
	}
	for name, err := range buildErrs {
		t.Errorf("server %s: %v", name, err)
	}
	return builtSet
}
