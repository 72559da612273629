package mcpkit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// BenchmarkTaskSupportOverhead times the tools/call round trip of a fast typed tool
// (in memory, as BenchmarkToolCall's memory/mcpkit) with and without task support, to
// show what the Tasks extension adds to a plain call: a tool that is never a task
// (the baseline), a TaskOptional tool called by a client without the extension
// (one capability lookup), and the same tool called by a client that declared it,
// which is answered inline because it ends within the budget (the handler runs on
// a goroutine of its own, raced against the budget's timer).
func BenchmarkTaskSupportOverhead(b *testing.B) {
	for _, c := range []struct {
		name    string
		support mcpkit.TaskSupport
		ext     bool
	}{
		{"plain", mcpkit.TaskForbidden, false},
		{"optional-without-extension", mcpkit.TaskOptional, false},
		{"optional-with-extension-inline", mcpkit.TaskOptional, true},
		{"plain-with-extension", mcpkit.TaskForbidden, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := mcpkit.NewServer(mcpkit.Implementation{Name: "bench", Version: "1.0.0"},
				&mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "Adds two integers.", Annotations: mcpkit.ReadOnly(), TaskSupport: c.support},
				func(ctx context.Context, req *mcpkit.Request, in benchAddIn) (benchAddOut, error) {
					return benchAddOut{Sum: in.A + in.B}, nil
				})
			conn, stop := memoryServerOf(b, s)
			defer stop()
			line := toolCallLine(c.ext)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp, err := conn.RoundTrip(line)
				checkAnswer(b, resp, err)
				if bytes.Contains(resp, []byte(`"taskId"`)) {
					b.Fatalf("a fast call became a task: %s", resp)
				}
			}
		})
	}
}

// toolCallLine is a 2026-07-28 tools/call of add, declaring the Tasks extension or not.
func toolCallLine(ext bool) []byte {
	caps := `{}`
	if ext {
		caps = `{"extensions":{"` + mcpkit.ExtensionTasks + `":{}}}`
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`+"\n", caps))
}
