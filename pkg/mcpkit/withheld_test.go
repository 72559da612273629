package mcpkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// A write tool called on a read-only server says writes need --allow-writes, not
// "unknown tool" (issue #25); a tool that never existed is still unknown.
func TestReadOnlyServerNamesTheWritesFlag(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{ReadOnly: true})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "write_file"}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		return addOut{}, nil
	})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "read_file", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		return addOut{}, nil
	})
	c := dialRaw(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file",` + meta + `}}`)
	m := c.next()
	e, _ := m["error"].(map[string]any)
	if msg, _ := e["message"].(string); errCode(m) != mcpkit.CodeInvalidParams || !strings.Contains(msg, "--allow-writes") || !strings.Contains(msg, "read-only") {
		t.Errorf("write tool on a read-only server answered %v; want -32602 saying it runs read-only and writes need --allow-writes", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope",` + meta + `}}`)
	m = c.next()
	e, _ = m["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "unknown tool") {
		t.Errorf("unknown tool answered %v; want unknown tool", m)
	}
}
