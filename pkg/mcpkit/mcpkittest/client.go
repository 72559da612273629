// Package mcpkittest gives every server in this repository the same test harness: an
// in-memory client of either protocol revision whose every received message is
// validated against the official schema of that revision, and golden files for
// tools/list snapshots.
package mcpkittest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Options configure an in-memory client.
type Options struct {
	// Capabilities the client declares (per request in 2026-07-28, at initialize
	// before). Default: none ({}).
	Capabilities map[string]any
	// OnRequest answers legacy server-to-client requests (elicitation/create,
	// sampling/createMessage, roots/list). Default: an error response.
	OnRequest func(method string, params json.RawMessage) (any, error)
	// Timeout bounds each call (default 10 s) so a hung server fails the test.
	Timeout time.Duration
}

// Client talks to a server over an in-memory stdio pipe.
type Client struct {
	t        testing.TB
	Revision string
	opts     Options
	v        *Validator

	w      io.Writer
	wmu    sync.Mutex
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[string]pendingCall
	notes   []json.RawMessage
	noteCh  chan struct{}
	done    chan struct{}
}

type pendingCall struct {
	method string
	ch     chan *Response
}

// Response is a response the server sent: Result or Error is set.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *mcpkit.Error   `json:"error"`
	// Raw is the whole message as received.
	Raw json.RawMessage `json:"-"`
}

// Connect serves s on an in-memory pipe and returns a client of the given revision
// ("2026-07-28", "2025-11-25" or "2025-06-18"). For legacy revisions it performs the
// initialize handshake. The server stops when the test ends. Every tool's argument
// validator is compiled first ([mcpkit.Server.CheckTools]), so a bad schema fails the test.
func Connect(t testing.TB, s *mcpkit.Server, revision string, opts *Options) *Client {
	t.Helper()
	if err := s.CheckTools(); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, revision, opts)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c.w = cw
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.ServeStdio(ctx, sr, sw)
		_ = sw.Close()
	}()
	go c.readLoop(cr)
	t.Cleanup(func() {
		_ = cw.Close()
		cancel()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Errorf("server did not stop within 5s of stdin closing")
		}
	})
	if !isModern(revision) {
		c.initialize()
	}
	return c
}

// ConnectStream runs a client over an existing byte stream pair (a subprocess's stdin
// and stdout, for instance).
func ConnectStream(t testing.TB, r io.Reader, w io.Writer, revision string, opts *Options) *Client {
	t.Helper()
	c := newClient(t, revision, opts)
	c.w = w
	go c.readLoop(r)
	if !isModern(revision) {
		c.initialize()
	}
	return c
}

func newClient(t testing.TB, revision string, opts *Options) *Client {
	c := &Client{t: t, Revision: revision, pending: map[string]pendingCall{}, noteCh: make(chan struct{}, 1), done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = 10 * time.Second
	}
	if c.opts.Capabilities == nil {
		c.opts.Capabilities = map[string]any{}
	}
	v, err := NewValidator(revision)
	if err != nil {
		t.Fatalf("mcpkittest: %v", err)
	}
	c.v = v
	return c
}

func isModern(rev string) bool { return rev == mcpkit.Revision20260728 }

func (c *Client) initialize() {
	c.t.Helper()
	res := c.Call("initialize", map[string]any{
		"protocolVersion": c.Revision,
		"capabilities":    c.opts.Capabilities,
		"clientInfo":      map[string]any{"name": "mcpkittest", "version": "1.0.0"},
	})
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &ir); err != nil || ir.ProtocolVersion != c.Revision {
		c.t.Fatalf("mcpkittest: initialize negotiated %q, want %q (%s)", ir.ProtocolVersion, c.Revision, res)
	}
	c.Notify("notifications/initialized", nil)
	// A ping answered after the notification proves the server has processed it, so a
	// test that publishes a change right after Connect cannot race the handshake.
	c.Call("ping", nil)
}

