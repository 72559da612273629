package mcpkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

func quietServer() *mcpkit.Server {
	return mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"},
		&mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxMessageBytes: 1 << 16})
}

func modernBody(id int, method string, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}

func post(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestHTTPStatusesAndErrors(t *testing.T) {
	s := quietServer()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "adds", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	call := modernBody(1, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}})
	tests := []struct {
		name    string
		method  string
		body    string
		headers map[string]string
		status  int
		code    int // JSON-RPC error code expected in the body, 0 for a result or none
	}{
		{"tools/call answers JSON", "POST", call, modernHeaders("tools/call", "add"), 200, 0},
		{"GET without a session", "GET", "", nil, 405, 0},
		{"DELETE without a session", "DELETE", "", nil, 405, 0},
		{"wrong content type", "POST", call, map[string]string{"Content-Type": "text/plain"}, 415, mcpkit.CodeInvalidRequest},
		{"oversized body", "POST", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", 1<<17) + `"}}`, modernHeaders("x", ""), 413, mcpkit.CodeInvalidRequest},
		{"foreign origin", "POST", call, map[string]string{"Origin": "http://evil.example.com"}, 403, mcpkit.CodeInvalidRequest},
		{"rebinding host", "POST", call, map[string]string{"Host": "evil.example.com"}, 403, mcpkit.CodeInvalidRequest},
		{"loopback origin", "POST", call, map[string]string{"Origin": "http://localhost:3000", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}, 200, 0},
		{"not JSON", "POST", `{"jsonrpc":`, nil, 400, mcpkit.CodeParseError},
		{"batch", "POST", `[` + call + `]`, nil, 400, mcpkit.CodeInvalidRequest},
		{"missing Mcp-Method", "POST", call, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Name": "add"}, 400, mcpkit.CodeHeaderMismatch},
		{"Mcp-Method differs", "POST", call, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "add"}, 400, mcpkit.CodeHeaderMismatch},
		{"Mcp-Name differs", "POST", call, modernHeaders("tools/call", "sub"), 400, mcpkit.CodeHeaderMismatch},
		{"Mcp-Name base64", "POST", call, modernHeaders("tools/call", "=?base64?YWRk?="), 200, 0},
		{"Mcp-Name bad base64", "POST", call, modernHeaders("tools/call", "=?base64?YWR?="), 400, mcpkit.CodeHeaderMismatch},
		{"missing version header", "POST", call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "add"}, 400, mcpkit.CodeHeaderMismatch},
		{"missing _meta", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, modernHeaders("tools/list", ""), 400, mcpkit.CodeInvalidParams},
		{"unsupported version", "POST", strings.ReplaceAll(modernBody(1, "tools/list", nil), "2026-07-28", "2099-01-01"), map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"}, 400, mcpkit.CodeUnsupportedProtocolVersion},
		{"removed method", "POST", modernBody(1, "ping", nil), modernHeaders("ping", ""), 404, mcpkit.CodeMethodNotFound},
		{"unknown tool is a 200 error", "POST", modernBody(1, "tools/call", map[string]any{"name": "nope"}), modernHeaders("tools/call", "nope"), 200, mcpkit.CodeInvalidParams},
		{"unknown session", "POST", modernBody(1, "tools/list", nil), map[string]string{"Mcp-Session-Id": "nope", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, 404, mcpkit.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			for k, v := range modernHeaders("tools/call", "add") {
				headers[k] = v
			}
			if tt.headers != nil {
				headers = tt.headers
			}
			var resp *http.Response
			if tt.method == "POST" {
				if h, ok := headers["Host"]; ok {
					delete(headers, "Host")
					req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(tt.body))
					req.Host = h
					req.Header.Set("Content-Type", "application/json")
					var err error
					if resp, err = http.DefaultClient.Do(req); err != nil {
						t.Fatal(err)
					}
				} else {
					resp = post(t, srv.URL, tt.body, headers)
				}
			} else {
				req, _ := http.NewRequest(tt.method, srv.URL, nil)
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			if tt.code != 0 {
				var m struct {
					Error *mcpkit.Error `json:"error"`
				}
				if err := json.Unmarshal(body, &m); err != nil || m.Error == nil || m.Error.Code != tt.code {
					t.Fatalf("want JSON-RPC error %d, got %s", tt.code, body)
				}
			}
		})
	}
}

// sseEvents reads JSON messages from an SSE body until the one with the given id.
func sseEvents(t *testing.T, body io.Reader, untilID float64) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
			t.Fatalf("bad SSE data %q: %v", line, err)
		}
		out = append(out, m)
		if id, ok := m["id"].(float64); ok && id == untilID {
			return out
		}
	}
	return out
}

func TestHTTPProgressStreamsBeforeTheResponse(t *testing.T) {
	s := quietServer()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "slow", Description: "reports progress", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		for i := 1; i <= 3; i++ {
			req.Progress(float64(i), 3, "")
		}
		return addOut{Sum: 3}, nil
	})
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	body := modernBody(9, "tools/call", map[string]any{"name": "slow"})
	body = strings.Replace(body, `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)
	resp := post(t, srv.URL, body, modernHeaders("tools/call", "slow"))
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	events := sseEvents(t, resp.Body, 9)
	var methods []string
	for _, e := range events {
		if m, ok := e["method"].(string); ok {
			methods = append(methods, m)
		} else {
			methods = append(methods, "response")
		}
	}
	want := "notifications/progress,notifications/progress,notifications/progress,response"
	if got := strings.Join(methods, ","); got != want {
		t.Errorf("stream = %s, want %s", got, want)
	}
}

