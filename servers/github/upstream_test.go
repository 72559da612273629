package github

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Regression tests for issue 13, items 9 and 10: the conditional-request cache keeps
// only answers that decoded completely, a web page is never data, reads follow the
// shared retry policy (pkg/mcpkit/upstream), and every upstream failure names GitHub,
// the operation, the status and the next step.

const pullPath = "/api/v3/repos/octo/hello/pulls/4"

// withETag serves body with content type ct and a fixed ETag, answering 304 when the
// ETag comes back, like serveWithETag but with the validator chosen by the test.
func withETag(etag, ct string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	}
}

// cutShort promises the whole body in Content-Length, sends part of it and hangs up.
func cutShort(ct string, body []byte, sent int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"cut"`)
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:sent])
		rc := http.NewResponseController(w)
		rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	}
}

// truncatedGzip sends a gzip stream missing its end, with framing that matches what
// is sent: only decompression can tell it is cut.
func truncatedGzip(ct string, body []byte) http.HandlerFunc {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(body)
	zw.Close()
	z := b.Bytes()[:b.Len()-12]
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"gz"`)
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(z)))
		w.Write(z)
	}
}

func mustContain(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\n  lacks %q", err, w)
		}
	}
}

func TestCacheNeverKeepsAnAnswerThatDidNotDecode(t *testing.T) {
	good := func(t *testing.T) []byte { return loadFixture(t, "repo_hello.json") }
	tests := []struct {
		name   string
		broken func(t *testing.T) http.HandlerFunc
		want   []string // in the error
		reqs   int      // requests the broken answer costs
	}{
		{"invalid JSON", func(t *testing.T) http.HandlerFunc {
			return withETag(`"bad"`, "application/json; charset=utf-8", []byte(`{"id": 1, "full_name": "octo/hello", oops}`))
		}, []string{"GitHub sent an answer that is not complete JSON (HTTP 200 OK, after 2 attempts: 42 bytes, invalid character", "nothing was cached; try again"}, 2},
		{"truncated JSON with valid framing", func(t *testing.T) http.HandlerFunc {
			return withETag(`"short"`, "application/json; charset=utf-8", good(t)[:120])
		}, []string{"GitHub sent an answer that is not complete JSON", "unexpected end of JSON input", "HTTP 200 OK", "try again"}, 2},
		{"Content-Length longer than the body", func(t *testing.T) http.HandlerFunc {
			return cutShort("application/json; charset=utf-8", good(t), 120)
		}, []string{"GitHub cut its answer short (HTTP 200 OK, after 3 attempts: the body broke off after 120 bytes: unexpected EOF)", "try again in a minute"}, 3},
		{"truncated gzip", func(t *testing.T) http.HandlerFunc {
			return truncatedGzip("application/json; charset=utf-8", good(t))
		}, []string{"GitHub cut its answer short (HTTP 200 OK, after 3 attempts", "try again in a minute"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			healthy := f.fixture("repo_hello.json")
			broken := tt.broken(t)
			var isBroken atomic.Bool
			f.override("GET "+repoPath, func(w http.ResponseWriter, r *http.Request) {
				if !isBroken.Load() {
					healthy(w, r)
				} else {
					broken(w, r)
				}
			})
			b := f.backend(BackendConfig{})
			waits := recordSleeps(b)
			ctx := context.Background()
			get := func() error {
				_, err := b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"})
				return err
			}
			if err := get(); err != nil { // a complete answer is cached
				t.Fatal(err)
			}

			isBroken.Store(true)
			before := len(f.requests())
			err := get()
			mustContain(t, err, append([]string{"get repository octo/hello: "}, tt.want...)...)
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error shows the token: %v", err)
			}
			reqs := f.requests()[before:]
			if len(reqs) != tt.reqs {
				t.Errorf("the broken answer cost %d requests; want %d", len(reqs), tt.reqs)
			}
			if len(reqs) > 1 && reqs[1].IfNoneMatch != "" {
				t.Errorf("the refetch sent If-None-Match %q; want none (the entry is evicted)", reqs[1].IfNoneMatch)
			}
			if tt.reqs == 3 && len(*waits) != 2 {
				t.Errorf("waits %v; want the retry policy's two backoffs", *waits)
			}
			if s := b.CacheStats(); s.Entries != 0 {
				t.Errorf("cache stats %+v after a broken answer; want it evicted and nothing stored", s)
			}
			// Broken answers are not replayed: the next call asks afresh (no validator)
			// and gets the real data.
			isBroken.Store(false)
			before = len(f.requests())
			if err := get(); err != nil {
				t.Fatalf("after the upstream recovered: %v", err)
			}
			if r := f.requests()[before]; r.IfNoneMatch != "" || r.Status != 200 {
				t.Errorf("next call sent If-None-Match %q and got %d; want a fresh 200", r.IfNoneMatch, r.Status)
			}
		})
	}
}

