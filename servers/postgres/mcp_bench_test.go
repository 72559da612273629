package postgres

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Benchmarks of the query tool end to end: a JSON-RPC request written to the
// server's stdin (an OS pipe, as a host uses), the tool call (read-only transaction,
// gate, caps, JSON encoding) and the response read back from its stdout. Run with
// make bench, or: go test -run '^$' -bench 'QueryTool' -benchmem

// stdioClient is a bare JSON-RPC client on a server's stdio, without mcpkittest's
// schema validation, so the benchmark measures the server and not the checker.
type stdioClient struct {
	w    *os.File
	r    *bufio.Reader
	id   int
	meta json.RawMessage
	buf  []byte
}

func newStdioClient(b *testing.B, s *mcpkit.Server) *stdioClient {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.ServeStdio(ctx, inR, outW)
	}()
	b.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		inR.Close()
		outW.Close()
		outR.Close()
	})
	meta, _ := json.Marshal(map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mcpkit.Revision20260728,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "bench", "version": "1"},
	})
	return &stdioClient{w: inW, r: bufio.NewReaderSize(outR, 1<<20), meta: meta}
}

// callTool sends one tools/call and returns the response line.
func (c *stdioClient) callTool(b *testing.B, arguments []byte) []byte {
	c.id++
	c.buf = append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	c.buf = strconv.AppendInt(c.buf, int64(c.id), 10)
	c.buf = append(c.buf, `,"method":"tools/call","params":{"name":"query","arguments":`...)
	c.buf = append(c.buf, arguments...)
	c.buf = append(c.buf, `,"_meta":`...)
	c.buf = append(c.buf, c.meta...)
	c.buf = append(c.buf, "}}\n"...)
	if _, err := c.w.Write(c.buf); err != nil {
		b.Fatal(err)
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkQueryToolVsPgx alternates the same one-row statement through the query
// tool over stdio and through pgx directly (the same pool), and reports both times
// and their ratio: the whole cost of going through this server, protocol included.
// Alternating keeps the ratio fair on a machine whose load changes during the run.
func BenchmarkQueryToolVsPgx(b *testing.B) {
	db := benchDB(b, Options{})
	c := newStdioClient(b, newServer(db, Config{}))
	args, _ := json.Marshal(map[string]any{"sql": oneRowSQL})
	ctx := context.Background()
	if line := c.callTool(b, args); !bytes.Contains(line, []byte(`"rows":[[42,"hello"]]`)) {
		b.Fatalf("unexpected response: %s", line)
	}
	var tool, direct time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		line := c.callTool(b, args)
		t1 := time.Now()
		var n int32
		var s string
		if err := db.Pool().QueryRow(ctx, oneRowSQL).Scan(&n, &s); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if bytes.Contains(line, []byte(`"isError":true`)) {
			b.Fatalf("tool error: %s", line)
		}
		tool += t1.Sub(t0)
		direct += t2.Sub(t1)
	}
	b.ReportMetric(float64(tool.Nanoseconds())/float64(b.N), "tool-ns/op")
	b.ReportMetric(float64(direct.Nanoseconds())/float64(b.N), "pgx-ns/op")
	b.ReportMetric(float64(tool)/float64(direct), "tool/pgx")
}

// BenchmarkQueryToolCapped10M asks the query tool over stdio for 10 million rows
// with the default 1000-row cap: the server stops at the cap, so each call costs
// 1000 rows (read, encoded as JSON twice: text and structuredContent, and sent).
// Reports rows/s delivered and the response size.
func BenchmarkQueryToolCapped10M(b *testing.B) {
	db := benchDB(b, Options{})
	c := newStdioClient(b, newServer(db, Config{}))
	args, _ := json.Marshal(map[string]any{"sql": "SELECT generate_series(1, 10000000) AS n, 'row' AS label"})
	rows, size := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		line := c.callTool(b, args)
		if !bytes.Contains(line, []byte(`"truncated":true`)) {
			b.Fatalf("not truncated: %.300s", line)
		}
		rows += DefaultMaxRows
		size = len(line)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size), "response-bytes")
}
