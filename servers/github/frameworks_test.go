package github

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestAgentFrameworks: the MCP clients of the OpenAI Agents SDK (strict schemas on),
// LangChain and the Vercel AI SDK list every tool, OpenAI's converter makes each one
// strict, and get_repository answers through each framework's own tool object (issue
// #25). Over stdio against the fake GitHub, with writes allowed so every tool is
// converted.
func TestAgentFrameworks(t *testing.T) {
	f := newFake(t)
	res := realclient.Frameworks(t, target(t, f, "stdio", true), "get_repository", validArgs["get_repository"])
	realclient.CheckFrameworks(t, res, append(append([]string(nil), readTools...), writeToolNames...), "octo/hello")
}
