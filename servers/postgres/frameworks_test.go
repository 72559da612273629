package postgres

import (
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestAgentFrameworks: the MCP clients of the OpenAI Agents SDK (strict schemas on),
// LangChain and the Vercel AI SDK list every tool, OpenAI's converter makes each one
// strict (query, explain_query, suggest_indexes and execute fell back to non-strict
// tools while params items had an open object branch), and query with params [2]
// answers through each framework's own tool object (LangChain refused [2] before it
// reached the server). Over stdio, with writes allowed so execute is converted too.
func TestAgentFrameworks(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	url := readerURL(t, d)
	target := realclient.Target{Command: []string{serverBinary(t)}, Env: cleanEnv("DATABASE_URL="+url, "POSTGRES_ALLOW_WRITES=1")}
	res := realclient.Frameworks(t, target, "query", map[string]any{"sql": "SELECT name FROM shop.customers WHERE id = $1", "params": []any{2}})
	realclient.CheckFrameworks(t, res, append(append([]string(nil), readTools...), "execute"), "Linus")
}
