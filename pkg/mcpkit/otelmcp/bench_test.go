package otelmcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// BenchmarkToolCallTelemetry times a tools/call round trip over an in-memory stdio
// pipe without telemetry ("off": no middleware, nothing running) and with it
// ("on": a server span per call with the client's traceparent, the duration
// histogram, and the spans exported over OTLP/HTTP to a local collector stand-in
// that reads and discards them). It reports the median call (p50-ns), the
// number the issue asks for beside ns/op; the difference of the two p50s is what
// tracing adds to a call.
func BenchmarkToolCallTelemetry(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			s := mcpkit.NewServer(mcpkit.Implementation{Name: "bench", Version: "1"}, &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "add"}, func(ctx context.Context, req *mcpkit.Request, in addIn) (int, error) {
				return in.A + in.B, nil
			})
			if mode == "on" {
				collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					w.WriteHeader(http.StatusOK)
				}))
				defer collector.Close()
				exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
				if err != nil {
					b.Fatal(err)
				}
				tel, err := otelmcp.New(otelmcp.Options{SpanExporter: exp, MetricReader: sdkmetric.NewManualReader(),
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					b.Fatal(err)
				}
				defer tel.Shutdown(context.Background())
				tel.Instrument(s)
			}
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { _ = s.ServeStdio(ctx, sr, sw); close(done) }()
			defer func() { cw.Close(); cancel(); <-done }()
			br := bufio.NewReader(cr)
			lat := make([]time.Duration, 0, 1<<16)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`+"\n", i, i)
				t0 := time.Now()
				if _, err := io.WriteString(cw, line); err != nil {
					b.Fatal(err)
				}
				resp, err := br.ReadBytes('\n')
				if err != nil {
					b.Fatal(err)
				}
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
				if resp[len(resp)-2] != '}' {
					b.Fatalf("answer: %s", resp)
				}
			}
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			}
		})
	}
}
