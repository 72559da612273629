package benchcmp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTPConn posts requests to a Streamable HTTP endpoint over keep-alive
// connections, with the headers a 2026-07-28 request needs.
type HTTPConn struct {
	url    string
	client *http.Client
	header http.Header
}

// NewHTTPConn prepares posts of call to url. For Modern it sets
// MCP-Protocol-Version, Mcp-Method and Mcp-Name, which the revision requires to
// match the body.
func NewHTTPConn(url string, call *ToolCall) *HTTPConn {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if call.Revision == Modern {
		h.Set("MCP-Protocol-Version", Modern)
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", call.Name)
	}
	return &HTTPConn{
		url:    url,
		header: h,
		client: &http.Client{
			Timeout: 30 * time.Second,
			Transport: &http.Transport{
				MaxIdleConns:        1024,
				MaxIdleConnsPerHost: 1024,
				IdleConnTimeout:     time.Minute,
				DisableCompression:  true,
			},
		},
	}
}

// Post sends body and returns the JSON-RPC response: the body of a JSON answer, or
// the last data line of an SSE answer. A status other than 200 is an error carrying
// the body.
func (c *HTTPConn) Post(body []byte) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxLine))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, out)
	}
	if ct := resp.Header.Get("Content-Type"); len(ct) >= 17 && ct[:17] == "text/event-stream" {
		return lastSSEResponse(out)
	}
	return out, nil
}

// SetHeader adds a header to every request (Authorization, say).
func (c *HTTPConn) SetHeader(key, value string) { c.header.Set(key, value) }

// CloseIdle drops the idle keep-alive connections.
func (c *HTTPConn) CloseIdle() { c.client.CloseIdleConnections() }

// lastSSEResponse returns the data of the last SSE event that is a response.
func lastSSEResponse(stream []byte) ([]byte, error) {
	var last []byte
	for _, line := range bytes.Split(stream, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			if isResponse(data) {
				last = data
			}
		}
	}
	if last == nil {
		return nil, fmt.Errorf("no response event in the SSE answer: %q", stream)
	}
	return last, nil
}
