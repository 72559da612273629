package errorserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// rawStdio is a minimal 2026-07-28 client on an in-memory stdio pipe: it writes one
// request line and reads one response line, so a benchmark measures the server (JSON
// decoding, argument validation, the backend, encoding) and not a test harness's
// schema validation.
type rawStdio struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func newRawStdio(b *testing.B, backend backend.Backend) *rawStdio {
	b.Helper()
	s := New(Config{Logger: quietLogger}, backend)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeStdio(ctx, sr, sw)
		sw.Close()
	}()
	b.Cleanup(func() { cw.Close(); cancel(); <-done })
	return &rawStdio{w: cw, r: bufio.NewReaderSize(cr, 1<<20)}
}

// call sends tools/call and returns the response line.
func (c *rawStdio) call(b *testing.B, tool string, args []byte) []byte {
	c.id++
	line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", c.id, tool, args)
	if _, err := c.w.Write(line); err != nil {
		b.Fatal(err)
	}
	resp, err := c.r.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// BenchmarkSearchIssuesMCP measures search_issues through the whole MCP server on
// stdio over the bench store (1,000,000 events in 1,000 issues): one op is one
// tools/call request line in and its response line out. Compare with
// BenchmarkSearchIssues (the backend alone) for the cost of the protocol layer.
func BenchmarkSearchIssuesMCP(b *testing.B) {
	store, err := OpenLocal(LocalConfig{DataDir: benchStoreDir(b), ReadOnly: true, Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	c := newRawStdio(b, store)
	for _, q := range []struct {
		name string
		args map[string]any
	}{
		{"default", map[string]any{}},
		{"freq_level_env", map[string]any{"query": "is:unresolved level:error environment:production", "sort": "freq"}},
		{"free_text", map[string]any{"query": "operation 42"}},
		{"tag_negation_window", map[string]any{"query": "!region:eu tenant:t7", "statsPeriod": "24h", "sort": "user"}},
		{"limit_100", map[string]any{"sort": "new", "limit": 100}},
	} {
		b.Run(q.name, func(b *testing.B) {
			args, _ := json.Marshal(q.args)
			first := c.call(b, ToolSearchIssues, args)
			var resp struct {
				Result struct {
					IsError           bool              `json:"isError"`
					StructuredContent backend.IssueList `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(first, &resp); err != nil || resp.Result.IsError || !bytes.Contains(first, []byte(`"issues":[`)) {
				b.Fatalf("search_issues %s: %s (%v)", args, first, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.call(b, ToolSearchIssues, args)
			}
			b.ReportMetric(float64(len(first)), "resp_bytes")
			b.ReportMetric(float64(len(resp.Result.StructuredContent.Issues)), "issues")
		})
	}
}
