package redisstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/benchcmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
)

// BenchmarkTaskRoundTrip times tasks over in-memory stdio with the tasks kept in
// this process's memory or in Redis (a local redis-server), to show what the shared
// store costs: "create" is a tools/call answered with CreateTaskResult (the tool
// starts a task at once and returns: the state is written, then its outcome);
// "get" is one tasks/get of a completed task (one read); "roundtrip" is a create
// followed by tasks/get until the task is completed (polls/op says how many).
func BenchmarkTaskRoundTrip(b *testing.B) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},` + meta + "}}\n")
	getLine := func(id string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q,%s}}`+"\n", id, meta))
	}
	for _, store := range []string{"memory", "redis"} {
		setup := func(b *testing.B) (*benchcmp.LineConn, func()) {
			// The memory store is made large enough to keep every task the benchmark creates.
			opts := &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TaskStore: mcpkit.NewMemoryTaskStore(1 << 24)}
			var closeStore func() error
			if store == "redis" {
				st, err := redisstore.FromURL(redistest.Start(b))
				if err != nil {
					b.Fatal(err)
				}
				closeStore = st.(*redisstore.Store).Close
				opts.TaskStore = st
			}
			s := mcpkit.NewServer(mcpkit.Implementation{Name: "bench", Version: "1"}, opts)
			mcpkit.AddTool(s, &mcpkit.Tool{Name: "job", Description: "A task at once.", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskOptional},
				func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
					req.StartTask()
					return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("done")}}, nil
				})
			conn, stop := serve(b, s)
			return conn, func() {
				stop()
				if closeStore != nil {
					_ = closeStore()
				}
			}
		}
		create := func(b *testing.B, conn *benchcmp.LineConn) string {
			resp, err := conn.RoundTrip(call)
			var r struct {
				Result struct{ TaskID string } `json:"result"`
			}
			if err != nil || json.Unmarshal(resp, &r) != nil || r.Result.TaskID == "" {
				b.Fatalf("tools/call: %s %v", resp, err)
			}
			return r.Result.TaskID
		}
		waitDone := func(b *testing.B, conn *benchcmp.LineConn, id string) int {
			get := getLine(id)
			for polls := 1; ; polls++ {
				resp, err := conn.RoundTrip(get)
				if err != nil {
					b.Fatal(err)
				}
				if bytes.Contains(resp, []byte(`"status":"completed"`)) {
					return polls
				}
			}
		}
		b.Run(store+"/create", func(b *testing.B) {
			conn, stop := setup(b)
			defer stop()
			b.ReportAllocs()
			for b.Loop() {
				create(b, conn)
			}
		})
		b.Run(store+"/get", func(b *testing.B) {
			conn, stop := setup(b)
			defer stop()
			id := create(b, conn)
			waitDone(b, conn, id)
			get := getLine(id)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := conn.RoundTrip(get)
				if err != nil || !bytes.Contains(resp, []byte(`"status":"completed"`)) {
					b.Fatalf("tasks/get: %s %v", resp, err)
				}
			}
		})
		b.Run(store+"/roundtrip", func(b *testing.B) {
			conn, stop := setup(b)
			defer stop()
			polls := 0
			b.ReportAllocs()
			for b.Loop() {
				polls += waitDone(b, conn, create(b, conn))
			}
			b.ReportMetric(float64(polls)/float64(b.N), "polls/op")
		})
	}
}

func serve(b *testing.B, s *mcpkit.Server) (*benchcmp.LineConn, func()) {
	conn, stop := benchcmp.Pipe(func(r io.Reader, w io.Writer) error { return s.ServeStdio(context.Background(), r, w) })
	return conn, func() { _ = stop() }
}
