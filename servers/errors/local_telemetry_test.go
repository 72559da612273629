package errorserver

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/getsentry/sentry-go"
)

// recordingKey is the DSN key the envelopes in ingest/testdata/sdk were sent with.
const recordingKey = "abcdef0123456789abcdef0123456789"

func recordings(t testing.TB) map[string][][]byte {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("ingest", "testdata", "sdk", "*-*"))
	if err != nil || len(dirs) < 4 {
		t.Fatalf("recordings: %v %v", dirs, err)
	}
	out := map[string][][]byte{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.envelope"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(d)] = append(out[filepath.Base(d)], b)
		}
	}
	return out
}

// TestLocalStoreKeepsRecordedTelemetry: every span and log of the recorded
// @sentry/node and sentry-python envelopes is stored once, even when every envelope
// is sent twice (an SDK's retry), and list_projects says what each project sends.
func TestLocalStoreKeepsRecordedTelemetry(t *testing.T) {
	ctx := context.Background()
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.PublicKeys = append(c.PublicKeys, recordingKey) })
	defer store.Close()
	srv, _ := startIngest(t, store)
	// The counts the ingest test checks against the raw envelopes (TestRecordedSDKTelemetry).
	want := map[string][2]int64{"node-11.12.0": {9, 3}, "node-10.78.0": {9, 3}, "python-2.68.0": {9, 3}, "python-2.27.0": {9, 3}}
	var spans, logs int64
	for name, envs := range recordings(t) {
		project := map[bool]string{true: "7", false: "8"}[strings.HasPrefix(name, "node")]
		for range 2 {
			for _, body := range envs {
				req := strings.Replace(srv.URL+"/api/P/envelope/", "P", project, 1)
				if code, resp := postEnvelopeKey(t, req, body, recordingKey); code != 200 {
					t.Fatalf("%s: %d %s", name, code, resp)
				}
			}
		}
		spans, logs = spans+want[name][0], logs+want[name][1]
	}
	if got := tableRows(t, store, "spans"); got != spans {
		t.Errorf("%d spans stored, want %d (each once)", got, spans)
	}
	if got := tableRows(t, store, "logs"); got != logs {
		t.Errorf("%d logs stored, want %d (each once)", got, logs)
	}
	if got := tableRows(t, store, "log_text"); got != logs {
		t.Errorf("%d log texts indexed, want %d", got, logs)
	}
	res, err := store.ListProjects(ctx, backend.ListProjectsInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2][]string{}
	for _, p := range res.Projects {
		got[p.ID] = [2][]string{p.Receives, p.Drops}
	}
	if r := got["7"]; !slices.Equal(r[0], []string{"event", "log", "span", "transaction"}) || !slices.Equal(r[1], []string{"session"}) {
		t.Errorf("node project: receives %v drops %v", r[0], r[1])
	}
	if r := got["8"]; !slices.Equal(r[0], []string{"event", "log", "otel_log", "transaction"}) || len(r[1]) != 0 {
		t.Errorf("python project: receives %v drops %v", r[0], r[1])
	}
}

// TestLocalStoreTelemetryFromSentryGo: sentry-go with tracing and logs on; the
// transaction's spans and the log lines are stored under the error's trace id.
func TestLocalStoreTelemetryFromSentryGo(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	_, dsn := startIngest(t, store)
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Environment: "test", Release: "shop@1.2.3",
		EnableTracing: true, TracesSampleRate: 1, EnableLogs: true})
	if err != nil {
		t.Fatal(err)
	}
	hub := sentry.NewHub(client, sentry.NewScope())
	ctx := sentry.SetHubOnContext(context.Background(), hub)
	tx := sentry.StartTransaction(ctx, "POST /checkout", sentry.WithOpName("http.server"))
	for i, op := range []string{"db.query", "http.client"} {
		child := tx.StartChild(op, sentry.WithDescription([]string{"SELECT rate FROM rates", "POST https://pay.example/charge"}[i]))
		sentry.NewLogger(child.Context()).Info().Emitf("%s done", op)
		child.Finish()
	}
	hub.Scope().SetSpan(tx)
	hub.CaptureException(errors.New("division by zero"))
	tx.Finish()
	if !hub.Flush(10 * time.Second) {
		t.Fatal("hub did not flush")
	}
	traceID := tx.TraceID.String()
	var n int64
	if err := store.db.QueryRow(`SELECT count(*) FROM spans WHERE trace_id = ?`, traceID).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d spans of trace %s stored (%v), want the transaction and its 2 children", n, traceID, err)
	}
	if err := store.db.QueryRow(`SELECT count(*) FROM logs WHERE trace_id = ?`, traceID).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d logs of trace %s stored (%v), want 2", n, traceID, err)
	}
	ev, err := store.GetEvent(context.Background(), backend.GetEventInput{EventID: "latest", IssueID: firstIssue(t, store)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mustJSON(ev), traceID) {
		t.Errorf("the error event does not carry its trace id %s", traceID)
	}
}