func TestBrokenAnswerOnceIsRefetchedOnce(t *testing.T) {
	f := newFake(t)
	f.override("GET "+repoPath, sequence(
		withETag(`"bad"`, "application/json", []byte(`{"id": 1,`)),
		f.fixture("repo_hello.json")))
	b := f.backend(BackendConfig{})
	got, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	if err != nil || got.FullName != "octo/hello" {
		t.Fatalf("got %+v, %v; want the refetched answer", got, err)
	}
	if n := f.count("GET", repoPath); n != 2 {
		t.Errorf("%d requests; want 2 (one refetch)", n)
	}
	if s := b.CacheStats(); s.Entries != 1 || s.Refetched != 1 {
		t.Errorf("cache stats %+v; want the good answer stored after one refetch", s)
	}
}

func TestCutDiffIsNeverServedAsComplete(t *testing.T) {
	diff := []byte(bigDiff(40))
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    []string
	}{
		{"valid framing, ends mid-line", withETag(`"d1"`, "text/plain; charset=utf-8", diff[:len(diff)-7]),
			[]string{"GitHub sent a diff cut short: it ends mid-line (HTTP 200 OK, after 2 attempts: 620 bytes)", "try again"}},
		{"Content-Length longer than the body", cutShort("text/plain; charset=utf-8", diff, 300),
			[]string{"GitHub cut its answer short (HTTP 200 OK, after 3 attempts: the body broke off after 300 bytes", "try again in a minute"}},
		{"truncated gzip", truncatedGzip("text/plain; charset=utf-8", diff),
			[]string{"GitHub cut its answer short (HTTP 200 OK, after 3 attempts", "try again in a minute"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.override("GET "+pullPath, tt.handler)
			b := f.backend(BackendConfig{})
			recordSleeps(b)
			for i := 0; i < 2; i++ { // the second call must not replay anything
				d, err := b.GetPullRequestDiff(context.Background(), PullRequestDiffInput{Owner: "octo", Repo: "hello", Number: 4})
				mustContain(t, err, append([]string{"get diff of pull request octo/hello#4: "}, tt.want...)...)
				if d.Diff != "" {
					t.Errorf("call %d returned %d bytes of a cut diff", i+1, len(d.Diff))
				}
			}
			if s := b.CacheStats(); s.Entries != 0 || s.Revalidated != 0 {
				t.Errorf("cache stats %+v; want nothing stored or replayed", s)
			}
		})
	}
}

