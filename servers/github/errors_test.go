package github

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestErrorsSayWhatFailed(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		message string
		want    string
	}{
		{"not found", 404, "Not Found", "get repository octo/hello: not found (404) on GitHub; check the owner"},
		{"bad credentials", 401, "Bad credentials", "GitHub rejected the token (401 Bad credentials); check that GITHUB_TOKEN is set"},
		{"validation", 422, "Validation Failed", "GitHub refused the input (422 Validation Failed)"},
		{"server error", 502, "Server Error", "get repository octo/hello: GitHub had an internal error (HTTP 502 Bad Gateway, after 3 attempts: Server Error); try again in a few minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.override("GET "+repoPath, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.status, map[string]string{"message": tt.message})
			})
			b := f.backend(BackendConfig{})
			recordSleeps(b)
			_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
			if err == nil || !contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestPerCallDeadline(t *testing.T) {
	f := newFake(t)
	f.override("GET "+repoPath, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // hang until the client gives up
	})
	b := f.backend(BackendConfig{Timeout: 100 * time.Millisecond})
	_, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	if err == nil || !contains(err.Error(), "GitHub did not answer within 100ms (the per-call timeout)") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want the per-call timeout", err)
	}
}

// TestTokenNeverAppearsInErrorsOrLogs provokes every kind of failure, including a
// GitHub message that echoes the token back, and checks neither errors nor logs
// carry it.
func TestTokenNeverAppearsInErrorsOrLogs(t *testing.T) {
	f := newFake(t)
	f.override("GET "+repoPath+"/branches", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 422, map[string]string{"message": "token " + r.Header.Get("Authorization") + " is odd"})
	})
	f.override("GET "+repoPath+"/tags", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 500, map[string]string{"message": "oops"})
	})
	f.override("GET "+repoPath+"/releases", primaryLimited(time.Now().Add(time.Hour)))
	f.override("GET /api/v3/repos/octo/public2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 500, map[string]string{"message": "visibility unavailable " + r.Header.Get("Authorization")})
	})
	f.override("GET /api/v3/repos/octo/public2/issues/7", f.fixture("issue_7.json"))
	f.override("GET /api/v3/repos/octo/public2/issues/7/comments", f.fixture("issue_7_comments.json"))
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := f.backend(BackendConfig{Lockdown: true, Logger: logger})
	ctx := context.Background()
	in := ListRepoInput{Owner: "octo", Repo: "hello"}

	var errs []error
	collect := func(_ any, err error) { errs = append(errs, err) }
	collect(b.ListBranches(ctx, in))
	collect(b.ListTags(ctx, in))
	collect(b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "nope"}))
	wrong := f.backend(BackendConfig{Token: "ghp_WRONGTOKENxxxxxxxxxxxxxxxxxxxxxxx"})
	collect(wrong.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"}))
	unreachable, err := NewBackend(BackendConfig{Token: testToken, Host: "http://127.0.0.1:1", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	collect(unreachable.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"}))
	_, err = NewBackend(BackendConfig{Token: testToken + "\n"})
	errs = append(errs, err)
	// Lockdown cannot read visibility: it fails closed (hides) and logs a warning.
	issue, err := b.GetIssue(ctx, GetIssueInput{Owner: "octo", Repo: "public2", Number: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !issue.BodyHidden {
		t.Error("lockdown did not fail closed when visibility was unknown")
	}
	collect(b.ListReleases(ctx, in)) // last: it leaves "core" rate-limited

	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		for _, tok := range []string{testToken, "ghp_WRONGTOKEN"} {
			if strings.Contains(err.Error(), tok) {
				t.Errorf("case %d: error shows the token: %v", i, err)
			}
		}
	}
	if !contains(errs[0].Error(), "token Bearer [REDACTED] is odd") {
		t.Errorf("echoed token not redacted as expected: %v", errs[0])
	}
	if !contains(logs.String(), "cannot read repository visibility") || strings.Contains(logs.String(), testToken) {
		t.Errorf("logs = %q; want the lockdown warning without the token", logs.String())
	}
}
