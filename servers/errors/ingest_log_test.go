package errorserver

import (
	"github.com/mcpkit/reference/servers/errors/ingest"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCollectorLogsRefusedEnvelopes: every envelope the collector refuses logs a warn
// line with the reason and the project (a wrong DSN key: 403; a bad payload: 400),
// rate-limited per minute with the number left out; accepted ones log at debug (issue
// #25: refusals left no trace at the default level).
func TestCollectorLogsRefusedEnvelopes(t *testing.T) {
	var logs lockedLog
	var mu sync.Mutex
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	defer store.Close()
	srv, _ := startIngest(t, store)
	url := srv.URL + "/api/42/envelope/"
	ok := envelopeOf(hexID(1), [2]string{"event", testEvent(hexID(1), "E", "v", "f", nil)})
	if code, body := postEnvelope(t, url, ok, nil); code != http.StatusOK {
		t.Fatalf("good envelope: %d %s", code, body)
	}
	if code, _ := postEnvelope(t, url, ok, map[string]string{"X-Sentry-Auth": "Sentry sentry_key=wrongkey"}); code != http.StatusForbidden {
		t.Fatalf("wrong key: %d; want 403", code)
	}
	if code, _ := postEnvelope(t, url, []byte("not an envelope"), nil); code != http.StatusBadRequest {
		t.Fatalf("bad payload: %d; want 400", code)
	}
	got := logs.String()
	for _, want := range []string{
		`level=DEBUG msg="ingest: accepted" project=42 events=1`,
		`level=WARN msg="ingest: envelope refused" project=42 status=403 reason="the DSN public key is not one this store accepts`,
		`level=WARN msg="ingest: envelope refused" project=42 status=400 reason="bad envelope`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("logs lack %q:\n%s", want, got)
		}
	}

	// A flood of refusals writes ingest.RefusalBurst lines a minute, then one saying how many
	// were left out.
	for range 3 * ingest.RefusalBurst {
		postEnvelope(t, url, []byte("not an envelope"), nil)
	}
	if n := strings.Count(logs.String(), "envelope refused"); n != ingest.RefusalBurst {
		t.Errorf("%d refusal lines within a minute; want %d", n, ingest.RefusalBurst)
	}
	mu.Lock()
	now = now.Add(ingest.RefusalWindow)
	mu.Unlock()
	postEnvelope(t, url, []byte("not an envelope"), nil)
	if !strings.Contains(logs.String(), "suppressed=") {
		t.Errorf("the first line of the next minute does not say how many were left out:\n%s", logs.String())
	}
}