// TestLocalStoreTelemetryRetention: spans and logs older than the age limit go with
// the events; over the byte limit the oldest spans and logs go first when they are
// older than the oldest event.
func TestLocalStoreTelemetryRetention(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) {
		c.MaxAge = 24 * time.Hour
		c.Now = clock
		c.PublicKeys = append(c.PublicKeys, recordingKey)
	})
	defer store.Close()
	srv, _ := startIngest(t, store)
	for _, body := range recordings(t)["python-2.68.0"] {
		if code, resp := postEnvelopeKey(t, srv.URL+"/api/1/envelope/", body, recordingKey); code != 200 {
			t.Fatalf("%d %s", code, resp)
		}
	}
	if tableRows(t, store, "spans") == 0 || tableRows(t, store, "logs") == 0 {
		t.Fatal("nothing stored")
	}
	mu.Lock()
	now = now.Add(400 * 24 * time.Hour) // the recordings' times (2026-12-01 22:15) are past the limit
	mu.Unlock()
	store.enforceRetention()
	for _, table := range []string{"spans", "logs", "log_text"} {
		if n := tableRows(t, store, table); n != 0 {
			t.Errorf("%d rows left in %s after the age limit passed", n, table)
		}
	}
}

// postEnvelopeKey posts an envelope with the DSN key key.
func postEnvelopeKey(t testing.TB, url string, body []byte, key string) (int, string) {
	t.Helper()
	return postEnvelope(t, url, body, map[string]string{"X-Sentry-Auth": "Sentry sentry_version=7, sentry_key=" + key})
}