// Meta returns the _meta a 2026-07-28 request carries.
func (c *Client) Meta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    c.Revision,
		"io.modelcontextprotocol/clientCapabilities": c.opts.Capabilities,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpkittest", "version": "1.0.0"},
	}
}

// WithMeta returns params with the per-request _meta added (2026-07-28 only), for
// requests sent with Send.
func (c *Client) WithMeta(params any) map[string]any { return c.withMeta(params) }

// withMeta adds the per-request _meta to params for modern revisions.
func (c *Client) withMeta(params any) map[string]any {
	p := map[string]any{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			c.t.Fatalf("mcpkittest: encoding params: %v", err)
		}
		if err := json.Unmarshal(b, &p); err != nil {
			c.t.Fatalf("mcpkittest: params must be an object: %v", err)
		}
	}
	if isModern(c.Revision) {
		meta, _ := p["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		for k, v := range c.Meta() {
			if _, set := meta[k]; !set {
				meta[k] = v
			}
		}
		p["_meta"] = meta
	}
	return p
}

// Call sends a request and returns its result; a JSON-RPC error fails the test.
func (c *Client) Call(method string, params any) json.RawMessage {
	c.t.Helper()
	r := c.Request(method, params)
	if r.Error != nil {
		c.t.Fatalf("mcpkittest: %s failed: %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// Request sends a request (adding _meta for 2026-07-28) and waits for its response.
func (c *Client) Request(method string, params any) *Response {
	c.t.Helper()
	return c.RequestRaw(method, c.withMeta(params))
}

// RequestRaw sends params exactly as given (no _meta added) and waits for the response.
func (c *Client) RequestRaw(method string, params any) *Response {
	c.t.Helper()
	id := c.nextID.Add(1)
	ch := c.Send(id, method, params)
	select {
	case r := <-ch:
		return r
	case <-time.After(c.opts.Timeout):
		c.t.Fatalf("mcpkittest: no response to %s (id %d) within %v", method, id, c.opts.Timeout)
		return nil
	}
}

// Send writes a request with the given id and returns the channel its response
// arrives on, without waiting.
func (c *Client) Send(id int64, method string, params any) <-chan *Response {
	c.t.Helper()
	ch := make(chan *Response, 1)
	key := strconv.FormatInt(id, 10)
	c.mu.Lock()
	c.pending[key] = pendingCall{method: method, ch: ch}
	c.mu.Unlock()
	c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// NextID reserves a request id for Send.
func (c *Client) NextID() int64 { return c.nextID.Add(1) }

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.writeJSON(msg)
}

// WriteLine writes raw bytes plus a newline: for malformed-input tests.
func (c *Client) WriteLine(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(append([]byte(nil), b...), '\n'))
}

func (c *Client) writeJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatalf("mcpkittest: encoding message: %v", err)
	}
	if c.v != nil {
		if _, isReq := v.(map[string]any)["id"]; isReq {
			if err := c.v.ValidateRequest(b); err != nil && !isLegacyOnly(v) {
				c.t.Logf("mcpkittest: note: client request does not validate: %v", err)
			}
		}
	}
	c.WriteLine(b)
}

func isLegacyOnly(v any) bool {
	m, _ := v.(map[string]any)
	return m["method"] == "initialize"
}