func TestHTTPListenStreamGetsChanges(t *testing.T) {
	s := quietServer()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "a", Description: "a", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) { return addOut{}, nil })
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(modernBody(77, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true, "promptsListChanged": true}})))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	next := func() map[string]any {
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data: ") {
				var m map[string]any
				_ = json.Unmarshal([]byte(line[6:]), &m)
				return m
			}
		}
		t.Fatal("stream ended")
		return nil
	}
	ack := next()
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %v, want the acknowledgement", ack)
	}
	params := ack["params"].(map[string]any)
	if got := params["notifications"].(map[string]any); got["toolsListChanged"] != true || got["promptsListChanged"] != nil {
		t.Errorf("acknowledged %v: want tools only (no prompts are registered)", got)
	}
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "b", Description: "b", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) { return addOut{}, nil })
	n := next()
	meta := n["params"].(map[string]any)["_meta"].(map[string]any)
	if n["method"] != "notifications/tools/list_changed" || meta["io.modelcontextprotocol/subscriptionId"] != float64(77) {
		t.Errorf("got %v, want tools/list_changed tagged with subscription id 77", n)
	}
	// Server shutdown ends the stream with the completion result.
	s.Shutdown()
	end := next()
	if end["id"] != float64(77) || end["result"].(map[string]any)["resultType"] != "complete" {
		t.Errorf("final message %v, want the completion result", end)
	}
}

func TestHTTPClientDisconnectCancelsTheCall(t *testing.T) {
	s := quietServer()
	cancelled := make(chan struct{})
	started := make(chan struct{})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "block", Description: "blocks", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return addOut{}, ctx.Err()
	})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "adds", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(modernBody(1, "tools/call", map[string]any{"name": "block"})))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range modernHeaders("tools/call", "block") {
		req.Header.Set(k, v)
	}
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("request unexpectedly completed")
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("handler was not cancelled within 5s of the client disconnecting")
	}
	resp := post(t, srv.URL, modernBody(2, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}), modernHeaders("tools/call", "add"))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("server did not keep serving: %d", resp.StatusCode)
	}
}

func TestHTTPLegacySessionLifecycle(t *testing.T) {
	s := quietServer()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "adds", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	v, err := mcpkittest.NewValidator("2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" || strings.Trim(sid, "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") != "" {
		t.Fatalf("session id %q must be visible ASCII", sid)
	}
	if err := v.ValidateResponse("initialize", body); err != nil {
		t.Fatal(err)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d, want 202", resp.StatusCode)
	}
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, h)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("legacy ping answered %s", body)
	}
	req, _ := http.NewRequest("DELETE", srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", dresp.StatusCode)
	}
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("request on a deleted session: %d, want 404", resp.StatusCode)
	}
}
