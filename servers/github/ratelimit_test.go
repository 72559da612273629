package github

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recordSleeps replaces the backend's sleeps (rate-limit waits and the retry policy's
// backoff and Retry-After waits) with one that returns at once and remembers what it
// was asked to wait, so retries are tested without waiting.
func recordSleeps(b *Backend) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	record := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*waits = append(*waits, d)
		return nil
	}
	b.rl.sleep = record
	b.retry.Policy.Sleep = record
	return waits
}

// sequence answers a route with the given handlers in turn, the last one repeating.
func sequence(hs ...http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := hs[min(n, len(hs)-1)]
		n++
		mu.Unlock()
		h(w, r)
	}
}

func primaryLimited(reset time.Time) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		writeJSON(w, 403, map[string]string{"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
	}
}

func secondaryLimited(retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeJSON(w, 429, map[string]string{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
	}
}

const repoPath = "/api/v3/repos/octo/hello"

func TestPrimaryRateLimitReportsResetTime(t *testing.T) {
	f := newFake(t)
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	f.override("GET "+repoPath, primaryLimited(reset))
	b := f.backend(BackendConfig{})
	waits := recordSleeps(b)

	_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v; want a *RateLimitError", err)
	}
	if d := cmp.Diff(RateLimitError{Resource: "core", Limit: 5000, Reset: reset}, *rl, cmpTime); d != "" {
		t.Errorf("rate limit error (-want +got):\n%s", d)
	}
	if !contains(err.Error(), "resets at "+reset.UTC().Format(time.RFC3339)) {
		t.Errorf("message does not state the reset time: %v", err)
	}
	if len(*waits) != 0 {
		t.Errorf("waited %v for an hour-long limit; want no wait", *waits)
	}

	// While the limit lasts, the next call is refused without asking GitHub again.
	_, err = b.ListIssues(context.Background(), ListIssuesInput{Owner: "octo", Repo: "hello"})
	if !errors.As(err, &rl) || !rl.Local {
		t.Errorf("second call: err = %v; want a local *RateLimitError", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("fake saw %d requests; want 1 (GitHub asks clients to stop while limited)", n)
	}
}

func TestRateLimitsRetriedWhenShort(t *testing.T) {
	tests := []struct {
		name     string
		first    func() http.HandlerFunc
		wantWait func(time.Duration) bool
	}{
		{"primary resets in 2s", func() http.HandlerFunc { return primaryLimited(time.Now().Add(2 * time.Second)) },
			func(d time.Duration) bool { return d > 0 && d <= 3*time.Second }},
		{"secondary 429 with Retry-After 3", func() http.HandlerFunc { return secondaryLimited("3") },
			func(d time.Duration) bool { return d == 3*time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.override("GET "+repoPath, sequence(tt.first(), f.fixture("repo_hello.json")))
			b := f.backend(BackendConfig{})
			waits := recordSleeps(b)
			got, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
			if err != nil {
				t.Fatalf("err = %v; want success after one retry", err)
			}
			if got.FullName != "octo/hello" {
				t.Errorf("FullName = %q", got.FullName)
			}
			if len(*waits) != 1 || !tt.wantWait((*waits)[0]) {
				t.Errorf("waits = %v", *waits)
			}
			if n := f.count("GET", repoPath); n != 2 {
				t.Errorf("fake saw %d requests; want 2 (limited, then retried)", n)
			}
		})
	}
}

func TestSecondaryRateLimitTooLongIsReported(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wait    time.Duration
	}{
		{"429 Retry-After 120", secondaryLimited("120"), 120 * time.Second},
		{"403 secondary message without headers", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 403, map[string]string{"message": "You have exceeded a secondary rate limit and have been temporarily blocked from content creation."})
		}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.override("GET "+repoPath, tt.handler)
			b := f.backend(BackendConfig{})
			waits := recordSleeps(b)
			before := time.Now()
			_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
			var rl *RateLimitError
			if !errors.As(err, &rl) || !rl.Secondary {
				t.Fatalf("err = %v; want a secondary *RateLimitError", err)
			}
			if rl.Reset.Before(before.Add(tt.wait)) || rl.Reset.After(time.Now().Add(tt.wait)) {
				t.Errorf("reset %v is not %v after the request", rl.Reset, tt.wait)
			}
			if !contains(err.Error(), "secondary rate limit hit") || !contains(err.Error(), "retry after "+rl.Reset.UTC().Format(time.RFC3339)) {
				t.Errorf("message = %v", err)
			}
			if len(*waits) != 0 {
				t.Errorf("waited %v; want no wait", *waits)
			}
			// A secondary limit blocks every kind of request for its duration.
			if _, err := b.SearchCode(context.Background(), SearchCodeInput{Query: "x"}); !errors.As(err, &rl) || !rl.Local {
				t.Errorf("search during a secondary limit: err = %v; want a local refusal", err)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("fake saw %d requests; want 1", n)
			}
		})
	}
}

func TestRateLimitWaitBeyondDeadlineIsNotTaken(t *testing.T) {
	f := newFake(t)
	f.override("GET "+repoPath, sequence(secondaryLimited("5"), f.fixture("repo_hello.json")))
	b := f.backend(BackendConfig{Timeout: 2 * time.Second})
	waits := recordSleeps(b)
	_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v; want a *RateLimitError (a 5 s wait does not fit a 2 s deadline)", err)
	}
	if len(*waits) != 0 {
		t.Errorf("waited %v past the deadline", *waits)
	}
}

func TestRateLimitedWriteIsRetriedWithItsBody(t *testing.T) {
	f := newFake(t)
	f.override("POST "+repoPath+"/issues", sequence(secondaryLimited("1"), f.created("created_issue.json")))
	b := f.backend(BackendConfig{})
	recordSleeps(b)
	if _, err := b.CreateIssue(context.Background(), CreateIssueInput{Owner: "octo", Repo: "hello", Title: "New bug", Body: "Steps"}); err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for _, r := range f.requests() {
		bodies = append(bodies, r.Body)
	}
	if len(bodies) != 2 || !bytes.Equal(bodies[0], bodies[1]) || len(bodies[0]) == 0 {
		t.Errorf("bodies sent = %q; want the same non-empty body twice", bodies)
	}
}

func TestPermissionDenied403IsNotARateLimit(t *testing.T) {
	f := newFake(t)
	f.override("GET "+repoPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, map[string]string{"message": "Resource not accessible by integration"})
	})
	b := f.backend(BackendConfig{})
	_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	var rl *RateLimitError
	if errors.As(err, &rl) || err == nil || !contains(err.Error(), "forbidden (403 Resource not accessible by integration)") {
		t.Errorf("err = %v; want a plain permission error", err)
	}
}

var cmpTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })
