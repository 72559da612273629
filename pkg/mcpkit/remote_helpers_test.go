package mcpkit_test

// Helpers of the remote-deployment tests (authorization, limits, scale-out, shutdown,
// load): a raw 2026-07-28 HTTP client that sends what a client in another process
// sends, headers included, and a small server whose tools exercise each feature.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// remoteClient is a 2026-07-28 client over Streamable HTTP.
type remoteClient struct {
	t      testing.TB
	url    string
	hc     *http.Client
	token  string            // sent as Authorization: Bearer, when set
	header map[string]string // extra headers
	caps   map[string]any    // client capabilities declared in _meta
	nextID atomic.Int64
}

func newRemoteClient(t testing.TB, url string) *remoteClient {
	return &remoteClient{t: t, url: url, hc: &http.Client{}, caps: map[string]any{"elicitation": map[string]any{}}}
}

// remoteReply is what came back: the HTTP status and headers, and the JSON-RPC
// result or error (from a JSON body or the last SSE event).
type remoteReply struct {
	status int
	header http.Header
	result json.RawMessage
	err    *mcpkit.Error
	body   []byte
}

// request builds the POST of one request.
func (c *remoteClient) request(ctx context.Context, method string, params map[string]any) *http.Request {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mcpkit.Revision20260728,
		"io.modelcontextprotocol/clientCapabilities": c.caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "remote-test", "version": "1"},
	}
	if extra, ok := params["_meta"].(map[string]any); ok {
		for k, v := range extra {
			m[k] = v
		}
	}
	params["_meta"] = m
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID.Add(1), "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcpkit.Revision20260728)
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return req
}

// do sends one request and reads the whole answer. A transport error fails the test.
func (c *remoteClient) do(method string, params map[string]any) *remoteReply {
	c.t.Helper()
	r, err := c.try(method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// try is do returning transport errors, for use off the test goroutine.
func (c *remoteClient) try(method string, params map[string]any) (*remoteReply, error) {
	resp, err := c.hc.Do(c.request(context.Background(), method, params))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	r := &remoteReply{status: resp.StatusCode, header: resp.Header, body: body}
	msg := body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		for _, ev := range sseData(body) {
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(ev, &probe) == nil && len(probe.ID) > 0 {
				msg = ev
			}
		}
	}
	if len(msg) > 0 {
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  *mcpkit.Error   `json:"error"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, fmt.Errorf("status %d: body is not JSON-RPC: %q", resp.StatusCode, body)
		}
		r.result, r.err = m.Result, m.Error
	}
	return r, nil
}

// sseData returns the data of every SSE event in a complete stream.
func sseData(body []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, []byte(d))
		}
	}
	return out
}

// remoteStream is an open SSE response (subscriptions/listen).
type remoteStream struct {
	resp   *http.Response
	events chan json.RawMessage
	cancel context.CancelFunc
}

// listen opens a subscriptions/listen stream; events arrive on the channel, which is
// closed when the stream ends.
func (c *remoteClient) listen(filter map[string]any) *remoteStream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.hc.Do(c.request(ctx, "subscriptions/listen", map[string]any{"notifications": filter}))
	if err != nil {
		cancel()
		c.t.Fatalf("subscriptions/listen: %v", err)
	}
	st := &remoteStream{resp: resp, events: make(chan json.RawMessage, 64), cancel: cancel}
	go func() {
		defer close(st.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				st.events <- json.RawMessage(d)
			}
		}
	}()
	c.t.Cleanup(cancel)
	return st
}

// next returns the next event of the stream, or fails the test when it ended.
func (st *remoteStream) next(t testing.TB) map[string]any {
	t.Helper()
	ev, ok := <-st.events
	if !ok {
		t.Fatal("the stream ended before the expected event")
	}
	var m map[string]any
	if err := json.Unmarshal(ev, &m); err != nil {
		t.Fatalf("stream event is not JSON: %q", ev)
	}
	return m
}

// toolReply is a decoded tools/call result.
type toolReply struct {
	ResultType    string                     `json:"resultType"`
	Content       []mcpkit.Content           `json:"content"`
	IsError       bool                       `json:"isError"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

func (r *remoteReply) tool(t testing.TB) *toolReply {
	t.Helper()
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("tools/call: status %d, error %v, body %s", r.status, r.err, r.body)
	}
	var tr toolReply
	if err := json.Unmarshal(r.result, &tr); err != nil {
		t.Fatalf("decoding tools/call result %s: %v", r.result, err)
	}
	return &tr
}

func (tr *toolReply) text() string {
	var s string
	for _, c := range tr.Content {
		s += c.Text
	}
	return s
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type noteIn struct {
	Text string `json:"text"`
}

// remoteServer is the server the remote-deployment tests deploy: "add" (read-only),
// "write_note" (needs the notes:write scope), "confirm" (asks the user through
// elicitation: a multi-round-trip call) and, when hold is set, "hold", which blocks
// until hold is closed or its context ends.
func remoteServer(key []byte, hold <-chan struct{}, entered chan<- struct{}) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "remote-test", Version: "1.0.0"},
		&mcpkit.ServerOptions{Logger: discard(), StateKey: key})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "Adds two integers.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in sumIn) (sumOut, error) {
			return sumOut{Sum: in.A + in.B}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "write_note", Description: "Stores a note.", Scopes: []string{"notes:write"}},
		func(ctx context.Context, req *mcpkit.Request, in noteIn) (*mcpkit.CallToolResult, error) {
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

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// mustService mounts a server's HTTP service (endpoint, metadata, probes).
func mustService(t testing.TB, s *mcpkit.Server, o *mcpkit.ServeOptions) http.Handler {
	t.Helper()
	h, err := s.HTTPService(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// holdService serves remoteServer with a "hold" tool that blocks until hold is
// closed; entered receives one value per call that got into the handler. A test may
// close hold itself; otherwise it is closed at the end.
func holdService(t *testing.T, o *mcpkit.ServeOptions) (endpoint string, hold chan struct{}, entered chan struct{}) {
	t.Helper()
	return holdServiceWith(t, o, func(*mcpkit.Server) {})
}

// holdServiceWith is holdService with a hook that configures the server first
// (middleware, options). AuthOptions.Resource is set to the endpoint's URL.
func holdServiceWith(t *testing.T, o *mcpkit.ServeOptions, setup func(*mcpkit.Server)) (endpoint string, hold chan struct{}, entered chan struct{}) {
	t.Helper()
	hold, entered = make(chan struct{}), make(chan struct{}, 64)
	t.Cleanup(func() {
		select {
		case <-hold:
		default:
			close(hold)
		}
	})
	base := serveAt(t, func(base string) http.Handler {
		if o.HTTP.Auth != nil {
			o.HTTP.Auth.Resource = base + "/mcp"
		}
		s := remoteServer(nil, hold, entered)
		setup(s)
		return mustService(t, s, o)
	})
	endpoint = base + "/mcp"
	return endpoint, hold, entered
}

// serveAt starts a loopback test server whose handler is built knowing the server's
// own URL (an authorized server's resource URI is its public URL). The handler is
// in place before the first connection is accepted.
func serveAt(t testing.TB, build func(baseURL string) http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = build(base)
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}
