package errorserver

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestAgentFrameworks: the MCP clients of the OpenAI Agents SDK (strict schemas on),
// LangChain and the Vercel AI SDK list every tool, OpenAI's converter makes each one
// strict, and search_issues answers through each framework's own tool object (issue
// #25). Over stdio, on the local store fed by sentry-go.
func TestAgentFrameworks(t *testing.T) {
	world := localWorld(t)
	res := realclient.Frameworks(t, world.target(t, "stdio"), ToolSearchIssues, map[string]any{"query": "environment:production"})
	realclient.CheckFrameworks(t, res, ToolNames, world.seeded.charge)
}
