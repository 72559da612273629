package upstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// script answers the n-th request with handlers[n], the last one repeating, and counts.
type script struct {
	mu       sync.Mutex
	n        int
	handlers []http.HandlerFunc
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.handlers[min(s.n, len(s.handlers)-1)]
	s.n++
	s.mu.Unlock()
	h(w, r)
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func status(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, `{"ok":`+strconv.Itoa(code)+`}`)
	}
}

// hangUp closes the connection without answering: a reset / EOF before a response.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
	conn.Close()
}

// cutBody promises 100 bytes and sends 10.
func cutBody(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "100")
	io.WriteString(w, "0123456789")
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

// fakeSleep records the waits the policy asks for and returns at once.
type fakeSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	return ctx.Err()
}

func setup(t *testing.T, p Policy, hs ...http.HandlerFunc) (*script, *http.Client, *fakeSleep) {
	t.Helper()
	s := &script{handlers: hs}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	fs := &fakeSleep{}
	p.Sleep = fs.sleep
	c := &http.Client{Transport: p.Transport(nil)}
	t.Cleanup(c.CloseIdleConnections)
	return s, &http.Client{Transport: &baseURL{c.Transport, srv.URL}}, fs
}

// baseURL points relative requests at the test server.
type baseURL struct {
	next http.RoundTripper
	base string
}

func (b *baseURL) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	u, _ := r.URL.Parse(b.base + r.URL.Path)
	r2.URL, r2.Host = u, u.Host
	return b.next.RoundTrip(r2)
}

func get(t *testing.T, c *http.Client, ctx context.Context) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x/thing", nil)
	resp, err := c.Do(req)
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

func TestRetriesTransientStatusesWithBackoff(t *testing.T) {
	for _, code := range []int{500, 502, 503, 504, 429} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			s, c, fs := setup(t, Policy{}, status(code), status(200))
			resp, err := get(t, c, context.Background())
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("resp %v, err %v; want 200 after one retry", resp, err)
			}
			if s.count() != 2 || Attempts(resp, nil) != 2 || resp.Header.Get(AttemptsHeader) != "2" {
				t.Errorf("%d requests, Attempts %d; want 2", s.count(), Attempts(resp, nil))
			}
			if len(fs.waits) != 1 || fs.waits[0] < DefaultBackoff/2 || fs.waits[0] > DefaultBackoff {
				t.Errorf("waits %v; want one backoff within [%v, %v]", fs.waits, DefaultBackoff/2, DefaultBackoff)
			}
		})
	}
}

