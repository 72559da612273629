package errorserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
)

// recordedAt is after the recordings in ingest/testdata/sdk were made: the store's
// clock in the trace tool tests, so their windows hold whenever the tests run.
var recordedAt = time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)

// recordedStore is a store fed with the recorded @sentry/node and sentry-python
// envelopes (node as project 7, python as project 8).
func recordedStore(t *testing.T) *LocalStore {
	t.Helper()
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) {
		c.PublicKeys = append(c.PublicKeys, recordingKey)
		c.Now = func() time.Time { return recordedAt }
	})
	t.Cleanup(func() { store.Close() })
	srv, _ := startIngest(t, store)
	for name, envs := range recordings(t) {
		if name != "node-11.12.0" && name != "python-2.68.0" {
			continue
		}
		project := map[bool]string{true: "7", false: "8"}[strings.HasPrefix(name, "node")]
		for _, body := range envs {
			if code, resp := postEnvelopeKey(t, srv.URL+"/api/"+project+"/envelope/", body, recordingKey); code != 200 {
				t.Fatalf("%s: %d %s", name, code, resp)
			}
		}
	}
	return store
}

// TestTraceToolsFollowTheFailingCheckout is the flow the tools are for: get_event of
// the checkout's error gives its trace; get_trace shows the request's spans (the
// right parents), its error and its log lines; search_logs and search_spans find
// them; planted markup comes out as text and planted secrets do not come out.
func TestTraceToolsFollowTheFailingCheckout(t *testing.T) {
	store := recordedStore(t)
	c := connect(t, store, Config{Traces: true, Now: func() time.Time { return recordedAt }}, "2026-07-28")
	var names []string
	for _, tl := range listTools(t, c) {
		names = append(names, tl.Name)
	}
	if want := append(slices.Clone(ToolNames), TraceToolNames...); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if off := listTools(t, connect(t, store, Config{}, "2026-07-28")); len(off) != len(ToolNames) {
		t.Errorf("without Traces, %d tools are listed; want the %d of the default", len(off), len(ToolNames))
	}
	var issues backend.IssueList
	callOK(t, c, ToolSearchIssues, map[string]any{"start": "2026-12-01", "project": []string{"8"}}, &issues)
	if len(issues.Issues) != 1 {
		t.Fatalf("python project issues: %+v", issues.Issues)
	}
	var ev backend.Event
	callOK(t, c, ToolGetEvent, map[string]any{"issueId": issues.Issues[0].ID}, &ev)
	if len(ev.Trace) != 32 || ev.TraceSpans != 3 {
		t.Fatalf("get_event: trace %q with %d spans stored; want the checkout's trace and its 3 spans", ev.Trace, ev.TraceSpans)
	}
	var tr backend.Trace
	callOK(t, c, ToolGetTrace, map[string]any{"traceId": ev.Trace}, &tr)
	if tr.SpanCount != 3 || len(tr.Spans) != 3 || tr.Cut != "" {
		t.Fatalf("get_trace: %+v", tr)
	}
	root := tr.Spans[0]
	if root.Op != "http.server" || root.Desc != "POST /checkout" || root.Parent != "" || root.At != 0 {
		t.Errorf("root span %+v", root)
	}
	for _, s := range tr.Spans[1:] {
		if s.Parent != root.ID || s.At < 0 || s.At+s.Ms > root.Ms+1 {
			t.Errorf("child span %+v of root %+v", s, root)
		}
	}
	if tr.Spans[1].Op != "db.query" || tr.Spans[2].Op != "http.client" || strings.Contains(tr.Spans[2].Desc, "abc123") {
		t.Errorf("children in start order, token redacted: %+v", tr.Spans[1:])
	}
	if len(tr.Errors) != 1 || tr.Errors[0].EventID != ev.ID || tr.Errors[0].IssueID != issues.Issues[0].ID {
		t.Errorf("trace errors %+v, want the event %s", tr.Errors, ev.ID)
	}
	if len(tr.Logs) != 3 || tr.Logs[0].Body != "rate for EUR looked up" || tr.Logs[2].Level != "error" {
		t.Errorf("trace logs %+v", tr.Logs)
	}
	if !strings.Contains(tr.Logs[1].Body, "<script>alert(1)</script>") || strings.Contains(tr.Logs[1].Body, "s3cr3t") {
		t.Errorf("planted markup must stay text, the token go: %q", tr.Logs[1].Body)
	}

	var logs backend.LogList
	callOK(t, c, ToolSearchLogs, map[string]any{"query": "level:error checkout", "start": "2026-12-01"}, &logs)
	if len(logs.Logs) != 2 { // one from each SDK
		t.Fatalf("search_logs level:error checkout: %+v", logs.Logs)
	}
	for _, l := range logs.Logs {
		if !strings.HasPrefix(l.Body, "checkout failed for order A-17") || l.Level != "error" || len(l.Trace) != 32 {
			t.Errorf("found log %+v", l)
		}
	}
	callOK(t, c, ToolSearchLogs, map[string]any{"query": "trace:" + ev.Trace, "start": "2026-12-01"}, &logs)
	if len(logs.Logs) != 3 || logs.Logs[0].Level != "error" {
		t.Errorf("search_logs by trace, newest first: %+v", logs.Logs)
	}
	callOK(t, c, ToolSearchLogs, map[string]any{"query": "amount:12.5", "start": "2026-12-01"}, &logs)
	if len(logs.Logs) != 1 || logs.Logs[0].Attributes["user.password"] != event.Redacted {
		t.Errorf("search_logs by attribute (node's warn line, with a redacted password attribute): %+v", logs.Logs)
	}
	callOK(t, c, ToolSearchLogs, map[string]any{"query": "ra", "start": "2026-12-01"}, &logs)
	if len(logs.Logs) != 2 {
		t.Errorf("search_logs with two letters (no trigram): %+v", logs.Logs)
	}

	var spans backend.SpanList
	callOK(t, c, ToolSearchSpans, map[string]any{"query": "op:db.query", "start": "2026-12-01"}, &spans)
	if spans.Matched != 2 || len(spans.Spans) != 2 || spans.Spans[0].Ms < spans.Spans[1].Ms || spans.P["p50"] != spans.Spans[1].Ms || spans.P["p99"] != spans.Spans[0].Ms {
		t.Errorf("search_spans op:db.query, slowest first with percentiles: %+v", spans)
	}
	callOK(t, c, ToolSearchSpans, map[string]any{"query": "is:transaction send-receipts", "start": "2026-12-01"}, &spans)
	if spans.Matched != 6 {
		t.Errorf("search_spans is:transaction send-receipts: %d matched, want 6", spans.Matched)
	}
	if msg := callErr(t, c, ToolGetTrace, map[string]any{"traceId": "nope"}); !strings.Contains(msg, "32 hex digits") {
		t.Errorf("get_trace of a bad id: %s", msg)
	}
	if msg := callErr(t, c, ToolGetTrace, map[string]any{"traceId": ev.Trace, "maxSpans": 1000}); !strings.Contains(msg, "maxSpans") {
		t.Errorf("get_trace with too many spans: %s", msg)
	}
	if msg := callErr(t, c, ToolGetTrace, map[string]any{"traceId": strings.Repeat("ab", 16)}); !strings.Contains(msg, "no span, error or log") {
		t.Errorf("get_trace of an unknown trace: %s", msg)
	}
	if msg := callErr(t, c, ToolSearchSpans, map[string]any{"query": "!op:db"}); !strings.Contains(msg, "negation") {
		t.Errorf("search_spans with a negation: %s", msg)
	}
}

