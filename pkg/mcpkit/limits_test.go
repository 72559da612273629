package mcpkit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

func TestConcurrentRequestsPerCallerAreBounded(t *testing.T) {
	alice, bob := strings.Repeat("a", 32), strings.Repeat("b", 32)
	st, err := mcpkit.ParseStaticTokens(alice + " alice\n" + bob + " bob")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		auth          bool
		first, second string // tokens of the blocked caller and of another caller
		otherGetsIn   bool   // whether the other caller is a different caller
	}{
		{"per token subject", true, alice, bob, true},
		{"per client address without authorization", false, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: 2}}
			if tt.auth {
				o.HTTP.Auth = &mcpkit.AuthOptions{Authorizer: st}
			}
			endpoint, hold, entered := holdService(t, o)
			client := func(token string) *remoteClient {
				c := newRemoteClient(t, endpoint)
				c.token = token
				return c
			}
			results := make(chan *remoteReply, 2)
			for range 2 {
				go func() {
					r, err := client(tt.first).try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
					if err != nil {
						t.Error(err)
					}
					results <- r
				}()
			}
			<-entered
			<-entered // both calls are in their handler: the caller is at its limit

			over := client(tt.first).do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})
			if over.status != http.StatusTooManyRequests || over.header.Get("Retry-After") != "1" {
				t.Fatalf("third concurrent call: status %d, Retry-After %q, want 429 and 1", over.status, over.header.Get("Retry-After"))
			}
			if over.err == nil || !strings.Contains(over.err.Message, "the limit is 2") {
				t.Errorf("429 without a clear reason: %s", over.body)
			}
			other := client(tt.second).do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})
			if got := other.status == http.StatusOK; got != tt.otherGetsIn {
				t.Errorf("another caller: status %d, want it admitted=%v", other.status, tt.otherGetsIn)
			}

			close(hold)
			for range 2 {
				if r := <-results; r == nil || r.tool(t).text() != "released" {
					t.Fatalf("a held call did not complete: %+v", r)
				}
			}
			if r := client(tt.first).do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}); r.status != http.StatusOK {
				t.Errorf("after the calls finished: status %d, want 200", r.status)
			}
		})
	}
}

// TestLegacyElicitationAnswerIsNotLimited: a 2025-11-25 client answers an
// elicitation with a POST while its tool call still holds the caller's only slot.
// Only requests count against the limit, so the answer gets through.
func TestLegacyElicitationAnswerIsNotLimited(t *testing.T) {
	endpoint, _, _ := holdService(t, &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: 1}})
	client := mcp.NewClient(&mcp.Implementation{Name: "limit-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: mcpkit.Revision20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("confirm: %v %+v", err, res)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "confirmed: accept true" {
		t.Errorf("confirm answered %q", txt)
	}
}

func TestListenStreamsAreBounded(t *testing.T) {
	t.Run("number", func(t *testing.T) {
		endpoint, _, _ := holdService(t, &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{MaxStreams: 1}})
		c := newRemoteClient(t, endpoint)
		st := c.listen(map[string]any{"toolsListChanged": true})
		if ev := st.next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first stream: %v", ev)
		}
		r := c.do("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		if r.status != http.StatusTooManyRequests || !strings.Contains(r.err.Message, "too many open streams") {
			t.Fatalf("second stream: status %d %s, want 429", r.status, r.body)
		}
		if r := c.do("tools/list", nil); r.status != http.StatusOK {
			t.Errorf("ordinary requests are not streams: status %d", r.status)
		}
		st.cancel()
		for range st.events {
		}
		// The slot is free once the first stream's handler has returned; poll (bounded)
		// rather than assume when that is.
		for i := 0; ; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			resp, err := c.hc.Do(c.request(ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
			if err != nil {
				t.Fatal(err)
			}
			status := resp.StatusCode
			cancel()
			resp.Body.Close()
			if status == http.StatusOK {
				break
			}
			if i == 1000 {
				t.Fatal("a closed stream's slot was never released")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	expiring := mcpkit.AuthorizerFunc(func(ctx context.Context, token string) (*mcpkit.Principal, error) {
		return &mcpkit.Principal{Subject: "short-lived", Expiry: time.Now().Add(50 * time.Millisecond)}, nil
	})
	for _, tt := range []struct {
		name string
		o    *mcpkit.ServeOptions
	}{
		{"lifetime", &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{StreamLifetime: 50 * time.Millisecond}}},
		{"token expiry", &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{Auth: &mcpkit.AuthOptions{Authorizer: expiring}}}},
	} {
		t.Run(tt.name, func(t *testing.T) { streamEndsWithCompletion(t, tt.o) })
	}
}

// streamEndsWithCompletion opens a listen stream that the server must end by
// itself, gracefully: with its completion result.
func streamEndsWithCompletion(t *testing.T, o *mcpkit.ServeOptions) {
	t.Helper()
	endpoint, _, _ := holdService(t, o)
	c := newRemoteClient(t, endpoint)
	c.token = "any-token"
	st := c.listen(map[string]any{"toolsListChanged": true})
	if ev := st.next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event: %v", ev)
	}
	end := st.next(t)
	res, _ := end["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if res["resultType"] != "complete" || meta["io.modelcontextprotocol/subscriptionId"] == nil {
		t.Fatalf("a stream past its lifetime ended with %v, want its completion result", end)
	}
	if _, open := <-st.events; open {
		t.Error("the stream went on after its completion result")
	}
}

func TestToolTimeoutAnswersIsError(t *testing.T) {
	s2 := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{ToolTimeout: 20 * time.Millisecond, Logger: discard()})
	mcpkit.AddTool(s2, &mcpkit.Tool{Name: "hold", Description: "Waits for its context."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	mcpkit.AddTool(s2, &mcpkit.Tool{Name: "quick", Description: "Answers at once."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("done")}}, nil
		})
	srv2 := httptest.NewServer(mustService(t, s2, nil))
	defer srv2.Close()
	c := newRemoteClient(t, srv2.URL+"/mcp")
	tr := c.do("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}}).tool(t)
	if !tr.IsError || !strings.Contains(tr.text(), "did not finish within 20ms") {
		t.Fatalf("a call past the limit answered %q (isError %v)", tr.text(), tr.IsError)
	}
	if tr := c.do("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}}).tool(t); tr.IsError || tr.text() != "done" {
		t.Errorf("a quick call answered %q", tr.text())
	}
}