func firstIssue(t *testing.T, s *LocalStore) string {
	t.Helper()
	var id string
	if err := s.db.QueryRow(`SELECT id FROM issues LIMIT 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

var _ = errorstest.Key

// TestLocalStoreTelemetryRetentionBySize: over the byte limit, logs older than every
// event go first, and the events stay.
func TestLocalStoreTelemetryRetentionBySize(t *testing.T) {
	ctx := context.Background()
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.MaxTotalBytes = 1 << 20 })
	defer store.Close()
	base := time.Now().Add(-time.Hour)
	for batch := range 40 {
		tel := &event.Telemetry{Project: "1", Kinds: map[string]int{"log": 1}}
		for i := range 100 {
			n := batch*100 + i
			l := &event.Log{ID: hexID(n), Project: "1", Timestamp: base.Add(time.Duration(n) * time.Millisecond), Level: "info", Body: fmt.Sprintf("line %d %s", n, strings.Repeat("x", 200))}
			tel.Logs = append(tel.Logs, l)
		}
		if err := store.IngestTelemetry(ctx, nil, tel); err != nil {
			t.Fatal(err)
		}
	}
	ingestTestEvents(t, store, 1, 20, func(int) (string, string, map[string]string) { return "Late", "after the logs", nil })
	store.enforceRetention()
	if used, err := usedBytes(ctx, store.db); err != nil || used > 1<<20 {
		t.Errorf("the store uses %d bytes (%v), over its 1 MiB limit", used, err)
	}
	logs := tableRows(t, store, "logs")
	if logs == 0 || logs >= 4000 {
		t.Errorf("%d of 4000 logs kept: want the oldest dropped, some kept", logs)
	}
	var oldest int64
	if err := store.db.QueryRow(`SELECT min(ts) FROM logs`).Scan(&oldest); err != nil || oldest <= base.UnixNano() {
		t.Errorf("the oldest log left is at %d (%v): the oldest must go first", oldest, err)
	}
	if n := store.eventCount(t); n != 20 {
		t.Errorf("%d events kept, want all 20 (newer than every log)", n)
	}
	if n := tableRows(t, store, "log_text"); n != logs {
		t.Errorf("%d log texts for %d logs", n, logs)
	}
}

// itemRecorder is an SDK's HTTP transport that records the spans (trace and span id)
// and log lines (body) of every request the server acknowledged with 200.
type itemRecorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	spans map[string]bool
	logs  map[string]bool
	// txIDs are the envelope ids of acknowledged envelopes without an error event
	// (transactions, log batches): acknowledged, but not events.
	txIDs map[string]bool
}

func (r *itemRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	env, perr := ingest.ParseEnvelope(body)
	if perr != nil {
		return resp, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spans == nil {
		r.spans, r.logs, r.txIDs = map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	hasEvent := false
	for _, it := range env.Items {
		hasEvent = hasEvent || it.Type == "event"
	}
	if !hasEvent {
		r.txIDs[strings.ReplaceAll(string(env.Header.EventID), "-", "")] = true
	}
	for _, it := range env.Items {
		var p struct {
			Contexts struct {
				Trace struct {
					TraceID string `json:"trace_id"`
					SpanID  string `json:"span_id"`
				} `json:"trace"`
			} `json:"contexts"`
			Spans []struct {
				TraceID string `json:"trace_id"`
				SpanID  string `json:"span_id"`
			} `json:"spans"`
			Items []struct {
				Body string `json:"body"`
			} `json:"items"`
		}
		if stdjson.Unmarshal(it.Payload, &p) != nil {
			continue
		}
		switch it.Type {
		case "transaction":
			r.spans[p.Contexts.Trace.TraceID+"/"+p.Contexts.Trace.SpanID] = true
			for _, s := range p.Spans {
				r.spans[s.TraceID+"/"+s.SpanID] = true
			}
		case "log":
			for _, l := range p.Items {
				r.logs[l.Body] = true
			}
		}
	}
	return resp, err
}

// errorIDs is acked without the ids of envelopes that held no error event.
func (r *itemRecorder) errorIDs(acked []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.DeleteFunc(acked, func(id string) bool { return r.txIDs[id] })
}

// loggedBatches is how many acknowledged log lines were recorded, by tens.
func (r *itemRecorder) loggedBatches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.logs) / 10
}

// checkStoredOnce opens the store in dir to read, and checks that every acknowledged
// span and log line is there exactly once.
func (r *itemRecorder) checkStoredOnce(t *testing.T, dir string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.spans) == 0 || len(r.logs) == 0 {
		t.Fatalf("%d spans and %d logs acknowledged: the load sent no transactions or logs", len(r.spans), len(r.logs))
	}
	s := openTestStore(t, dir, func(c *LocalConfig) { c.ReadOnly = true })
	defer s.Close()
	spans := map[string]int{}
	rows, err := s.db.Query(`SELECT trace_id || '/' || span_id FROM spans`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		spans[k]++
	}
	rows.Close()
	logs := map[string]int{}
	rows, err = s.db.Query(`SELECT body->>'$.body' FROM logs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		logs[k]++
	}
	rows.Close()
	var missing, twice int
	for k := range r.spans {
		if spans[k] == 0 {
			missing++
		}
	}
	for k := range r.logs {
		if logs[k] == 0 {
			missing++
		}
	}
	for _, n := range logs {
		if n > 1 {
			twice++
		}
	}
	if missing > 0 || twice > 0 {
		t.Fatalf("after SIGKILL: %d acknowledged spans or logs missing, %d logs stored twice (%d spans, %d logs acknowledged)", missing, twice, len(r.spans), len(r.logs))
	}
	t.Logf("%d spans and %d logs acknowledged before SIGKILL, each stored once", len(r.spans), len(r.logs))
}