// TestGetTraceOfAThousandSpans: a 1,000-span trace comes out under 8 KB, with the
// spans around its error and the slowest kept, their ancestors with them, and the
// result saying what was cut.
func TestGetTraceOfAThousandSpans(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	trace, errSpan, slow := bigTrace(store, t, 1000)
	c := connect(t, store, Config{Traces: true}, "2026-07-28")
	res := c.CallTool(ToolGetTrace, map[string]any{"traceId": trace})
	if res.IsError {
		t.Fatal(res.Text())
	}
	if n := len(res.Text()); n >= 8<<10 {
		t.Errorf("get_trace of 1,000 spans is %d bytes; want under 8 KB", n)
	}
	var tr backend.Trace
	if err := json.Unmarshal([]byte(res.Text()), &tr); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range tr.Spans {
		ids[s.ID] = true
	}
	for _, s := range tr.Spans {
		if s.Parent != "" && !ids[s.Parent] {
			t.Errorf("span %s kept without its parent %s", s.ID, s.Parent)
		}
	}
	for _, s := range tr.Spans {
		if s.ID == errSpan && (s.File != "example.com/shop/checkout/rates.go:42" || !s.Error || s.Status != "internal_error") {
			t.Errorf("the failed span: %+v", s)
		}
	}
	if !ids[errSpan] || !ids[slow] {
		t.Errorf("the failed span %s and the slowest %s must be kept: %v", errSpan, slow, tr.Spans)
	}
	if tr.SpanCount != 1000 || !strings.Contains(tr.Cut, fmt.Sprintf("%d of 1000 spans left out", 1000-len(tr.Spans))) {
		t.Errorf("spanCount %d cut %q", tr.SpanCount, tr.Cut)
	}
	t.Logf("get_trace of 1,000 spans: %d bytes, %d spans shown", len(res.Text()), len(tr.Spans))
}

// bigTrace stores a trace of n spans (a root, 20 transactions' worth of children
// three levels deep), one of them failed and one much slower than the rest.
func bigTrace(store *LocalStore, t testing.TB, n int) (trace, failed, slowest string) {
	t.Helper()
	trace = strings.Repeat("1f", 16)
	start := time.Now().Add(-time.Minute)
	tel := &event.Telemetry{Project: "1", Kinds: map[string]int{"transaction": 1}}
	id := func(i int) string { return fmt.Sprintf("%016x", i+1) }
	for i := range n {
		s := &event.Span{TraceID: trace, SpanID: id(i), Project: "1", Op: "db.query", Status: "ok",
			Description: fmt.Sprintf("SELECT id, name, price, currency, updated_at FROM products_%d JOIN prices USING (id) WHERE id = ? AND currency = ? ORDER BY updated_at DESC", i), Start: start.Add(time.Duration(i) * time.Millisecond)}
		switch {
		case i == 0:
			s.IsSegment, s.Op, s.Description = true, "http.server", "GET /big"
		case i < 50:
			s.ParentSpanID = id(0)
		default:
			s.ParentSpanID = id(1 + i%49)
		}
		s.End = s.Start.Add(time.Duration(1+i%7) * time.Millisecond)
		if i == 0 {
			s.End = s.Start.Add(5 * time.Second)
		}
		if i == 777 {
			s.Status = "internal_error"
			s.Frame = &event.Frame{Function: "lookupRate", Filename: "example.com/shop/checkout/rates.go", Line: 42}
			failed = s.SpanID
		}
		if i == 500 {
			s.End = s.Start.Add(2 * time.Second)
			slowest = s.SpanID
		}
		tel.Spans = append(tel.Spans, s)
	}
	if err := store.IngestTelemetry(context.Background(), nil, tel); err != nil {
		t.Fatal(err)
	}
	return trace, failed, slowest
}
