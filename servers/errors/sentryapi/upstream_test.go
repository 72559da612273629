package sentryapi_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// Regression tests for issue 13, item 10: Sentry failures name Sentry, the operation,
// the status and the next step, and reads follow the repository's one retry policy
// (pkg/mcpkit/upstream), the same the GitHub server uses.

const searchPath = "/api/0/organizations/acme/issues/"

// recordWaits makes the backend's retry policy return at once from its waits and
// remember them.
func recordWaits(t *testing.T, b *sentryapi.Backend) func() []time.Duration {
	t.Helper()
	tr, ok := b.HTTPClient().Transport.(*upstream.Transport)
	if !ok {
		t.Fatalf("the Sentry client's transport is %T; want the shared *upstream.Transport", b.HTTPClient().Transport)
	}
	var mu sync.Mutex
	var waits []time.Duration
	tr.Policy.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	return func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Duration(nil), waits...)
	}
}

// turns answers the n-th request with hs[n], the last one repeating, and counts.
func turns(hs ...http.HandlerFunc) (http.HandlerFunc, func() int) {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			h := hs[min(n, len(hs)-1)]
			n++
			mu.Unlock()
			h(w, r)
		}, func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}

func hangUp(w http.ResponseWriter, r *http.Request) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// cutBody promises the fixture's length and sends 50 bytes of it.
func cutBody(t *testing.T) http.HandlerFunc {
	body := sentrytest.Fixture(t, "issues_page1.json")
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:50])
		rc := http.NewResponseController(w)
		rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	}
}

func answer(t *testing.T, name string) http.HandlerFunc {
	body := sentrytest.Fixture(t, name)
	return func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
}

func statusOnly(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
	}
}

func TestSentryFailuresNameSentryOperationStatusAndNextStep(t *testing.T) {
	login := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body>Sign in with SSO</body></html>"))
	}
	tests := []struct {
		name    string
		handler func(t *testing.T) http.HandlerFunc
		want    []string
		calls   int
	}{
		{"connection closed before the answer", func(*testing.T) http.HandlerFunc { return hangUp },
			[]string{"backend unavailable: search issues: Sentry closed the connection before answering (after 3 attempts", "try again in a minute"}, 3},
		{"body cut short", cutBody,
			[]string{"backend unavailable: search issues: Sentry cut its answer short (HTTP 200 OK, after 3 attempts: the body broke off after 50 bytes: unexpected EOF)", "try again in a minute"}, 3},
		{"502 every time", func(*testing.T) http.HandlerFunc { return statusOnly(502) },
			[]string{"backend unavailable: search issues: Sentry had an internal error (HTTP 502 Bad Gateway, after 3 attempts); try again in a few minutes"}, 3},
		{"an HTML login page", func(*testing.T) http.HandlerFunc { return login },
			[]string{"backend unavailable: search issues: Sentry answered with an HTML page (text/html) instead of JSON (HTTP 200 OK)", "login page", "SENTRY_URL"}, 1},
		{"JSON cut short with valid framing", func(t *testing.T) http.HandlerFunc {
			body := sentrytest.Fixture(t, "issues_page1.json")[:80]
			return func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
		}, []string{"backend unavailable: search issues: Sentry sent an answer that is not the JSON expected (HTTP 200 OK: 80 bytes, unexpected end of JSON input)", "try again"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, srv := sentrytest.New(t, "")
			h, calls := turns(tt.handler(t))
			fake.SetOverride(searchPath, h)
			b := sentrytest.NewBackend(t, srv.URL)
			recordWaits(t, b)
			_, err := b.SearchIssues(context.Background(), backend.SearchIssuesInput{})
			if !errors.Is(err, backend.ErrUnavailable) {
				t.Fatalf("err = %v; want ErrUnavailable", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n  lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), sentrytest.Token) || strings.Contains(err.Error(), "Sign in with SSO") {
				t.Errorf("error leaks the token or the page: %v", err)
			}
			if calls() != tt.calls {
				t.Errorf("%d requests; want %d", calls(), tt.calls)
			}
		})
	}
}

// TestSentryUsesTheSharedRetryPolicy: the same scenarios as the GitHub server's
// TestReadsAreRetriedBySharedPolicy give the same requests and waits.
func TestSentryUsesTheSharedRetryPolicy(t *testing.T) {
	if sentryapi.DefaultMaxAttempts != upstream.DefaultAttempts || sentryapi.DefaultMaxRetryWait != upstream.DefaultMaxRetryAfter {
		t.Errorf("defaults %d attempts / %v Retry-After; want the shared policy's %d / %v",
			sentryapi.DefaultMaxAttempts, sentryapi.DefaultMaxRetryWait, upstream.DefaultAttempts, upstream.DefaultMaxRetryAfter)
	}
	tests := []struct {
		name     string
		first    http.HandlerFunc
		wantWait func(time.Duration) bool
	}{
		{"a single 500", statusOnly(500), func(d time.Duration) bool { return d > 0 && d <= time.Second }},
		{"a connection closed before the answer", hangUp, func(d time.Duration) bool { return d > 0 && d <= time.Second }},
		{"503 with Retry-After 2", statusOnly(503, "Retry-After", "2"), func(d time.Duration) bool { return d == 2*time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, srv := sentrytest.New(t, "")
			h, calls := turns(tt.first, answer(t, "issue_1001.json"))
			fake.SetOverride("/api/0/organizations/acme/issues/1001/", h)
			b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.MaxAttempts, c.MaxRetryWait = 0, 0 }) // the defaults
			waits := recordWaits(t, b)
			if _, err := b.GetIssue(context.Background(), backend.GetIssueInput{IssueID: "1001"}); err != nil {
				t.Fatalf("err = %v; want success after one retry", err)
			}
			if calls() != 2 {
				t.Errorf("%d requests; want 2", calls())
			}
			if w := waits(); len(w) != 1 || !tt.wantWait(w[0]) {
				t.Errorf("waits %v; want one wait of the policy", w)
			}
		})
	}
}
