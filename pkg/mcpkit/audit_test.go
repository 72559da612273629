package mcpkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// syncBuffer is a log destination safe to read while handlers write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestAuditLinePerRequest(t *testing.T) {
	token := "audit-token-" + strings.Repeat("z", 32)
	st, err := auth.ParseStaticTokens(token + " alice mcp,notes:write")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	o := &serve.Options{Auth: &auth.Options{Verifier: st}}
	endpoint, _, entered := remotetest.HoldServiceWith(t, o, func(srv *mcpkit.Server) {
		srv.Observe(mcpkit.Audit(slog.New(slog.NewJSONHandler(logs, nil))))
	})
	c := remotetest.NewClient(t, endpoint)
	c.Token = token
	const secret = "SECRET-ARGUMENT-VALUE"
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

	type call struct {
		method string
		params map[string]any
	}
	calls := []call{
		{"tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}, "_meta": map[string]any{"traceparent": traceparent}}},
		{"tools/call", map[string]any{"name": "write_note", "arguments": map[string]any{"text": secret}}},
		{"tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": secret}}},
		{"tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}},
		{"tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}}},
		{"tools/list", nil},
	}
	var sizes []float64
	for _, cl := range calls {
		r := c.Do(cl.method, cl.params)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: status %d %s", cl.method, r.Status, r.Body)
		}
		sizes = append(sizes, float64(len(r.Body)))
	}
	// A call the client abandons is audited as cancelled, with nothing sent.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.HC.Do(c.Request(ctx, "tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}}))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cancel()
	<-done

	want := []map[string]any{
		{"method": "tools/call", "name": "add", "subject": "alice", "issuer": "static", "outcome": "ok", "bytes": sizes[0], "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"},
		{"method": "tools/call", "name": "write_note", "subject": "alice", "issuer": "static", "outcome": "ok", "bytes": sizes[1]},
		{"method": "tools/call", "name": "add", "subject": "alice", "issuer": "static", "outcome": "isError", "bytes": sizes[2]},
		{"method": "tools/call", "name": "no_such_tool", "subject": "alice", "issuer": "static", "outcome": "error", "bytes": sizes[3], "code": float64(mcpkit.CodeInvalidParams)},
		{"method": "tools/call", "name": "confirm", "subject": "alice", "issuer": "static", "outcome": "input_required", "bytes": sizes[4]},
		{"method": "tools/list", "subject": "alice", "issuer": "static", "outcome": "ok", "bytes": sizes[5]},
		{"method": "tools/call", "name": "hold", "subject": "alice", "issuer": "static", "outcome": "cancelled", "bytes": float64(0)},
	}
	// The cancelled call's line is written when its handler returns: wait for it.
	var got []map[string]any
	for i := 0; ; i++ {
		got = logs.lines()
		if len(got) >= len(want) || i == 500 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range got {
		if l["msg"] != "mcp request" || l["level"] != "INFO" {
			t.Errorf("unexpected line %v", l)
		}
		if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("line without a duration: %v", l)
		}
		for _, k := range []string{"time", "level", "msg", "duration_ms"} {
			delete(l, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	if out := logs.String(); strings.Contains(out, secret) || strings.Contains(out, token) {
		t.Errorf("the audit log contains an argument or the token:\n%s", out)
	}
}

func TestParseTraceparent(t *testing.T) {
	tests := []struct {
		in   string
		want mcpkit.TraceContext
		ok   bool
	}{
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", mcpkit.TraceContext{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7", Sampled: true}, true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", mcpkit.TraceContext{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7"}, true},
		{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", mcpkit.TraceContext{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7", Sampled: true}, true},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", mcpkit.TraceContext{}, false},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", mcpkit.TraceContext{}, false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", mcpkit.TraceContext{}, false},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", mcpkit.TraceContext{}, false},
		{"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", mcpkit.TraceContext{}, false},
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", mcpkit.TraceContext{}, false},
		{"", mcpkit.TraceContext{}, false},
		{"00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01", mcpkit.TraceContext{}, false},
	}
	for _, tt := range tests {
		got, ok := mcpkit.ParseTraceparent(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseTraceparent(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
