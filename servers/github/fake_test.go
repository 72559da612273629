package github

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testToken is what the fake expects in Authorization. Tests assert it never shows up
// in an error.
const testToken = "ghp_TESTTOKEN0123456789abcdefSECRET"

// otherToken is a second valid credential, for tests of per-token cache separation.
const otherToken = "ghp_OTHERTOKEN9876543210fedcbaSECRET"

// fakeGitHub is an HTTP fake of the GitHub Enterprise Server REST API: every API path
// lives under /api/v3/, as on a real Enterprise host. It serves fixtures from
// testdata/ with ETags (answering If-None-Match with 304), paginates array fixtures
// with Link headers, records every request, and fails the test on any request that is
// not under /api/v3/ (log downloads under /_logs/ excepted) or that carries the wrong
// credentials.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	mu        sync.Mutex
	reqs      []seen
	overrides map[string]http.HandlerFunc // "METHOD /path" -> handler, ahead of the defaults
}

type seen struct {
	Method, Path, Query string
	IfNoneMatch         string
	Accept              string
	Auth                string
	Body                []byte
	Status              int
}

func newFake(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, mux: http.NewServeMux()}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	f.routes()
	return f
}

// backend connects a Backend to the fake through GITHUB_HOST-style configuration.
func (f *fakeGitHub) backend(cfg BackendConfig) *Backend {
	f.t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	cfg.Host = f.srv.URL
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	b, err := NewBackend(cfg)
	if err != nil {
		f.t.Fatalf("NewBackend: %v", err)
	}
	return b
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match"),
		Accept: r.Header.Get("Accept"), Auth: r.Header.Get("Authorization"), Body: body, Status: 200}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// The request is on record before its handler runs, and its status as soon as the
	// handler writes it: a client cannot see an answer (or a cut connection) and count
	// the requests before this one is among them.
	f.mu.Lock()
	f.reqs = append(f.reqs, s)
	idx := len(f.reqs) - 1
	f.mu.Unlock()
	rec := &statusRecorder{ResponseWriter: w, status: 200, record: func(code int) {
		f.mu.Lock()
		f.reqs[idx].Status = code
		f.mu.Unlock()
	}}
	switch {
	case strings.HasPrefix(r.URL.Path, "/_logs/"):
		if s.Auth != "" {
			f.t.Errorf("log download %s was sent an Authorization header; the token must stay with the API host", r.URL.Path)
		}
	case !strings.HasPrefix(r.URL.Path, "/api/v3/") && r.URL.Path != "/api/graphql":
		f.t.Errorf("request %s %s is not under the Enterprise API root /api/v3/", r.Method, r.URL.Path)
		http.NotFound(rec, r)
		return
	case s.Auth != "Bearer "+testToken && s.Auth != "Bearer "+otherToken:
		writeJSON(rec, 401, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	rateHeaders(rec.Header(), resourceOf(r.URL.Path), 4999)
	f.mu.Lock()
	h := f.overrides[r.Method+" "+r.URL.Path]
	f.mu.Unlock()
	if h != nil {
		h(rec, r)
		return
	}
	f.mux.ServeHTTP(rec, r)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	record func(code int) // puts the status on the fake's record
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.record(code)
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (Flush, Hijack), for
// handlers that cut an answer short.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func rateHeaders(h http.Header, resource string, remaining int) {
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
}

// handle registers a route; patterns use net/http's method and wildcard syntax.
func (f *fakeGitHub) handle(pattern string, h http.HandlerFunc) { f.mux.HandleFunc(pattern, h) }

// override replaces the answer for one exact method and path.
func (f *fakeGitHub) override(methodPath string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.overrides == nil {
		f.overrides = map[string]http.HandlerFunc{}
	}
	f.overrides[methodPath] = h
}

// requests returns what the fake has seen so far.
func (f *fakeGitHub) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// count returns how many requests hit method+path (path without query).
func (f *fakeGitHub) count(method, path string) int {
	n := 0
	for _, r := range f.requests() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

func loadFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

// serveWithETag answers like GitHub: a strong ETag on every 200, and 304 Not Modified
// (with no body) when If-None-Match names the current ETag.
func serveWithETag(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "private, max-age=60, s-maxage=60")
	w.Header().Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(body)
}

func (f *fakeGitHub) fixture(name string) http.HandlerFunc {
	body := loadFixture(f.t, name)
	return func(w http.ResponseWriter, r *http.Request) {
		serveWithETag(w, r, "application/json; charset=utf-8", body)
	}
}

// paged serves an array fixture a page at a time (page, per_page) with GitHub's Link
// header, so go-github's NextPage is computed from real Link parsing.
func (f *fakeGitHub) paged(name string) http.HandlerFunc {
	var items []json.RawMessage
	if err := json.Unmarshal(loadFixture(f.t, name), &items); err != nil {
		f.t.Fatalf("fixture %s: %v", name, err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		if page < 1 {
			page = 1
		}
		if per < 1 {
			per = 30
		}
		last := (len(items) + per - 1) / per
		lo, hi := min((page-1)*per, len(items)), min(page*per, len(items))
		link := func(p int, rel string) string {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(p))
			q.Set("per_page", strconv.Itoa(per))
			return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, f.srv.URL, r.URL.Path, q.Encode(), rel)
		}
		var links []string
		if page < last {
			links = append(links, link(page+1, "next"), link(last, "last"))
		}
		if page > 1 {
			links = append(links, link(1, "first"), link(page-1, "prev"))
		}
		if len(links) > 0 {
			w.Header().Set("Link", strings.Join(links, ", "))
		}
		body, _ := json.Marshal(items[lo:hi])
		serveWithETag(w, r, "application/json; charset=utf-8", body)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// routes registers the default answers for the repositories the tests use:
// octo/hello (public) and octo/secret (private).
func (f *fakeGitHub) routes() {
	const r = "/api/v3/repos/octo/hello"
	f.handle("GET "+r, f.fixture("repo_hello.json"))
	f.handle("GET /api/v3/repos/octo/secret", f.fixture("repo_secret.json"))
	f.handle("GET /api/v3/search/repositories", f.fixture("search_repositories.json"))
	f.handle("GET /api/v3/search/issues", f.fixture("search_issues.json"))
	f.handle("GET /api/v3/search/code", f.fixture("search_code.json"))
	f.handle("GET "+r+"/contents/{$}", f.fixture("contents_root.json"))
	f.handle("GET "+r+"/contents/README.md", f.fixture("contents_readme.json"))
	f.handle("GET "+r+"/branches", f.paged("branches.json"))
	f.handle("GET "+r+"/tags", f.paged("tags.json"))
	f.handle("GET "+r+"/releases", f.paged("releases.json"))
	f.handle("GET "+r+"/commits", f.paged("commits.json"))
	f.handle("GET "+r+"/commits/{ref}", f.fixture("commit.json"))
	f.handle("GET "+r+"/issues", f.paged("issues.json"))
	for _, repo := range []string{"hello", "secret"} {
		base := "/api/v3/repos/octo/" + repo
		f.handle("GET "+base+"/issues/7", f.fixture("issue_7.json"))
		f.handle("GET "+base+"/issues/7/comments", f.paged("issue_7_comments.json"))
		f.handle("GET "+base+"/pulls/4", f.pullOrDiff())
		f.handle("GET "+base+"/pulls/4/reviews", f.paged("pull_4_reviews.json"))
	}
	f.handle("GET "+r+"/collaborators/collab/permission", f.fixture("permission_collab.json"))
	f.handle("GET "+r+"/collaborators/stranger/permission", f.fixture("permission_stranger.json"))
	f.handle("GET "+r+"/pulls", f.paged("pulls.json"))
	f.handle("GET "+r+"/pulls/4/files", f.paged("pull_4_files.json"))
	f.handle("GET "+r+"/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/status", f.fixture("status_e5bd.json"))
	f.handle("GET "+r+"/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/check-runs", f.fixture("check_runs_e5bd.json"))
	f.handle("GET "+r+"/actions/runs", f.fixture("workflow_runs.json"))
	f.handle("GET "+r+"/actions/workflows/ci.yml/runs", f.fixture("workflow_runs.json"))
	f.handle("GET "+r+"/actions/jobs/42", f.fixture("job_42.json"))
	f.handle("GET "+r+"/actions/runs/100/jobs", f.fixture("jobs_run_100.json"))
	f.handle("GET "+r+"/actions/jobs/42/logs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, f.srv.URL+"/_logs/job-42.txt?sig=presigned", http.StatusFound)
	})
	f.handle("GET /_logs/job-42.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, jobLog(1000))
	})
	f.handle("POST "+r+"/issues", f.created("created_issue.json"))
	f.handle("POST "+r+"/issues/{n}/comments", f.created("created_comment.json"))
	f.handle("POST "+r+"/pulls", f.created("created_pull.json"))
	f.handle("PUT "+r+"/contents/{path...}", f.created("created_file.json"))
	f.breadthRoutes()
}

