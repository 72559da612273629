package filesystem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestAgentFrameworks: the MCP clients of the OpenAI Agents SDK (strict schemas on),
// LangChain and the Vercel AI SDK list every tool, OpenAI's converter makes each one
// strict, and read_text_file answers through each framework's own tool object (issue
// #25). Over stdio, with writes allowed so every tool is converted.
func TestAgentFrameworks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("framework check\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := realclient.Frameworks(t, clientTarget(t, "stdio", dir, false), "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	realclient.CheckFrameworks(t, res, allToolNames(), "framework check")
}
