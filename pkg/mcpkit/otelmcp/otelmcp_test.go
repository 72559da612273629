package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
)

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + clientTrace + "-" + clientSpan + "-01"
	// secret is planted in arguments, prompt arguments and error messages: it must
	// reach no exported attribute, status or metric.
	secret = "sk-live-PLANTED-7f3a9c"
)

type fixture struct {
	t       *otelmcp.Telemetry
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
	s       *mcpkit.Server
}

type echoIn struct {
	Text string `json:"text"`
}

// newFixture is a server with a tool that succeeds, one that fails (isError), one
// that panics and one that reads the baggage, instrumented into in-memory exports.
func newFixture(t *testing.T, o otelmcp.Options) *fixture {
	t.Helper()
	f := &fixture{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader()}
	o.SpanExporter, o.MetricReader = f.spans, f.metrics
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	tel, err := otelmcp.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	f.t = tel
	f.s = mcpkit.NewServer(mcpkit.Implementation{Name: "otel-fixture", Version: "1.0.0"},
		&mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	mcpkit.AddTool(f.s, &mcpkit.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcpkit.Request, in echoIn) (string, error) {
		// A backend call made by the handler: a child of the server span.
		_, span := tel.TracerProvider().Tracer("backend").Start(ctx, "backend call")
		span.End()
		return in.Text, nil
	})
	mcpkit.AddTool(f.s, &mcpkit.Tool{Name: "fail", Description: "fail"}, func(ctx context.Context, req *mcpkit.Request, in echoIn) (*mcpkit.CallToolResult, error) {
		return mcpkit.ToolError("failed on " + in.Text), nil
	})
	mcpkit.AddTool(f.s, &mcpkit.Tool{Name: "explode", Description: "panic"}, func(ctx context.Context, req *mcpkit.Request, in echoIn) (string, error) {
		panic("boom " + in.Text)
	})
	mcpkit.AddTool(f.s, &mcpkit.Tool{Name: "baggage", Description: "baggage"}, func(ctx context.Context, req *mcpkit.Request, in echoIn) (string, error) {
		return baggage.FromContext(ctx).Member("tenant").Value(), nil
	})
	f.s.AddPrompt(&mcpkit.Prompt{Name: "greet", Arguments: []mcpkit.PromptArgument{{Name: "who"}}},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			return nil, errors.New("internal failure for " + args["who"])
		})
	tel.Instrument(f.s)
	return f
}

func (f *fixture) flush(t *testing.T) []tracetest.SpanStub {
	t.Helper()
	if err := f.t.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f.spans.GetSpans()
}

func attrs(kv []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.Emit()
	}
	return m
}

func find(t *testing.T, spans []tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q among %q", name, names)
	return tracetest.SpanStub{}
}

