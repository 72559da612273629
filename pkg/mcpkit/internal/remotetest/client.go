// Package remotetest holds the helpers of mcpkit's remote-deployment tests
// (authorization, limits, scale-out, shutdown, load, error reporting), which the
// tests of several packages share: a raw 2026-07-28 HTTP client that sends what a
// client in another process sends, headers included, a small server whose tools
// exercise each feature, and a local OAuth issuer that signs JWTs.
package remotetest

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/remoteclient"
)

// The client lives in mcpkittest/remoteclient, which the servers' modules can import
// too; these names keep the remote-deployment tests reading as before.
type (
	Client    = remoteclient.Client
	Reply     = remoteclient.Reply
	Stream    = remoteclient.Stream
	ToolReply = remoteclient.ToolReply
)

// NewClient makes a client of the MCP endpoint at url that declares elicitation.
func NewClient(t testing.TB, url string) *Client { return remoteclient.NewClient(t, url) }
