package filesystem

import (
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestReadOnlyWriteCallNamesTheFlag: write_file on a server started without
// --allow-writes says writes need it, instead of "unknown tool" (issue #25).
func TestReadOnlyWriteCallNamesTheFlag(t *testing.T) {
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, t.TempDir()), "2026-07-28", nil)
	r := c.Request("tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": "x.txt", "content": "x"}})
	if r.Error == nil || !strings.Contains(r.Error.Message, "--allow-writes") {
		t.Fatalf("write_file on a read-only server: %+v %s; want an error naming --allow-writes", r.Error, r.Result)
	}
}