func TestGivesUpAfterTheAttemptsWithGrowingWaits(t *testing.T) {
	s, c, fs := setup(t, Policy{}, status(502))
	resp, err := get(t, c, context.Background())
	if err != nil || resp.StatusCode != 502 {
		t.Fatalf("resp %v, err %v; want the last 502", resp, err)
	}
	if s.count() != DefaultAttempts || Attempts(resp, nil) != DefaultAttempts {
		t.Errorf("%d requests, Attempts %d; want %d", s.count(), Attempts(resp, nil), DefaultAttempts)
	}
	if len(fs.waits) != 2 || fs.waits[1] < 2*DefaultBackoff/2 || fs.waits[1] > 2*DefaultBackoff {
		t.Errorf("waits %v; want two, the second from a doubled backoff", fs.waits)
	}
	if got := (Policy{Backoff: time.Second, MaxBackoff: 3 * time.Second}).backoffFor(5); got != 3*time.Second {
		t.Errorf("backoff for retry 5 = %v; want the 3s cap", got)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(4 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		name     string
		first    http.HandlerFunc
		wantWait time.Duration
		wantN    int
	}{
		{"503 seconds", status(503, "Retry-After", "3"), 3 * time.Second, 2},
		{"429 HTTP date", status(429, "Retry-After", date), 4 * time.Second, 2},
		{"429 zero", status(429, "Retry-After", "0"), 0, 2},
		{"longer than the cap is not waited for", status(429, "Retry-After", "3600"), -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c, fs := setup(t, Policy{Now: func() time.Time { return now }}, tt.first, status(200))
			resp, err := get(t, c, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if s.count() != tt.wantN {
				t.Errorf("%d requests; want %d", s.count(), tt.wantN)
			}
			if tt.wantWait < 0 {
				if len(fs.waits) != 0 || resp.StatusCode != 429 {
					t.Errorf("waits %v, status %d; want no wait and the 429 returned", fs.waits, resp.StatusCode)
				}
				return
			}
			if len(fs.waits) != 1 || fs.waits[0] != tt.wantWait {
				t.Errorf("waits %v; want exactly [%v]", fs.waits, tt.wantWait)
			}
		})
	}
}

func TestTransportFailuresBeforeAnAnswerAreRetried(t *testing.T) {
	s, c, _ := setup(t, Policy{}, hangUp, status(200))
	resp, err := get(t, c, context.Background())
	if err != nil || resp.StatusCode != 200 || s.count() != 2 {
		t.Fatalf("resp %v, err %v, %d requests; want 200 on the second", resp, err, s.count())
	}

	s, c, _ = setup(t, Policy{}, hangUp)
	_, err = get(t, c, context.Background())
	if err == nil || Attempts(nil, err) != DefaultAttempts || s.count() != DefaultAttempts {
		t.Fatalf("err %v after %d requests (Attempts %d); want failure after %d", err, s.count(), Attempts(nil, err), DefaultAttempts)
	}
	e := NetworkError("Sentry", "SENTRY_URL (https://sentry.io/)", err)
	e.Op = "search issues"
	msg := e.Error()
	for _, want := range []string{"search issues: Sentry ", "after 3 attempts", "try again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "http://x/thing") {
		t.Errorf("message %q repeats the URL", msg)
	}
}

func TestBufferedBodyCutShortIsAFailedAttempt(t *testing.T) {
	s, c, _ := setup(t, Policy{BufferLimit: 1 << 10}, cutBody, status(200))
	resp, err := get(t, c, context.Background())
	if err != nil || resp.StatusCode != 200 || s.count() != 2 {
		t.Fatalf("resp %v, err %v, %d requests; want 200 on the second", resp, err, s.count())
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != `{"ok":200}` {
		t.Errorf("body %q", body)
	}

	_, c, _ = setup(t, Policy{BufferLimit: 4}, status(200))
	if _, err := get(t, c, context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v; want ErrTooLarge", err)
	}
}

func TestOnlyIdempotentRequestsAreRetried(t *testing.T) {
	s, c, fs := setup(t, Policy{}, status(502), status(201))
	resp, err := c.Post("http://x/thing", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 502 || s.count() != 1 || len(fs.waits) != 0 {
		t.Errorf("POST: status %d after %d requests; want the 502, sent once", resp.StatusCode, s.count())
	}
}

func TestAttemptTimeoutRetriesAHang(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	s, c, _ := setup(t, Policy{AttemptTimeout: 50 * time.Millisecond}, hang, status(200))
	resp, err := get(t, c, context.Background())
	if err != nil || resp.StatusCode != 200 || s.count() != 2 {
		t.Fatalf("resp %v, err %v, %d requests; want 200 on the second", resp, err, s.count())
	}
}

func TestContextEndsTheRetries(t *testing.T) {
	// Cancelled while waiting: no further attempt.
	s := &script{handlers: []http.HandlerFunc{status(503)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}
	c := &http.Client{Transport: p.Transport(nil)}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if _, err := c.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v; want context.Canceled", err)
	}
	if s.count() != 1 {
		t.Errorf("%d requests after cancellation; want 1", s.count())
	}

	// A Retry-After past the deadline is not waited for: the answer comes back.
	s2, c2, fs := setup(t, Policy{}, status(503, "Retry-After", "5"), status(200))
	dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer dcancel()
	resp, err := get(t, c2, dctx)
	if err != nil || resp.StatusCode != 503 || s2.count() != 1 || len(fs.waits) != 0 {
		t.Errorf("resp %v, err %v, %d requests, waits %v; want the 503 without waiting", resp, err, s2.count(), fs.waits)
	}
}

func TestErrorNamesUpstreamOperationStatusAndNextStep(t *testing.T) {
	e := &Error{Upstream: "GitHub", Op: "get repository octo/hello", Status: 502, Attempts: 3,
		Problem: "had an internal error", Detail: "Server Error", Next: "try again in a few minutes"}
	want := "get repository octo/hello: GitHub had an internal error (HTTP 502 Bad Gateway, after 3 attempts: Server Error); try again in a few minutes"
	if e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
	h := HTMLPage("GitHub", 200, "a diff", "GITHUB_HOST")
	h.Op = "get diff of pull request octo/hello#4"
	for _, w := range []string{"get diff of pull request octo/hello#4: GitHub answered with an HTML page", "instead of a diff", "HTTP 200 OK", "proxy", "login page", "GITHUB_HOST"} {
		if !strings.Contains(h.Error(), w) {
			t.Errorf("%q lacks %q", h.Error(), w)
		}
	}
	if !IsHTML(http.Header{"Content-Type": {"text/html; charset=utf-8"}}) || IsHTML(http.Header{"Content-Type": {"application/json"}}) {
		t.Error("IsHTML")
	}
}

func TestTransientClassification(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{io.ErrUnexpectedEOF, true},
		{io.EOF, true},
		{context.DeadlineExceeded, true},
		{context.Canceled, false},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, false},
		{errors.New("something else"), false},
		{ErrTooLarge, false},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
}

// TestMarkedPOSTIsRetried: a POST made with WithIdempotent (a GraphQL query) is
// retried like a GET, with its body sent again whole.
func TestMarkedPOSTIsRetried(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	record := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
			h(w, r)
		}
	}
	s, c, _ := setup(t, Policy{}, record(status(502)), record(status(200)))
	req, _ := http.NewRequestWithContext(WithIdempotent(context.Background()), "POST", "http://x/graphql", strings.NewReader(`{"query":"{x}"}`))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || s.count() != 2 || bodies[0] != bodies[1] || bodies[1] != `{"query":"{x}"}` {
		t.Errorf("marked POST: status %d after %d requests, bodies %q; want 200 after a retry with the same body", resp.StatusCode, s.count(), bodies)
	}
}
