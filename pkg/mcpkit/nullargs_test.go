package mcpkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

type nullIn struct {
	Path  string   `json:"path"`
	Depth int      `json:"depth,omitempty"`
	Glob  string   `json:"glob,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// A strict-mode agent framework sends null for every optional argument the model
// leaves out; the server treats them as absent at both revisions. A required argument
// sent as null is still refused (issue #25).
func TestNullOptionalArgumentsAreAbsent(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "look", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in nullIn) (addOut, error) {
		if in.Depth != 0 || in.Glob != "" || in.Tags != nil {
			t.Errorf("null optional arguments reached the handler as values: %+v", in)
		}
		return addOut{Sum: len(in.Path)}, nil
	})
	legacyInit := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			c := dialRaw(t, s)
			m := meta
			if era == "2025-11-25" {
				c.send(legacyInit)
				c.next()
				c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				m = `"_meta":{}`
			}
			c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"look","arguments":{"path":"abc","depth":null,"glob":null,"tags":null},` + m + `}}`)
			got := c.next()
			res, _ := got["result"].(map[string]any)
			if res == nil || res["isError"] == true {
				t.Fatalf("null optional arguments were refused: %v", got)
			}
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"look","arguments":{"path":null},` + m + `}}`)
			got = c.next()
			res, _ = got["result"].(map[string]any)
			if res == nil || res["isError"] != true || !strings.Contains(toText(res), "path") {
				t.Fatalf("a required argument sent as null must be refused naming it: %v", got)
			}
		})
	}
}

func toText(res map[string]any) string {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}
