package mcpkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// rawConn drives ServeStdio with raw lines, to send what no well-behaved client would.
type rawConn struct {
	t    *testing.T
	w    *io.PipeWriter
	r    *bufio.Scanner
	done chan error
}

func dialRaw(t *testing.T, s *mcpkit.Server) *rawConn {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), sr, sw); _ = sw.Close() }()
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	c := &rawConn{t: t, w: cw, r: sc, done: done}
	t.Cleanup(func() { _ = cw.Close() })
	return c
}

func (c *rawConn) send(line string) { _, _ = io.WriteString(c.w, line+"\n") }

// next reads the next message, failing the test after 5 s.
func (c *rawConn) next() map[string]any {
	c.t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		if c.r.Scan() {
			var m map[string]any
			_ = json.Unmarshal(c.r.Bytes(), &m)
			got <- m
			return
		}
		got <- nil
	}()
	select {
	case m := <-got:
		if m == nil {
			c.t.Fatal("stream ended")
		}
		return m
	case <-time.After(5 * time.Second):
		c.t.Fatal("no message within 5s")
		return nil
	}
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	return int(e["code"].(float64))
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestBadInputGetsTheSpecErrorAndTheServerKeepsServing(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{MaxMessageBytes: 1 << 16})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	c := dialRaw(t, s)
	tests := []struct {
		name string
		line string
		code int
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":1,`, mcpkit.CodeParseError},
		{"not an object", `42`, mcpkit.CodeInvalidRequest},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}]`, mcpkit.CodeInvalidRequest},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`, mcpkit.CodeInvalidRequest},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, mcpkit.CodeInvalidRequest},
		{"id is an object", `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`, mcpkit.CodeInvalidRequest},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}`, mcpkit.CodeInvalidRequest},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"nope/nope","params":{` + meta + `}}`, mcpkit.CodeMethodNotFound},
		{"removed method ping", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`, mcpkit.CodeMethodNotFound},
		{"missing _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, mcpkit.CodeInvalidParams},
		{"missing clientCapabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, mcpkit.CodeInvalidParams},
		{"wrong type of version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}}}}`, mcpkit.CodeInvalidParams},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, mcpkit.CodeUnsupportedProtocolVersion},
		{"wrong argument type", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"1","b":2},` + meta + `}}`, 0},
		{"arguments not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":[1,2],` + meta + `}}`, mcpkit.CodeInvalidParams},
		{"bad cursor", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"zzz",` + meta + `}}`, mcpkit.CodeInvalidParams},
		{"oversized", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 1<<17) + `"}}`, mcpkit.CodeInvalidRequest},
		{"deeply nested beyond the decoder's limit", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"n":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `},` + meta + `}}`, mcpkit.CodeParseError},
		{"deeply nested within it", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"n":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `},` + meta + `}}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.send(tt.line)
			m := c.next()
			if got := errCode(m); got != tt.code {
				t.Errorf("error code = %d, want %d; message %v", got, tt.code, m)
			}
			if tt.code == 0 {
				if r, _ := m["result"].(map[string]any); r == nil || r["isError"] != true {
					t.Errorf("want a tool result with isError, got %v", m)
				}
			}
			// The server still answers a good request.
			c.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},` + meta + `}}`)
			if m := c.next(); m["id"] != "after" || errCode(m) != 0 {
				t.Fatalf("server did not recover: %v", m)
			}
		})
	}
}

func TestIDReusedInFlight(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	release := make(chan struct{})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "wait", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		<-release
		return addOut{}, nil
	})
	c := dialRaw(t, s)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait",` + meta + `}}`
	c.send(call)
	time.Sleep(50 * time.Millisecond) // let the first request start; correctness does not depend on it
	c.send(call)
	m := c.next()
	if errCode(m) != mcpkit.CodeInvalidRequest {
		t.Fatalf("reused id: want -32600, got %v", m)
	}
	close(release)
	if m := c.next(); errCode(m) != 0 {
		t.Fatalf("first request: %v", m)
	}
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	started := make(chan struct{})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "block", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		close(started)
		<-ctx.Done()
		return addOut{}, ctx.Err()
	})
	c := dialRaw(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block",` + meta + `}}`)
	<-started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	if m := c.next(); m["id"] != float64(2) {
		t.Fatalf("want only the response to id 2 (the cancelled call must not answer), got %v", m)
	}
}

func TestStdinClosedMidRequestExitsPromptly(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	started := make(chan struct{})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "block", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		close(started)
		<-ctx.Done()
		return addOut{}, ctx.Err()
	})
	c := dialRaw(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block",` + meta + `}}`)
	<-started
	_ = c.w.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("ServeStdio returned %v, want nil on EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit within 5s of stdin closing")
	}
}

func TestPanicInHandlerIsAnInternalError(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "boom", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		panic("boom")
	})
	c := dialRaw(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom",` + meta + `}}`)
	if m := c.next(); errCode(m) != mcpkit.CodeInternalError {
		t.Fatalf("want -32603, got %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	if m := c.next(); errCode(m) != 0 {
		t.Fatalf("server did not survive the panic: %v", m)
	}
}
