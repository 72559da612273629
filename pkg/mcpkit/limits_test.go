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
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

func TestConcurrentRequestsPerCallerAreBounded(t *testing.T) {
	alice, bob := strings.Repeat("a", 32), strings.Repeat("b", 32)
	st, err := auth.ParseStaticTokens(alice + " alice\n" + bob + " bob")
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
			o := &serve.Options{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: 2}}
			if tt.auth {
				o.Auth = &auth.Options{Verifier: st}
			}
			endpoint, hold, entered := remotetest.HoldService(t, o)
			client := func(token string) *remotetest.Client {
				c := remotetest.NewClient(t, endpoint)
				c.Token = token
				return c
			}
			results := make(chan *remotetest.Reply, 2)
			for range 2 {
				go func() {
					r, err := client(tt.first).Try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
					if err != nil {
						t.Error(err)
					}
					results <- r
				}()
			}
			<-entered
			<-entered // both calls are in their handler: the caller is at its limit

			over := client(tt.first).Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})
			if over.Status != http.StatusTooManyRequests || over.Header.Get("Retry-After") != "1" {
				t.Fatalf("third concurrent call: status %d, Retry-After %q, want 429 and 1", over.Status, over.Header.Get("Retry-After"))
			}
			if over.Err == nil || !strings.Contains(over.Err.Message, "the limit is 2") {
				t.Errorf("429 without a clear reason: %s", over.Body)
			}
			other := client(tt.second).Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}})
			if got := other.Status == http.StatusOK; got != tt.otherGetsIn {
				t.Errorf("another caller: status %d, want it admitted=%v", other.Status, tt.otherGetsIn)
			}

			close(hold)
			for range 2 {
				if r := <-results; r == nil || r.Tool(t).Text() != "released" {
					t.Fatalf("a held call did not complete: %+v", r)
				}
			}
			if r := client(tt.first).Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}); r.Status != http.StatusOK {
				t.Errorf("after the calls finished: status %d, want 200", r.Status)
			}
		})
	}
}

