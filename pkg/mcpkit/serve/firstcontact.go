package serve

import (
	"io"
	"os"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// ByHandURL is where the example session of a person talking to a server by hand is:
// the root README's section, which distcheck runs.
const ByHandURL = "https://github.com/mcpkit/reference#talk-to-a-server-by-hand"

// firstContact tells a person who started the server at a terminal what they are
// looking at: a stdio server otherwise sits silent, and the first line typed gets a
// parse error. Nothing is said when stdin is a pipe, as when a host starts it.
func firstContact(s *mcpkit.Server, in io.Reader) {
	f, ok := in.(*os.File)
	if !ok || !isTerminal(f) {
		return
	}
	s.Logger().Info(s.Info().Name + " is an MCP server: an MCP host (Claude Code, an IDE, an agent) normally starts it and talks JSON-RPC over stdin/stdout, one message per line. " +
		"Press Ctrl-D (end of input) or Ctrl-C to quit. An example session by hand: " + ByHandURL)
}
