package errorserver

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// serverBinary builds cmd/mcp-server-errors once per test run, only when a test needs
// it: the process-level and real-client tests run the binary users run.
func serverBinary(t testing.TB) string {
	t.Helper()
	return realclient.BuildCommand(t, "./cmd/mcp-server-errors")
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
