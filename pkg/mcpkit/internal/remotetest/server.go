package remotetest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// SumIn are the arguments of "add".
type SumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// SumOut is the result of "add".
type SumOut struct {
	Sum int `json:"sum"`
}

// NoteIn are the arguments of "write_note".
type NoteIn struct {
	Text string `json:"text"`
}

// Server is the server the remote-deployment tests deploy: "add" (read-only),
// "write_note" (needs the notes:write scope), "confirm" (asks the user through
// elicitation: a multi-round-trip call) and, when hold is set, "hold", which blocks
// until hold is closed or its context ends.
func Server(key []byte, hold <-chan struct{}, entered chan<- struct{}) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "remote-test", Version: "1.0.0"},
		&mcpkit.ServerOptions{Logger: Discard(), StateKey: key})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "Adds two integers.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in SumIn) (SumOut, error) {
			return SumOut{Sum: in.A + in.B}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "write_note", Description: "Stores a note.", Scopes: []string{"notes:write"}},
		func(ctx context.Context, req *mcpkit.Request, in NoteIn) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("written")}}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "confirm", Description: "Asks the user to confirm."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			res, err := req.Elicit(ctx, "ok", mcpkit.ElicitParams{Message: "Proceed?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}})
			if err != nil {
				return nil, err
			}
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent(fmt.Sprintf("confirmed: %s %v", res.Action, res.Content["ok"]))}}, nil
		})
	if hold != nil {
		mcpkit.AddTool(s, &mcpkit.Tool{Name: "hold", Description: "Waits until released.", Annotations: mcpkit.ReadOnly()},
			func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
				if entered != nil {
					entered <- struct{}{}
				}
				select {
				case <-hold:
					return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("released")}}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
	}
	return s
}

// Discard is a logger that writes nowhere.
func Discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Service mounts a server's HTTP service (endpoint, metadata, probes).
func Service(t testing.TB, s *mcpkit.Server, o *serve.Options) http.Handler {
	t.Helper()
	h, err := serve.HTTPService(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// HoldService serves [Server] with a "hold" tool that blocks until hold is
// closed; entered receives one value per call that got into the handler. A test may
// close hold itself; otherwise it is closed at the end.
func HoldService(t *testing.T, o *serve.Options) (endpoint string, hold chan struct{}, entered chan struct{}) {
	t.Helper()
	return HoldServiceWith(t, o, func(*mcpkit.Server) {})
}

// HoldServiceWith is [HoldService] with a hook that configures the server first
// (middleware, options). o.Auth.Resource, when o.Auth is set, becomes the endpoint's URL.
func HoldServiceWith(t *testing.T, o *serve.Options, setup func(*mcpkit.Server)) (endpoint string, hold chan struct{}, entered chan struct{}) {
	t.Helper()
	hold, entered = make(chan struct{}), make(chan struct{}, 64)
	t.Cleanup(func() {
		select {
		case <-hold:
		default:
			close(hold)
		}
	})
	base := ServeAt(t, func(base string) http.Handler {
		if o.Auth != nil {
			o.Auth.Resource = base + "/mcp"
		}
		s := Server(nil, hold, entered)
		setup(s)
		return Service(t, s, o)
	})
	endpoint = base + "/mcp"
	return endpoint, hold, entered
}

// ServeAt starts a loopback test server whose handler is built knowing the server's
// own URL (an authorized server's resource URI is its public URL). The handler is
// in place before the first connection is accepted.
func ServeAt(t testing.TB, build func(baseURL string) http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = build(base)
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// AuthedService is [Server] behind authorization (the Verifier made for the
// endpoint's URL, which is the resource URI), mounted on a test server; it returns
// the MCP endpoint URL.
func AuthedService(t testing.TB, verifier func(endpoint string) auth.Verifier, issuer string, mutate func(*serve.Options)) string {
	t.Helper()
	base := ServeAt(t, func(base string) http.Handler {
		endpoint := base + "/mcp"
		o := &serve.Options{Auth: &auth.Options{
			Verifier: verifier(endpoint), Resource: endpoint, AuthorizationServers: []string{issuer}, Scopes: []string{"mcp"},
		}}
		if mutate != nil {
			mutate(o)
		}
		return Service(t, Server(nil, nil, nil), o)
	})
	return base + "/mcp"
}

// LoadRequest is a prebuilt tools/call of "add" (a+b), so the load generator spends
// its time on the server rather than on encoding.
func LoadRequest(url string, id, a, b int) *http.Request {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":%d},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, a, b)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "add")
	return req
}

// CheckLegacySessionOwner opens a legacy (2025-11-25) session at endpoint with the
// owner's token and checks that the other token's tools/list in that session is a
// 404 while the owner's is a 200: a legacy session is bound to its caller.
func CheckLegacySessionOwner(t *testing.T, endpoint, owner, other string) {
	t.Helper()
	send := func(token, sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", mcpkit.Revision20251125)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := send(owner, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	send(owner, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := send(other, sid, list); r.StatusCode != http.StatusNotFound {
		t.Errorf("another caller using the owner's session: status %d, want 404", r.StatusCode)
	}
	if r := send(owner, sid, list); r.StatusCode != http.StatusOK {
		t.Errorf("the owner using the session: status %d, want 200", r.StatusCode)
	}
}
