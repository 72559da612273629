package ingest

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
)

// recordingKey is the DSN key the recordings in testdata/sdk were sent with.
const recordingKey = "abcdef0123456789abcdef0123456789"

// fakeSink keeps what the endpoint hands it, as the store would.
type fakeSink struct {
	events []*event.Event
	spans  []*event.Span
	logs   []*event.Log
	calls  int
}

func (f *fakeSink) Ingest(_ context.Context, events []*event.Event) error {
	f.events = append(f.events, events...)
	f.calls++
	return nil
}

func (f *fakeSink) IngestTelemetry(_ context.Context, events []*event.Event, t *event.Telemetry) error {
	f.events = append(f.events, events...)
	f.spans = append(f.spans, t.Spans...)
	f.logs = append(f.logs, t.Logs...)
	f.calls++
	return nil
}

func (f *fakeSink) AcceptsKey(key string) bool { return key == recordingKey }
func (f *fakeSink) MaxBodyBytes() int64        { return 20 << 20 }
func (f *fakeSink) Logger() *slog.Logger       { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (f *fakeSink) Now() time.Time             { return time.Date(2026, 12, 1, 22, 30, 0, 0, time.UTC) }

// eventsOnlySink is a Sink that keeps no spans or logs.
type eventsOnlySink struct{ f *fakeSink }

func (s eventsOnlySink) Ingest(ctx context.Context, e []*event.Event) error {
	return s.f.Ingest(ctx, e)
}
func (s eventsOnlySink) AcceptsKey(key string) bool { return s.f.AcceptsKey(key) }
func (s eventsOnlySink) MaxBodyBytes() int64        { return s.f.MaxBodyBytes() }
func (s eventsOnlySink) Logger() *slog.Logger       { return s.f.Logger() }
func (s eventsOnlySink) Now() time.Time             { return s.f.Now() }

// rawCounts counts, with encoding/json and nothing of this package, the spans and
// logs a recording's envelopes carry: what the store must keep.
func rawCounts(t *testing.T, envelopes [][]byte) (spans, logs int, spanIDs []string) {
	t.Helper()
	for _, body := range envelopes {
		lines := bytes.Split(body, []byte("\n"))
		for i := 1; i+1 < len(lines); i += 2 {
			var h struct{ Type string }
			if err := stdjson.Unmarshal(lines[i], &h); err != nil {
				t.Fatalf("recording: item header %q: %v", lines[i], err)
			}
			var p struct {
				Contexts struct {
					Trace struct {
						SpanID string `json:"span_id"`
					} `json:"trace"`
				} `json:"contexts"`
				Spans []struct {
					SpanID string `json:"span_id"`
				} `json:"spans"`
				Items []struct {
					SpanID string `json:"span_id"`
				} `json:"items"`
			}
			if err := stdjson.Unmarshal(lines[i+1], &p); err != nil {
				t.Fatalf("recording: %s payload: %v", h.Type, err)
			}
			switch h.Type {
			case "transaction":
				spans += 1 + len(p.Spans)
				spanIDs = append(spanIDs, p.Contexts.Trace.SpanID)
				for _, s := range p.Spans {
					spanIDs = append(spanIDs, s.SpanID)
				}
			case "span":
				spans += len(p.Items)
				for _, s := range p.Items {
					spanIDs = append(spanIDs, s.SpanID)
				}
			case "log":
				logs += len(p.Items)
			case "otel_log":
				logs++
			}
		}
	}
	return spans, logs, spanIDs
}

func readRecording(t *testing.T, dir string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.envelope"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no envelopes in %s: %v", dir, err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func post(t *testing.T, h http.Handler, body []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/1/envelope/", bytes.NewReader(body))
	req.Header.Set("X-Sentry-Auth", "Sentry sentry_key="+recordingKey+", sentry_version=7")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST envelope: %d %s", rec.Code, rec.Body)
	}
}

// TestRecordedSDKTelemetry posts the envelopes recorded from @sentry/node and
// sentry-python (testdata/sdk/README.md) and checks that every span, transaction and
// log they carry reaches the sink, that the failing checkout's trace is whole (every
// span, the right parents, its logs inside it), and that planted secrets are gone.
func TestRecordedSDKTelemetry(t *testing.T) {
	for _, dir := range []string{"node-11.12.0", "node-10.78.0", "python-2.68.0", "python-2.27.0"} {
		t.Run(dir, func(t *testing.T) {
			envs := readRecording(t, filepath.Join("testdata", "sdk", dir))
			wantSpans, wantLogs, wantIDs := rawCounts(t, envs)
			sink := &fakeSink{}
			h := Handler(sink)
			for _, body := range envs {
				post(t, h, body)
			}
			if len(sink.spans) != wantSpans || len(sink.logs) != wantLogs {
				t.Fatalf("got %d spans and %d logs, the recording has %d and %d", len(sink.spans), len(sink.logs), wantSpans, wantLogs)
			}
			var gotIDs []string
			for _, s := range sink.spans {
				gotIDs = append(gotIDs, s.SpanID)
			}
			slices.Sort(gotIDs)
			slices.Sort(wantIDs)
			if !slices.Equal(gotIDs, wantIDs) {
				t.Errorf("span ids: got %v, want %v", gotIDs, wantIDs)
			}
			if len(sink.events) != 1 {
				t.Fatalf("got %d error events, want the one the checkout captured", len(sink.events))
			}
			traceID, _ := sink.events[0].Contexts["trace"]["trace_id"].(string)
			trace := map[string]*event.Span{}
			for _, s := range sink.spans {
				if s.TraceID == traceID {
					trace[s.SpanID] = s
				}
			}
			ops := map[string]*event.Span{}
			for _, s := range trace {
				if s.ParentSpanID != "" && trace[s.ParentSpanID] == nil {
					t.Errorf("span %s (%s) has parent %s, which the trace does not hold", s.SpanID, s.Op, s.ParentSpanID)
				}
				ops[s.Op] = s
			}
			root, db, pay := ops["http.server"], ops["db.query"], ops["http.client"]
			if root == nil || db == nil || pay == nil {
				t.Fatalf("the error's trace %s lacks the checkout's spans: %v", traceID, ops)
			}
			if !root.IsSegment || root.ParentSpanID != "" || root.Transaction != "POST /checkout" || root.Description != "POST /checkout" {
				t.Errorf("root span: %+v", root)
			}
			for _, s := range []*event.Span{db, pay} {
				if s.ParentSpanID != root.SpanID || s.SegmentID != root.SpanID || s.Transaction != "POST /checkout" {
					t.Errorf("%s span: parent %s segment %s transaction %q, want %s and POST /checkout", s.Op, s.ParentSpanID, s.SegmentID, s.Transaction, root.SpanID)
				}
				if s.Release != "shop@1.2.3" || s.Environment != "test" || s.SDK == "" {
					t.Errorf("%s span: release %q environment %q sdk %q", s.Op, s.Release, s.Environment, s.SDK)
				}
				if s.Duration() <= 0 || s.Start.Before(root.Start) || s.End.After(root.End.Add(time.Millisecond)) {
					t.Errorf("%s span runs %v..%v outside its root %v..%v", s.Op, s.Start, s.End, root.Start, root.End)
				}
			}
			if db.Description != "SELECT rate FROM rates WHERE currency = ?" && db.Description != "SELECT rate FROM rates WHERE currency = %s" {
				t.Errorf("db span description %q", db.Description)
			}
			if db.Attr("db.system") != "sqlite" {
				t.Errorf("db span attributes %v lack db.system", db.Attributes)
			}
			if strings.Contains(pay.Description, "abc123") || !strings.Contains(pay.Description, "pay.example/charge") {
				t.Errorf("payment span description %q: the token in its URL must be redacted, the rest kept", pay.Description)
			}
			var rateLog, warnLog, errLog *event.Log
			for _, l := range sink.logs {
				switch {
				case strings.HasPrefix(l.Body, "rate for EUR"):
					rateLog = l
				case strings.HasPrefix(l.Body, "charging"):
					warnLog = l
				case strings.HasPrefix(l.Body, "checkout failed"):
					errLog = l
				}
			}
			if rateLog == nil || warnLog == nil || errLog == nil {
				t.Fatalf("logs %v lack the checkout's three lines", sink.logs)
			}
			for _, l := range []*event.Log{rateLog, warnLog, errLog} {
				if l.TraceID != traceID || l.Release != "shop@1.2.3" || l.Environment != "test" || l.SDK == "" || len(l.ID) != 32 {
					t.Errorf("log %q: trace %s (want %s) release %q environment %q sdk %q id %q", l.Body, l.TraceID, traceID, l.Release, l.Environment, l.SDK, l.ID)
				}
			}
			if rateLog.Level != "info" || warnLog.Level != "warn" || errLog.Level != "error" {
				t.Errorf("levels %s %s %s, want info warn error", rateLog.Level, warnLog.Level, errLog.Level)
			}
			if rateLog.SpanID != db.SpanID || warnLog.SpanID != pay.SpanID {
				t.Errorf("logs' spans %s %s, want the db span %s and the payment span %s", rateLog.SpanID, warnLog.SpanID, db.SpanID, pay.SpanID)
			}
			if rateLog.Template != "rate for {currency} looked up" && rateLog.Template != "rate for %s looked up" {
				t.Errorf("template %q", rateLog.Template)
			}
			if strings.Contains(warnLog.Body, "s3cr3t") || !strings.Contains(warnLog.Body, "<script>") {
				t.Errorf("warn body %q: the token must be redacted, the (planted) markup kept as data", warnLog.Body)
			}
			if v := warnLog.Attr("user.password"); v != "" && v != event.Redacted {
				t.Errorf("user.password attribute %q, want %s", v, event.Redacted)
			}
			// Sent again (an SDK's retry), every item has the same identity.
			again := &fakeSink{}
			for _, body := range envs {
				post(t, Handler(again), body)
			}
			for i := range sink.logs {
				if sink.logs[i].ID != again.logs[i].ID {
					t.Fatalf("log %q got id %s, then %s when sent again", sink.logs[i].Body, sink.logs[i].ID, again.logs[i].ID)
				}
			}
		})
	}
}

// TestTelemetryNeedsATelemetrySink: a Sink that keeps events only gets the events,
// and the spans and logs are skipped as before.
func TestTelemetryNeedsATelemetrySink(t *testing.T) {
	f := &fakeSink{}
	h := Handler(eventsOnlySink{f})
	for _, body := range readRecording(t, filepath.Join("testdata", "sdk", "python-2.68.0")) {
		post(t, h, body)
	}
	if len(f.events) != 1 || len(f.spans) != 0 || len(f.logs) != 0 {
		t.Errorf("got %d events, %d spans, %d logs; want the one event only", len(f.events), len(f.spans), len(f.logs))
	}
}

// TestTelemetryItemsBad: items that are not what they say get a 400 naming the item;
// spans without ids, and logs, are skipped or kept without refusing the envelope.
func TestTelemetryItemsBad(t *testing.T) {
	const tr = "0123456789abcdef0123456789abcdef"
	cases := []struct {
		name, item string
		status     int
		spans      int
		logs       int
	}{
		{"transaction not JSON", `{"type":"transaction"}` + "\n[1,2]\n", 400, 0, 0},
		{"log not JSON", `{"type":"log"}` + "\nnope\n", 400, 0, 0},
		{"otel_log not JSON", `{"type":"otel_log"}` + "\n\"x\"\n", 400, 0, 0},
		{"transaction without trace context", `{"type":"transaction"}` + "\n" + `{"transaction":"x","spans":[{"span_id":"0123456789abcdef"}]}` + "\n", 200, 0, 0},
		{"span with a bad trace id", `{"type":"span"}` + "\n" + `{"trace_id":"zz","span_id":"0123456789abcdef"}` + "\n", 200, 0, 0},
		{"span with the all-zero id", `{"type":"span"}` + "\n" + `{"trace_id":"` + tr + `","span_id":"0000000000000000"}` + "\n", 200, 0, 0},
		{"span v1 alone", `{"type":"span"}` + "\n" + `{"trace_id":"` + strings.ToUpper(tr) + `","span_id":"0123456789ABCDEF","op":"ui.interaction","description":"click","start_timestamp":1796163380.1,"timestamp":1796163380.3,"data":{"api_key":"k1"}}` + "\n", 200, 1, 0},
		{"log with a typeless attribute and a trace id with dashes", `{"type":"log"}` + "\n" + `{"items":[{"timestamp":"2026-12-01T22:00:00Z","level":"WARNING","body":"b","trace_id":"01234567-89ab-cdef-0123-456789abcdef","attributes":{"x":{"value":[1,2]}}}]}` + "\n", 200, 0, 1},
		{"too many logs in one item", `{"type":"log"}` + "\n" + `{"items":[` + strings.Repeat(`{},`, maxItemsPerContainer) + `{}]}` + "\n", 400, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeSink{}
			body := `{"dsn":"http://` + recordingKey + `@h/1"}` + "\n" + c.item
			req := httptest.NewRequest(http.MethodPost, "/api/1/envelope/", strings.NewReader(body))
			rec := httptest.NewRecorder()
			Handler(f).ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d (%s), want %d", rec.Code, rec.Body, c.status)
			}
			if c.status == 400 && !strings.Contains(rec.Body.String(), "item 1 (") {
				t.Errorf("detail %s does not name the item", rec.Body)
			}
			if len(f.spans) != c.spans || len(f.logs) != c.logs {
				t.Fatalf("got %d spans %d logs, want %d and %d", len(f.spans), len(f.logs), c.spans, c.logs)
			}
			if c.spans == 1 {
				s := f.spans[0]
				if s.TraceID != tr || s.SpanID != "0123456789abcdef" || s.Attr("api_key") != event.Redacted || (s.Duration()-200*time.Millisecond).Abs() > time.Millisecond {
					t.Errorf("span %+v", s)
				}
			}
			if c.logs == 1 {
				l := f.logs[0]
				if l.TraceID != tr || l.Level != "warn" || l.Attr("x") != "[1,2]" {
					t.Errorf("log %+v", l)
				}
			}
		})
	}
}
