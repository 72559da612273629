// Package remoteclient is a raw 2026-07-28 client over Streamable HTTP for tests: it
// sends what a client in another process sends, headers included (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name), and reads the JSON-RPC answer from a JSON body or the SSE
// stream. mcpkit's remote-deployment tests (internal/remotetest) and the servers'
// own modules use it.
package remoteclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Client is a 2026-07-28 client over Streamable HTTP.
type Client struct {
	t      testing.TB
	url    string
	HC     *http.Client
	Token  string            // sent as Authorization: Bearer, when set
	Header map[string]string // extra headers
	caps   map[string]any    // client capabilities declared in _meta
	nextID atomic.Int64
}

// NewClient makes a client of the MCP endpoint at url that declares elicitation.
func NewClient(t testing.TB, url string) *Client {
	return &Client{t: t, url: url, HC: &http.Client{}, caps: map[string]any{"elicitation": map[string]any{}}}
}

// DeclareTasks makes the client declare the Tasks extension
// (io.modelcontextprotocol/tasks) in every request's capabilities.
func (c *Client) DeclareTasks() *Client {
	c.caps["extensions"] = map[string]any{mcpkit.ExtensionTasks: map[string]any{}}
	return c
}

// Reply is what came back: the HTTP status and headers, and the JSON-RPC
// result or error (from a JSON body or the last SSE event).
type Reply struct {
	Status int
	Header http.Header
	Result json.RawMessage
	Err    *mcpkit.Error
	Body   []byte
}

// Request builds the POST of one request.
func (c *Client) Request(ctx context.Context, method string, params map[string]any) *http.Request {
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
	} else if id, ok := params["taskId"].(string); ok && strings.HasPrefix(method, "tasks/") {
		req.Header.Set("Mcp-Name", id)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range c.Header {
		req.Header.Set(k, v)
	}
	return req
}

// Do sends one request and reads the whole answer. A transport error fails the test.
func (c *Client) Do(method string, params map[string]any) *Reply {
	c.t.Helper()
	r, err := c.Try(method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// Try is Do returning transport errors, for use off the test goroutine.
func (c *Client) Try(method string, params map[string]any) (*Reply, error) {
	resp, err := c.HC.Do(c.Request(context.Background(), method, params))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	r := &Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
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
		r.Result, r.Err = m.Result, m.Error
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

// Stream is an open SSE response (subscriptions/listen).
type Stream struct {
	Resp   *http.Response
	Events chan json.RawMessage
	Cancel context.CancelFunc
}

// Listen opens a subscriptions/listen stream; events arrive on the channel, which is
// closed when the stream ends.
func (c *Client) Listen(filter map[string]any) *Stream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.HC.Do(c.Request(ctx, "subscriptions/listen", map[string]any{"notifications": filter}))
	if err != nil {
		cancel()
		c.t.Fatalf("subscriptions/listen: %v", err)
	}
	st := &Stream{Resp: resp, Events: make(chan json.RawMessage, 64), Cancel: cancel}
	go func() {
		defer close(st.Events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				st.Events <- json.RawMessage(d)
			}
		}
	}()
	c.t.Cleanup(cancel)
	return st
}

// Next returns the next event of the stream, or fails the test when it ended.
func (st *Stream) Next(t testing.TB) map[string]any {
	t.Helper()
	ev, ok := <-st.Events
	if !ok {
		t.Fatal("the stream ended before the expected event")
	}
	var m map[string]any
	if err := json.Unmarshal(ev, &m); err != nil {
		t.Fatalf("stream event is not JSON: %q", ev)
	}
	return m
}

// ToolReply is a decoded tools/call result.
type ToolReply struct {
	ResultType    string                     `json:"resultType"`
	Content       []mcpkit.Content           `json:"content"`
	IsError       bool                       `json:"isError"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

// Tool decodes a tools/call result, failing the test on an error or a non-200 status.
func (r *Reply) Tool(t testing.TB) *ToolReply {
	t.Helper()
	if r.Err != nil || r.Status != http.StatusOK {
		t.Fatalf("tools/call: status %d, error %v, body %s", r.Status, r.Err, r.Body)
	}
	var tr ToolReply
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		t.Fatalf("decoding tools/call result %s: %v", r.Result, err)
	}
	return &tr
}

// Text is the text of the result's content.
func (tr *ToolReply) Text() string {
	var s string
	for _, c := range tr.Content {
		s += c.Text
	}
	return s
}