// readLoop routes what the server sends: responses to their callers, notifications
// to the notification list, server requests to OnRequest. Every message is validated
// against the revision's schema; an invalid one fails the test.
func (c *Client) readLoop(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Errorf("mcpkittest: server wrote a line that is not JSON: %q", line)
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			if err := c.v.ValidateServerRequest(line); err != nil {
				c.t.Errorf("mcpkittest: invalid server request: %v\n%s", err, line)
			}
			go c.answer(m.ID, m.Method, m.Params)
		case m.Method != "":
			if err := c.v.ValidateNotification(line); err != nil {
				c.t.Errorf("mcpkittest: invalid notification: %v\n%s", err, line)
			}
			c.mu.Lock()
			c.notes = append(c.notes, line)
			c.mu.Unlock()
			select {
			case c.noteCh <- struct{}{}:
			default:
			}
		default:
			var resp Response
			if err := json.Unmarshal(line, &resp); err != nil {
				c.t.Errorf("mcpkittest: malformed response: %v\n%s", err, line)
				continue
			}
			resp.Raw = line
			key := string(resp.ID)
			c.mu.Lock()
			pc, ok := c.pending[key]
			delete(c.pending, key)
			c.mu.Unlock()
			method := pc.method
			if !ok {
				method = "ping" // an error for an unknown id: validate the envelope only
				if resp.Error == nil {
					c.t.Errorf("mcpkittest: response for unknown id %s: %s", key, line)
					continue
				}
			}
			if err := c.v.ValidateResponse(method, line); err != nil {
				c.t.Errorf("mcpkittest: invalid response to %s: %v\n%s", method, err, line)
			}
			if ok {
				pc.ch <- &resp
			} else {
				c.mu.Lock()
				c.notes = append(c.notes, line)
				c.mu.Unlock()
			}
		}
	}
}

func (c *Client) answer(id json.RawMessage, method string, params json.RawMessage) {
	var msg map[string]any
	if c.opts.OnRequest == nil {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "mcpkittest: no OnRequest handler"}}
	} else if res, err := c.opts.OnRequest(method, params); err != nil {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": err.Error()}}
	} else {
		msg = map[string]any{"jsonrpc": "2.0", "id": id, "result": res}
	}
	b, _ := json.Marshal(msg)
	c.WriteLine(b)
}

// Notifications returns the notifications received so far.
func (c *Client) Notifications() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.notes...)
}

// WaitNotification waits until a notification satisfying match arrives (or was
// already received) and returns it; it fails the test after the client's timeout.
func (c *Client) WaitNotification(match func(method string, params json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	deadline := time.After(c.opts.Timeout)
	seen := 0
	for {
		notes := c.Notifications()
		for _, n := range notes[seen:] {
			var m struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(n, &m) == nil && match(m.Method, m.Params) {
				return n
			}
		}
		seen = len(notes)
		select {
		case <-c.noteCh:
		case <-deadline:
			c.t.Fatalf("mcpkittest: expected notification did not arrive within %v; got %d: %s", c.opts.Timeout, len(notes), fmt.Sprint(stringsOf(notes)))
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func stringsOf(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}

// ToolResult is a decoded tools/call result.
type ToolResult struct {
	ResultType        string           `json:"resultType"`
	Content           []mcpkit.Content `json:"content"`
	StructuredContent json.RawMessage  `json:"structuredContent"`
	IsError           bool             `json:"isError"`
	InputRequests     map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
}

// Text joins the text blocks of the result.
func (r *ToolResult) Text() string {
	var s string
	for _, c := range r.Content {
		if c.Type == "text" {
			s += c.Text
		}
	}
	return s
}

// CallTool calls a tool and decodes its result; a protocol error fails the test.
func (c *Client) CallTool(name string, args any) *ToolResult {
	c.t.Helper()
	return c.toolResult(c.Call("tools/call", map[string]any{"name": name, "arguments": args}))
}

// RetryTool calls a tool again after an input_required result: with the same
// arguments, the answers to its input requests (inputResponses, by key) and the
// requestState it returned. It decodes the result; a protocol error fails the test.
func (c *Client) RetryTool(name string, args any, state string, responses map[string]any) *ToolResult {
	c.t.Helper()
	return c.toolResult(c.Call("tools/call", map[string]any{"name": name, "arguments": args,
		"inputResponses": responses, "requestState": state}))
}

func (c *Client) toolResult(res json.RawMessage) *ToolResult {
	c.t.Helper()
	var tr ToolResult
	if err := json.Unmarshal(res, &tr); err != nil {
		c.t.Fatalf("mcpkittest: decoding tools/call result: %v", err)
	}
	return &tr
}
