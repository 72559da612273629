package errorserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// testKey is the DSN public key the test stores accept.
const testKey = errorstest.Key

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	// The crash test re-runs this test binary as the server process it kills.
	if os.Getenv(childEnv) == "ingest" {
		runIngestChild()
		return
	}
	code := m.Run()
	realclient.CleanupBuilds()
	removeBenchStore()
	os.Exit(code)
}

const (
	childEnv     = "ERRORS_TEST_CHILD"
	childDataEnv = "ERRORS_TEST_DATA"
)

// runIngestChild serves the ingest endpoint of a store in ERRORS_TEST_DATA on a
// loopback port, prints "LISTEN <addr>", and runs until killed.
func runIngestChild() {
	s, err := OpenLocal(LocalConfig{DataDir: os.Getenv(childDataEnv), PublicKeys: []string{testKey}, Logger: quietLogger})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Printf("LISTEN %s\n", ln.Addr())
	http.Serve(ln, ingest.Handler(s))
}

func openTestStore(t testing.TB, dir string, mod ...func(*LocalConfig)) *LocalStore {
	t.Helper()
	cfg := LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger}
	for _, m := range mod {
		m(&cfg)
	}
	s, err := OpenLocal(cfg)
	if err != nil {
		t.Fatalf("OpenLocal(%s): %v", dir, err)
	}
	return s
}

// startIngest serves the store's ingest endpoint and returns a DSN for project 42.
func startIngest(t testing.TB, s *LocalStore) (srv *httptest.Server, dsn string) {
	t.Helper()
	srv = httptest.NewServer(ingest.Handler(s))
	t.Cleanup(srv.Close)
	return srv, fmt.Sprintf("http://%s@%s/42", testKey, srv.Listener.Addr())
}

// postEnvelope posts raw bytes to the envelope endpoint with the test key.
func postEnvelope(t testing.TB, url string, body []byte, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Sentry-Auth", "Sentry sentry_version=7, sentry_key="+testKey)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// envelopeOf frames one event payload as an envelope.
func envelopeOf(eventID string, items ...[2]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"event_id":%q,"sent_at":"2026-01-01T00:00:00Z"}`+"\n", eventID)
	for _, it := range items {
		fmt.Fprintf(&b, `{"type":%q,"length":%d}`+"\n%s\n", it[0], len(it[1]), it[1])
	}
	return b.Bytes()
}

// testEvent returns a minimal, realistic SDK event payload.
func testEvent(id, excType, value, fn string, tags map[string]string) string {
	ev := map[string]any{
		"event_id":    id,
		"timestamp":   "2026-01-01T00:00:00Z",
		"level":       "error",
		"platform":    "go",
		"environment": "production",
		"release":     "shop@1.0.0",
		"tags":        tags,
		"exception": []any{map[string]any{
			"type": excType, "value": value,
			"stacktrace": map[string]any{"frames": []any{
				map[string]any{"function": "main", "module": "main", "filename": "main.go", "lineno": 10, "in_app": true},
				map[string]any{"function": fn, "module": "shop/checkout", "filename": "checkout.go", "lineno": 42, "in_app": true},
			}},
		}},
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

func hexID(n int) string { return fmt.Sprintf("%032x", n) }

// allEventIDs lists every event id the backend can show, through the Backend API.
func allEventIDs(t testing.TB, b backend.Backend) map[string]bool {
	t.Helper()
	ctx := context.Background()
	ids := map[string]bool{}
	cursor := ""
	for {
		res, err := b.SearchIssues(ctx, backend.SearchIssuesInput{StatsPeriod: "1w", Limit: 100, Cursor: cursor})
		if err != nil {
			t.Fatalf("SearchIssues: %v", err)
		}
		for _, is := range res.Issues {
			ec := ""
			for {
				evs, err := b.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: is.ID, Limit: 100, Cursor: ec})
				if err != nil {
					t.Fatalf("ListIssueEvents(%s): %v", is.ID, err)
				}
				for _, e := range evs.Events {
					ids[e.ID] = true
				}
				if ec = evs.NextCursor; ec == "" {
					break
				}
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			return ids
		}
	}
}

// ackRecorder wraps an HTTP transport and records the event ids the server
// acknowledged with 200 {"id": ...}: exactly the events it promised to keep.
type ackRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	ids  []string
}

func (a *ackRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return resp, nil
	}
	var ack struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(b, &ack) == nil && ack.ID != "" {
		a.mu.Lock()
		a.ids = append(a.ids, ack.ID)
		a.mu.Unlock()
	}
	return resp, nil
}

func (a *ackRecorder) acked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.ids...)
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// issueOfEvent returns the issue id of a stored event ("" when it is not stored).
func (s *LocalStore) issueOfEvent(t testing.TB, eventID string) string {
	t.Helper()
	var id string
	err := s.db.QueryRow(`SELECT i.id FROM events e JOIN issues i ON i.n = e.issue WHERE e.event_id = ?`, eventID).Scan(&id)
	if err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return id
}

// eventCount is the number of events stored.
func (s *LocalStore) eventCount(t testing.TB) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tableRows counts the rows of a table of the store.
func tableRows(t testing.TB, s *LocalStore, table string) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
