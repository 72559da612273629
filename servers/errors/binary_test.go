package errorserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string // removed by TestMain
	binPath   string
	buildErr  error
)

// serverBinary builds cmd/mcp-server-errors once per test run, only when a test needs
// it: the process-level and real-client tests run the binary users run.
func serverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "mcp-server-errors-test"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcp-server-errors")
		out, err := exec.Command("go", "build", "-o", binPath, "./cmd/mcp-server-errors").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/mcp-server-errors: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// processEnv is the environment of a server process: the test's own, without any
// setting of this server or of mcpkit's serve flags, so a developer's SENTRY_AUTH_TOKEN
// or MCP_HTTP_ADDR cannot change what is tested.
func processEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ERRORS_") || strings.HasPrefix(name, "SENTRY_") || strings.HasPrefix(name, "MCP_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}