// TestLegacyElicitationAnswerIsNotLimited: a 2025-11-25 client answers an
// elicitation with a POST while its tool call still holds the caller's only slot.
// Only requests count against the limit, so the answer gets through.
func TestLegacyElicitationAnswerIsNotLimited(t *testing.T) {
	endpoint, _, _ := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: 1}})
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
		endpoint, _, _ := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxStreams: 1}})
		c := remotetest.NewClient(t, endpoint)
		st := c.Listen(map[string]any{"toolsListChanged": true})
		if ev := st.Next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first stream: %v", ev)
		}
		r := c.Do("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		if r.Status != http.StatusTooManyRequests || !strings.Contains(r.Err.Message, "too many open streams") {
			t.Fatalf("second stream: status %d %s, want 429", r.Status, r.Body)
		}
		if r := c.Do("tools/list", nil); r.Status != http.StatusOK {
			t.Errorf("ordinary requests are not streams: status %d", r.Status)
		}
		st.Cancel()
		for range st.Events {
		}
		// The slot is free once the first stream's handler has returned; poll (bounded)
		// rather than assume when that is.
		for i := 0; ; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			resp, err := c.HC.Do(c.Request(ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
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
	expiring := auth.VerifierFunc(func(ctx context.Context, token string) (*auth.Principal, error) {
		return &auth.Principal{Subject: "short-lived", Expiry: time.Now().Add(50 * time.Millisecond)}, nil
	})
	for _, tt := range []struct {
		name string
		o    *serve.Options
	}{
		{"lifetime", &serve.Options{HTTP: mcpkit.HTTPOptions{StreamLifetime: 50 * time.Millisecond}}},
		{"token expiry", &serve.Options{Auth: &auth.Options{Verifier: expiring}}},
	} {
		t.Run(tt.name, func(t *testing.T) { streamEndsWithCompletion(t, tt.o) })
	}
}

// TestOneCallerCannotTakeEveryStream: a caller gets its share of the listen streams
// (16 by default), so another caller still gets one when the first opens more; with
// authorization the share is per token subject and issuer, without it per client
// address (issue 13, item 5).
func TestOneCallerCannotTakeEveryStream(t *testing.T) {
	const share = 16 // mcpkit.DefaultMaxStreamsPerCaller
	alice, bob := strings.Repeat("a", 32), strings.Repeat("b", 32)
	st, err := auth.ParseStaticTokens(alice + " alice\n" + bob + " bob")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		auth bool
	}{{"per token subject", true}, {"per client address without authorization", false}} {
		t.Run(tt.name, func(t *testing.T) {
			o := &serve.Options{HTTP: mcpkit.HTTPOptions{MaxStreams: 100}}
			if tt.auth {
				o.Auth = &auth.Options{Verifier: st}
			}
			endpoint, _, _ := remotetest.HoldService(t, o)
			c := remotetest.NewClient(t, endpoint)
			c.Token = alice
			filter := map[string]any{"toolsListChanged": true}
			for i := range share {
				if ev := c.Listen(filter).Next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
					t.Fatalf("stream %d of the caller's share: %v", i+1, ev)
				}
			}
			// A stream that is not refused stays open: bound the wait for the refusal.
			over := remotetest.NewClient(t, endpoint)
			over.Token, over.HC = alice, &http.Client{Timeout: 10 * time.Second}
			r := over.Do("subscriptions/listen", map[string]any{"notifications": filter})
			if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Err == nil ||
				!strings.Contains(r.Err.Message, "from this caller (the limit is 16 per caller)") {
				t.Fatalf("stream %d of one caller: status %d %s, want 429 naming the per-caller limit", share+1, r.Status, r.Body)
			}
			if !tt.auth {
				return // every test client has the same address
			}
			other := remotetest.NewClient(t, endpoint)
			other.Token = bob
			if ev := other.Listen(filter).Next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
				t.Errorf("another caller's stream: %v", ev)
			}
		})
	}
	t.Run("option", func(t *testing.T) {
		endpoint, _, _ := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxStreamsPerCaller: 1}})
		c := remotetest.NewClient(t, endpoint)
		c.Listen(map[string]any{"toolsListChanged": true}).Next(t)
		c.HC = &http.Client{Timeout: 10 * time.Second}
		if r := c.Do("subscriptions/listen", map[string]any{"notifications": map[string]any{}}); r.Status != http.StatusTooManyRequests {
			t.Errorf("a second stream with MaxStreamsPerCaller 1: status %d", r.Status)
		}
	})
}

// streamEndsWithCompletion opens a listen stream that the server must end by
// itself, gracefully: with its completion result.
func streamEndsWithCompletion(t *testing.T, o *serve.Options) {
	t.Helper()
	endpoint, _, _ := remotetest.HoldService(t, o)
	c := remotetest.NewClient(t, endpoint)
	c.Token = "any-token"
	st := c.Listen(map[string]any{"toolsListChanged": true})
	if ev := st.Next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event: %v", ev)
	}
	end := st.Next(t)
	res, _ := end["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if res["resultType"] != "complete" || meta["io.modelcontextprotocol/subscriptionId"] == nil {
		t.Fatalf("a stream past its lifetime ended with %v, want its completion result", end)
	}
	if _, open := <-st.Events; open {
		t.Error("the stream went on after its completion result")
	}
}

func TestToolTimeoutAnswersIsError(t *testing.T) {
	s2 := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{ToolTimeout: 20 * time.Millisecond, Logger: remotetest.Discard()})
	mcpkit.AddTool(s2, &mcpkit.Tool{Name: "hold", Description: "Waits for its context."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	mcpkit.AddTool(s2, &mcpkit.Tool{Name: "quick", Description: "Answers at once."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("done")}}, nil
		})
	srv2 := httptest.NewServer(remotetest.Service(t, s2, nil))
	defer srv2.Close()
	c := remotetest.NewClient(t, srv2.URL+"/mcp")
	tr := c.Do("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}}).Tool(t)
	if !tr.IsError || !strings.Contains(tr.Text(), "did not finish within 20ms") {
		t.Fatalf("a call past the limit answered %q (isError %v)", tr.Text(), tr.IsError)
	}
	if tr := c.Do("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}}).Tool(t); tr.IsError || tr.Text() != "done" {
		t.Errorf("a quick call answered %q", tr.Text())
	}
}
