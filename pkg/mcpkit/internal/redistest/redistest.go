// Package redistest is kept for mcpkit's own tests: it forwards to
// pkg/mcpkit/mcpkittest/redistest, which the servers' modules can import too.
package redistest

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
)

// Start runs a throwaway redis-server for t and returns its URL; see
// mcpkittest/redistest.Start (skipped without redis-server, except in CI).
func Start(t testing.TB) string {
	t.Helper()
	return redistest.Start(t)
}
