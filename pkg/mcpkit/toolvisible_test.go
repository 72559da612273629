package mcpkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// TestToolVisible: ServerOptions.ToolVisible narrows tools/list and tools/call per
// request from the HTTP request's headers, and never shows an unregistered tool.
func TestToolVisible(t *testing.T) {
	type in struct{}
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{
		ToolVisible: func(req *mcpkit.Request, name string) bool {
			only := req.Header.Get("X-Only")
			return only == "" || only == name || only == "ghost"
		},
	})
	for _, n := range []string{"a", "b"} {
		mcpkit.AddTool(s, &mcpkit.Tool{Name: n}, func(context.Context, *mcpkit.Request, in) (any, error) { return map[string]string{"ok": n}, nil })
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	post := func(only, method string, params map[string]any) string {
		t.Helper()
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "c", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if n, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", n)
		}
		if only != "" {
			req.Header.Set("X-Only", only)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return out.String()
	}
	names := func(only string) []string {
		var r struct {
			Result struct{ Tools []struct{ Name string } }
		}
		raw := post(only, "tools/list", map[string]any{})
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		var out []string
		for _, tl := range r.Result.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	for _, tc := range []struct {
		only string
		want []string
	}{{"", []string{"a", "b"}}, {"b", []string{"b"}}, {"ghost", []string{"a", "b"}}} {
		if d := cmp.Diff(tc.want, names(tc.only)); d != "" {
			t.Errorf("X-Only %q: tools/list (-want +got):\n%s", tc.only, d)
		}
	}
	if got := post("b", "tools/call", map[string]any{"name": "a", "arguments": map[string]any{}}); !strings.Contains(got, `unknown tool \"a\"`) {
		t.Errorf("tools/call of a hidden tool: %s; want unknown tool", got)
	}
	if got := post("b", "tools/call", map[string]any{"name": "b", "arguments": map[string]any{}}); !strings.Contains(got, `ok`) || strings.Contains(got, "error") {
		t.Errorf("tools/call of a visible tool: %s", got)
	}
}
