package mcpkit

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

type discardStream struct{}

func (discardStream) write([]byte) error { return nil }

// FuzzDecodeAndDispatch feeds arbitrary bytes through decoding and dispatch, in both
// eras, and checks that every answer is one valid JSON-RPC message and that nothing
// panics or hangs. The seed corpus lives in testdata/fuzz/FuzzDecodeAndDispatch.
func FuzzDecodeAndDispatch(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","requestState":"e30.AAAA","inputResponses":{"a":{}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"id":null}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	s := NewServer(Implementation{Name: "fuzz", Version: "1"}, &ServerOptions{Logger: discardLogger()})
	AddTool(s, &Tool{Name: "echo", Annotations: ReadOnly()}, func(ctx context.Context, req *Request, in struct {
		Text string `json:"text,omitempty"`
	}) (map[string]string, error) {
		return map[string]string{"text": in.Text}, nil
	})
	f.Fuzz(func(t *testing.T, data []byte, legacy bool) {
		m, derr := decodeMessage(data)
		if derr != nil {
			var id ID
			if m != nil {
				id = m.ID
			}
			mustBeJSON(t, encodeResponse(id, nil, derr))
			return
		}
		if !m.isRequest() {
			return
		}
		var sess *session
		if legacy {
			sess = newSession(s, "")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		resp := s.handle(ctx, incoming{msg: m, sess: sess, out: discardStream{}}).msg
		if resp == nil {
			t.Fatalf("no response to a request that was not cancelled: %q", data)
		}
		mustBeJSON(t, resp)
	})
}

func mustBeJSON(t *testing.T, b []byte) {
	t.Helper()
	var v struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.JSONRPC != "2.0" {
		t.Fatalf("answer is not a JSON-RPC message: %q (%v)", b, err)
	}
}