func TestHTMLPageIsAnErrorNotData(t *testing.T) {
	login := []byte("<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form action=\"/login\">Corporate SSO</form></body></html>\n")
	f := newFake(t)
	f.override("GET "+pullPath, withETag(`"login"`, "text/html; charset=utf-8", login))
	f.override("GET "+repoPath, withETag(`"login"`, "text/html; charset=utf-8", login))
	b := f.backend(BackendConfig{})
	recordSleeps(b)
	ctx := context.Background()

	d, err := b.GetPullRequestDiff(ctx, PullRequestDiffInput{Owner: "octo", Repo: "hello", Number: 4})
	mustContain(t, err, "get diff of pull request octo/hello#4: GitHub answered with an HTML page (text/html) instead of a diff",
		"HTTP 200 OK", "proxy", "login page", "check HTTPS_PROXY", "GITHUB_HOST")
	if d.Diff != "" || strings.Contains(err.Error(), "Corporate SSO") {
		t.Errorf("the page leaked through: diff %q, err %v", d.Diff, err)
	}
	_, err = b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"})
	mustContain(t, err, "get repository octo/hello: GitHub answered with an HTML page (text/html) instead of JSON", "HTTP 200 OK", "login page")
	if strings.Contains(err.Error(), "invalid character") {
		t.Errorf("error is the decoder's, not the cause: %v", err)
	}
	if n := f.count("GET", pullPath) + f.count("GET", repoPath); n != 2 {
		t.Errorf("%d requests; want 2 (a login page is not retried)", n)
	}
	if s := b.CacheStats(); s.Entries != 0 {
		t.Errorf("cache stats %+v; want the page not stored", s)
	}
}

func TestReadsAreRetriedBySharedPolicy(t *testing.T) {
	serverError := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 500, map[string]string{"message": "Server Error"})
	}
	reset := func(w http.ResponseWriter, r *http.Request) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}
	tests := []struct {
		name     string
		first    http.HandlerFunc
		wantWait func(time.Duration) bool
	}{
		{"a single 500", serverError, func(d time.Duration) bool { return d > 0 && d <= time.Second }},
		{"a connection closed before the answer", reset, func(d time.Duration) bool { return d > 0 && d <= time.Second }},
		{"503 with Retry-After 2", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			writeJSON(w, 503, map[string]string{"message": "Service Unavailable"})
		}, func(d time.Duration) bool { return d == 2*time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.override("GET "+repoPath, sequence(tt.first, f.fixture("repo_hello.json")))
			b := f.backend(BackendConfig{})
			waits := recordSleeps(b)
			got, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
			if err != nil || got.FullName != "octo/hello" {
				t.Fatalf("got %+v, %v; want success after one retry", got, err)
			}
			if n := f.count("GET", repoPath); n != 2 {
				t.Errorf("%d requests; want 2", n)
			}
			if len(*waits) != 1 || !tt.wantWait((*waits)[0]) {
				t.Errorf("waits %v; want one wait of the policy", *waits)
			}
		})
	}

	// A Retry-After longer than the wait allowed is reported, not slept through.
	f := newFake(t)
	f.override("GET "+repoPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "600")
		writeJSON(w, 503, map[string]string{"message": "Service Unavailable"})
	})
	b := f.backend(BackendConfig{})
	waits := recordSleeps(b)
	_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	mustContain(t, err, "get repository octo/hello: GitHub had an internal error (HTTP 503 Service Unavailable", "try again in a few minutes")
	if n := f.count("GET", repoPath); n != 1 || len(*waits) != 0 {
		t.Errorf("%d requests, waits %v; want 1 and none", n, *waits)
	}

	// Writes are never retried by the policy.
	f = newFake(t)
	f.override("POST "+repoPath+"/issues", sequence(serverError, f.created("created_issue.json")))
	b = f.backend(BackendConfig{})
	recordSleeps(b)
	_, err = b.CreateIssue(context.Background(), CreateIssueInput{Owner: "octo", Repo: "hello", Title: "t"})
	mustContain(t, err, "GitHub had an internal error (HTTP 500 Internal Server Error")
	if n := f.count("POST", repoPath+"/issues"); n != 1 {
		t.Errorf("a failed write was sent %d times; want once", n)
	}
}

func TestUnreachableGitHubIsNamedWithTheNextStep(t *testing.T) {
	b, err := NewBackend(BackendConfig{Token: testToken, Host: "http://127.0.0.1:1", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	waits := recordSleeps(b)
	_, err = b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	mustContain(t, err, "get repository octo/hello: GitHub refused the connection", "after 3 attempts",
		"check GITHUB_HOST (http://127.0.0.1:1/api/v3/)")
	if len(*waits) != 2 {
		t.Errorf("waits %v; want two backoffs", *waits)
	}
}