func TestToolCallSpans(t *testing.T) {
	f := newFixture(t, otelmcp.Options{})
	c := mcpkittest.Connect(t, f.s, mcpkit.Revision20260728, nil)
	withTrace := func(args map[string]any) map[string]any {
		p := c.WithMeta(args)
		p["_meta"].(map[string]any)["traceparent"] = traceparent
		return p
	}
	c.Call("tools/call", withTrace(map[string]any{"name": "echo", "arguments": map[string]any{"text": secret}}))
	c.Call("tools/call", withTrace(map[string]any{"name": "fail", "arguments": map[string]any{"text": secret}}))
	c.Request("tools/call", withTrace(map[string]any{"name": "explode", "arguments": map[string]any{"text": secret}}))
	c.Request("tools/call", withTrace(map[string]any{"name": "no-such-tool-" + secret, "arguments": map[string]any{}}))
	c.Request("prompts/get", withTrace(map[string]any{"name": "greet", "arguments": map[string]any{"who": secret}}))
	spans := f.flush(t)

	echo := find(t, spans, "tools/call echo")
	if echo.SpanKind != trace.SpanKindServer {
		t.Errorf("span kind %v, want server", echo.SpanKind)
	}
	if got := echo.Parent.TraceID().String(); got != clientTrace || echo.Parent.SpanID().String() != clientSpan || !echo.Parent.IsRemote() {
		t.Errorf("parent %v: want the client's span %s in trace %s", echo.Parent, clientSpan, clientTrace)
	}
	want := map[string]string{
		"mcp.method.name": "tools/call", "mcp.protocol.version": mcpkit.Revision20260728,
		"jsonrpc.request.id": echoID(t, spans), "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"network.transport": "pipe",
	}
	if d := cmp.Diff(want, attrs(echo.Attributes)); d != "" {
		t.Errorf("echo span attributes (-want +got):\n%s", d)
	}
	if echo.Status.Code != codes.Unset {
		t.Errorf("echo status %v, want unset", echo.Status)
	}
	backend := find(t, spans, "backend call")
	if backend.Parent.SpanID() != echo.SpanContext.SpanID() || backend.SpanContext.TraceID().String() != clientTrace {
		t.Errorf("the handler's backend span is not a child of the server span")
	}

	for _, tc := range []struct {
		name, errType, code string
		status              codes.Code
	}{
		{"tools/call fail", "tool_error", "", codes.Error},
		{"tools/call explode", "-32603", "-32603", codes.Error},
		{"tools/call", "", "-32602", codes.Unset}, // an unknown tool: the caller's mistake, and no target
		{"prompts/get greet", "-32603", "-32603", codes.Error},
	} {
		s := find(t, spans, tc.name)
		a := attrs(s.Attributes)
		if a["error.type"] != tc.errType || a["rpc.response.status_code"] != tc.code || s.Status.Code != tc.status {
			t.Errorf("%s: error.type %q, rpc.response.status_code %q, status %v; want %q, %q, %v",
				tc.name, a["error.type"], a["rpc.response.status_code"], s.Status.Code, tc.errType, tc.code, tc.status)
		}
	}

	// The operation metric: one histogram point per tool outcome.
	var rm metricdata.ResourceMetrics
	if err := f.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	points := histogramPoints(t, rm, "mcp.server.operation.duration")
	got := map[string]uint64{}
	for _, p := range points {
		a := map[string]string{}
		for _, kv := range p.Attributes.ToSlice() {
			a[string(kv.Key)] = kv.Value.Emit()
		}
		got[a["mcp.method.name"]+" "+a["gen_ai.tool.name"]+a["gen_ai.prompt.name"]+" "+a["error.type"]] += p.Count
		if _, ok := a["jsonrpc.request.id"]; ok {
			t.Errorf("the metric carries jsonrpc.request.id, a per-request value: %v", a)
		}
	}
	wantPoints := map[string]uint64{
		"tools/call echo ": 1, "tools/call fail tool_error": 1, "tools/call explode -32603": 1,
		"tools/call  ": 1, "prompts/get greet -32603": 1,
	}
	if d := cmp.Diff(wantPoints, got); d != "" {
		t.Errorf("mcp.server.operation.duration points (-want +got):\n%s", d)
	}

	assertNoSecret(t, spans, rm)
}

// echoID is the JSON-RPC id the first tools/call went out with (the ids count up).
func echoID(t *testing.T, spans []tracetest.SpanStub) string {
	for _, s := range spans {
		if s.Name == "tools/call echo" {
			return attrs(s.Attributes)["jsonrpc.request.id"]
		}
	}
	return ""
}

func histogramPoints(t *testing.T, rm metricdata.ResourceMetrics, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				if m.Unit != "s" {
					t.Errorf("%s unit %q, want s", name, m.Unit)
				}
				return m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// assertNoSecret searches everything exported for the planted secret.
func assertNoSecret(t *testing.T, spans []tracetest.SpanStub, rm metricdata.ResourceMetrics) {
	t.Helper()
	b, err := json.Marshal(spans)
	if err != nil {
		t.Fatal(err)
	}
	m, err := json.Marshal(rm)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) || bytes.Contains(m, []byte(secret)) {
		t.Errorf("a planted secret reached the exported telemetry")
	}
}

func TestBaggageAndHTTPHeaderParent(t *testing.T) {
	f := newFixture(t, otelmcp.Options{})
	srv := httptest.NewServer(f.t.Handler(f.s.HTTPHandler(nil)))
	defer srv.Close()
	c := mcpkittest.Connect(t, mcpkit.NewServer(mcpkit.Implementation{Name: "x", Version: "1"}, nil), mcpkit.Revision20260728, nil)
	// No traceparent in _meta: the HTTP header's is the parent, with its baggage.
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": c.WithMeta(map[string]any{"name": "baggage", "arguments": map[string]any{"text": "x"}})})
	req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "baggage")
	req.Header.Set("Mcp-Protocol-Version", mcpkit.Revision20260728)
	req.Header.Set("traceparent", traceparent)
	req.Header.Set("baggage", "tenant=acme")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(out), "acme") {
		t.Errorf("the handler did not see the baggage: %s", out)
	}
	s := find(t, f.flush(t), "tools/call baggage")
	if s.Parent.TraceID().String() != clientTrace || s.Parent.SpanID().String() != clientSpan {
		t.Errorf("parent %v, want the traceparent header's span", s.Parent)
	}
	if a := attrs(s.Attributes); a["network.transport"] != "tcp" || a["network.protocol.name"] != "http" {
		t.Errorf("transport attributes %v, want tcp over http", a)
	}
}

