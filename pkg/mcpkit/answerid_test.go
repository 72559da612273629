package mcpkit_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMalformedRequestsAreAnsweredUnderTheirID: a message with an id but no method,
// result or error, and a message over the size limit, are answered -32600 under the
// id they carry (wherever the client wrote it), on stdio and HTTP, at both revisions,
// so the client's call gets an answer it can match.
func TestMalformedRequestsAreAnsweredUnderTheirID(t *testing.T) {
	big := strings.Repeat("a", 1<<17) // over quietServer's 64 KiB limit
	lines := []struct {
		name, line string
		id         any
	}{
		{"id alone", `{"jsonrpc":"2.0","id":5}`, float64(5)},
		{"id with params only", `{"jsonrpc":"2.0","id":"s","params":{}}`, "s"},
		{"oversized, id first", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"add","arguments":{"a":"` + big + `"}}}`, float64(11)},
		{"oversized, id last", `{"method":"tools/call","params":{"name":"add","arguments":{"a":"` + big + `"}},"jsonrpc":"2.0","id":"last"}`, "last"},
	}
	type answer struct {
		ID   any
		Code int
	}
	decode := func(t *testing.T, b []byte) answer {
		t.Helper()
		var m struct {
			ID    any `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Error == nil {
			t.Fatalf("want an error response, got %q (%v)", b, err)
		}
		return answer{m.ID, m.Error.Code}
	}
	initialize := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

	for _, legacy := range []bool{false, true} {
		era := map[bool]string{false: "2026-07-28", true: "2025-11-25"}[legacy]
		t.Run("stdio/"+era, func(t *testing.T) {
			c := dialRaw(t, quietServer())
			if legacy {
				c.send(initialize)
				c.next()
				c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for _, l := range lines {
				c.send(l.line)
				m := c.next()
				b, _ := json.Marshal(m)
				if diff := cmp.Diff(answer{l.id, -32600}, decode(t, b)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", l.name, diff)
				}
			}
		})
		t.Run("http/"+era, func(t *testing.T) {
			srv := httptest.NewServer(quietServer().HTTPHandler(nil))
			defer srv.Close()
			h := modernHeaders("tools/call", "add")
			if legacy {
				resp := post(t, srv.URL, initialize, nil)
				resp.Body.Close()
				h = map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
			}
			for _, l := range lines {
				if l.name == "oversized, id last" {
					continue // HTTP answers on the POST itself; only the head of the body is read
				}
				resp := post(t, srv.URL, l.line, h)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusRequestEntityTooLarge {
					t.Errorf("%s: status %d", l.name, resp.StatusCode)
				}
				if diff := cmp.Diff(answer{l.id, -32600}, decode(t, body)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", l.name, diff)
				}
			}
		})
	}
}