// pullOrDiff serves a pull request as JSON, or as a unified diff when asked for the
// diff media type, as GitHub does on the same URL.
func (f *fakeGitHub) pullOrDiff() http.HandlerFunc {
	js := loadFixture(f.t, "pull_4.json")
	return func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "diff") {
			serveWithETag(w, r, "text/plain; charset=utf-8", []byte(bigDiff(40)))
			return
		}
		serveWithETag(w, r, "application/json; charset=utf-8", js)
	}
}

func (f *fakeGitHub) created(name string) http.HandlerFunc {
	body := loadFixture(f.t, name)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	}
}

// jobLog makes an Actions log of n lines with GitHub's timestamp prefix, two
// ##[error] lines early on and a failing test near the end.
func jobLog(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		text := fmt.Sprintf("step output line %d", i)
		switch i {
		case 1:
			text = "##[group]Run go test ./..."
		case 10:
			text = "##[error]parse_test.go:12: expected 1 token, got 0"
		case 20:
			text = "##[error]Process completed with exit code 1."
		case n:
			text = "FAIL\tgithub.com/octo/hello\t0.412s"
		}
		fmt.Fprintf(&b, "2024-05-02T08:0%d:%02d.1234567Z %s\n", i%10, i%60, text)
	}
	return b.String()
}

// bigDiff makes a unified diff of about n lines in one file.
func bigDiff(n int) string {
	var b strings.Builder
	b.WriteString("diff --git a/big.txt b/big.txt\nindex 0000000..1111111 100644\n--- a/big.txt\n+++ b/big.txt\n")
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", n-5)
	for i := 6; i <= n; i++ {
		fmt.Fprintf(&b, "+added line %d\n", i)
	}
	return b.String()
}