func TestNotificationsAndSessions(t *testing.T) {
	f := newFixture(t, otelmcp.Options{})
	t.Run("session", func(t *testing.T) {
		c := mcpkittest.Connect(t, f.s, "2025-11-25", nil)
		c.Notify("notifications/roots/list_changed", map[string]any{"_meta": map[string]any{"traceparent": traceparent}})
		c.Call("ping", nil) // answered after the notification: it has been acted on
	}) // the subtest's cleanup ends the stdio session
	s := find(t, f.flush(t), "notifications/roots/list_changed")
	if s.SpanKind != trace.SpanKindServer || s.Parent.TraceID().String() != clientTrace {
		t.Errorf("notification span kind %v parent %v: want a server span in the client's trace", s.SpanKind, s.Parent)
	}
	if a := attrs(s.Attributes); a["mcp.protocol.version"] != "2025-11-25" || a["network.transport"] != "pipe" {
		t.Errorf("notification span attributes %v", a)
	}
	var rm metricdata.ResourceMetrics
	if err := f.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var sessions uint64
	for _, p := range histogramPoints(t, rm, "mcp.server.session.duration") {
		sessions += p.Count
		if v, _ := p.Attributes.Value("mcp.protocol.version"); v.Emit() != "2025-11-25" {
			t.Errorf("session point without the negotiated version: %v", p.Attributes)
		}
	}
	if sessions != 1 {
		t.Errorf("%d session durations recorded, want 1", sessions)
	}
}

func TestToolArgumentsOptIn(t *testing.T) {
	f := newFixture(t, otelmcp.Options{RecordToolArguments: true})
	c := mcpkittest.Connect(t, f.s, mcpkit.Revision20260728, nil)
	c.CallTool("echo", map[string]any{"text": "visible"})
	a := attrs(find(t, f.flush(t), "tools/call echo").Attributes)
	if a["gen_ai.tool.call.arguments"] != `{"text":"visible"}` {
		t.Errorf("gen_ai.tool.call.arguments = %q with the opt-in", a["gen_ai.tool.call.arguments"])
	}
}

// blockingExporter holds every export until released: a collector that does not answer.
type blockingExporter struct {
	release chan struct{}
	once    sync.Once
}

func (b *blockingExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return errors.New("collector unreachable")
}
func (b *blockingExporter) Shutdown(context.Context) error { return nil }

func TestStuckCollectorDropsAndCounts(t *testing.T) {
	exp := &blockingExporter{release: make(chan struct{})}
	var logs bytes.Buffer
	var mu sync.Mutex
	tel, err := otelmcp.New(otelmcp.Options{SpanExporter: exp, QueueSize: 8, BatchSize: 1,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	tr := tel.TracerProvider().Tracer("t")
	const n = 100
	for range n { // never blocks: the exporter is stuck, the queue is bounded
		_, s := tr.Start(context.Background(), "work")
		s.End()
	}
	full, _ := tel.Dropped()
	if full < n-8-2 {
		t.Errorf("%d spans dropped for a full queue, want at least %d", full, n-8-2)
	}
	close(exp.release)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, failed := tel.Dropped()
	mu.Lock()
	line := logs.String()
	mu.Unlock()
	if failed == 0 || !strings.Contains(line, "OpenTelemetry spans dropped") || !strings.Contains(line, "queue_full=") {
		t.Errorf("export failures %d, log %q: want the drops counted in a log line", failed, line)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestTaskWorkUnderTheCallSpan: a call answered as a task (Tasks extension) goes on
// working after its server span has ended; what the work does is still under that
// span, in the client's trace.
func TestTaskWorkUnderTheCallSpan(t *testing.T) {
	f := newFixture(t, otelmcp.Options{})
	release, finished := make(chan struct{}), make(chan struct{})
	mcpkit.AddTool(f.s, &mcpkit.Tool{Name: "slow", Description: "slow", TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in echoIn) (string, error) {
			req.StartTask()
			<-release
			_, span := f.t.TracerProvider().Tracer("backend").Start(ctx, "task work")
			span.End()
			close(finished)
			return "done", nil
		})
	c := mcpkittest.Connect(t, f.s, mcpkit.Revision20260728, &mcpkittest.Options{
		Capabilities: map[string]any{"extensions": map[string]any{mcpkit.ExtensionTasks: map[string]any{}}}})
	p := c.WithMeta(map[string]any{"name": "slow", "arguments": map[string]any{"text": "x"}})
	p["_meta"].(map[string]any)["traceparent"] = traceparent
	res := c.Call("tools/call", p)
	if !strings.Contains(string(res), `"task"`) {
		t.Fatalf("not answered as a task: %s", res)
	}
	close(release)
	<-finished
	spans := f.flush(t)
	call := find(t, spans, "tools/call slow")
	work := find(t, spans, "task work")
	if work.Parent.SpanID() != call.SpanContext.SpanID() || work.SpanContext.TraceID().String() != clientTrace {
		t.Errorf("the task's work is not under the call's span")
	}
}
