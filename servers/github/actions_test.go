package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

func TestSearchCodeHidesOutsideAllowList(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{Repos: mustAllow(t, "octo/hello")})
	got, err := b.SearchCode(context.Background(), SearchCodeInput{Query: "ParseConfig language:go"})
	if err != nil {
		t.Fatal(err)
	}
	want := CodeSearchResult{TotalCount: 2, Hidden: 1, Page: 1, Items: []CodeMatch{{
		Repository: "octo/hello", Path: "config/parse.go", SHA: "d9d5d1a6b0b7e5c7f1f1e1d1c1b1a19181716151",
		URL: "https://github.example.com/octo/hello/blob/main/config/parse.go", Fragments: []string{"func ParseConfig(path string) (*Config, error) {"},
	}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SearchCode (-want +got):\n%s", d)
	}
	if a := f.requests()[0].Accept; a != "application/vnd.github.v3.text-match+json" {
		t.Errorf("code search Accept = %q; want the text-match media type", a)
	}
}

func TestListWorkflowRuns(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	want := WorkflowRunList{TotalCount: 1, Page: 1, Runs: []WorkflowRun{{
		ID: 100, Workflow: "CI", Title: "Fix crash on empty input", Event: "push", Status: "completed", Conclusion: "failure",
		Branch: "main", HeadSHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", RunNumber: 562, Attempt: 1, Actor: "octocat",
		CreatedAt: "2024-05-02T08:01:00Z", URL: "https://github.example.com/octo/hello/actions/runs/100",
	}}}
	for _, in := range []ListWorkflowRunsInput{
		{Owner: "octo", Repo: "hello", Branch: "main", Status: "failure"},
		{Owner: "octo", Repo: "hello", Workflow: "ci.yml"},
	} {
		got, err := b.ListWorkflowRuns(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ListWorkflowRuns(%+v) (-want +got):\n%s", in, d)
		}
	}
	if n := f.count("GET", "/api/v3/repos/octo/hello/actions/workflows/ci.yml/runs"); n != 1 {
		t.Errorf("workflow-file route used %d times; want 1", n)
	}
	if _, err := b.ListWorkflowRuns(context.Background(), ListWorkflowRunsInput{Owner: "octo", Repo: "hello", Workflow: "../x.yml"}); err == nil {
		t.Error("a workflow name with a path was accepted")
	}
}

func TestGetJobLogTail(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	got, err := b.GetJobLogTail(ctx, JobLogInput{Owner: "octo", Repo: "hello", JobID: 42, Lines: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := JobLogTail{
		JobID: 42, RunID: 100, Name: "test (ubuntu)", Status: "completed", Conclusion: "failure",
		FailedSteps: []JobStep{{Number: 3, Name: "Run go test ./...", Conclusion: "failure"}},
		ErrorLines: []LogLine{
			{Line: 10, Text: "##[error]parse_test.go:12: expected 1 token, got 0"},
			{Line: 20, Text: "##[error]Process completed with exit code 1."},
		},
		TotalLines: 1000, TailStart: 998,
		Tail: "step output line 998\nstep output line 999\nFAIL\tgithub.com/octo/hello\t0.412s", // timestamps stripped
		URL:  "https://github.example.com/octo/hello/actions/runs/100/job/42",
		Truncation: mcpkit.Truncation{Truncated: true,
			Hint: "showing the last 3 of 1000 lines (at most 500 lines and 48 KiB); errorLines lists the marked errors from the whole log"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GetJobLogTail (-want +got):\n%s", d)
	}
	// The fake fails the test if the log download carried the token; check it was made.
	if n := f.count("GET", "/_logs/job-42.txt"); n != 1 {
		t.Errorf("log downloaded %d times; want 1", n)
	}

	// By run: the first failed job is read, the other failed one is named.
	byRun, err := b.GetJobLogTail(ctx, JobLogInput{Owner: "octo", Repo: "hello", RunID: 100})
	if err != nil {
		t.Fatal(err)
	}
	if byRun.JobID != 42 || len(strings.Split(byRun.Tail, "\n")) != DefaultLogLines || byRun.TailStart != 901 {
		t.Errorf("by run: job %d, %d tail lines from %d; want job 42, %d lines from 901", byRun.JobID, len(strings.Split(byRun.Tail, "\n")), byRun.TailStart, DefaultLogLines)
	}
	if d := cmp.Diff([]JobRef{{ID: 43, Name: "test (windows)", Conclusion: "failure"}}, byRun.OtherFailed); d != "" {
		t.Errorf("other failed jobs (-want +got):\n%s", d)
	}
}

func TestJobLogTailIsBoundedInBytes(t *testing.T) {
	f := newFake(t)
	long := strings.Repeat("x", 2000)
	f.override("GET /api/v3/repos/octo/hello/actions/jobs/42/logs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, f.srv.URL+"/_logs/long.txt", http.StatusFound)
	})
	f.handle("GET /_logs/long.txt", func(w http.ResponseWriter, r *http.Request) {
		for i := range 1000 {
			fmt.Fprintf(w, "2024-05-02T08:00:00.0000000Z %d %s\n", i, long)
		}
	})
	b := f.backend(BackendConfig{})
	got, err := b.GetJobLogTail(context.Background(), JobLogInput{Owner: "octo", Repo: "hello", JobID: 42, Lines: MaxLogLines})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got.Tail, "\n")
	if len(got.Tail) > MaxLogBytes || !got.Truncated || len(lines) >= MaxLogLines || got.TailStart != 1000-len(lines)+1 {
		t.Errorf("tail: %d bytes (cap %d), %d lines from %d, truncated=%v", len(got.Tail), MaxLogBytes, len(lines), got.TailStart, got.Truncated)
	}
	for _, l := range lines {
		if len(l) > maxLogLineBytes {
			t.Fatalf("a log line of %d bytes; cap %d", len(l), maxLogLineBytes)
		}
	}
}

func TestJobLogInputErrors(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	tests := []struct {
		in   JobLogInput
		want string
	}{
		{JobLogInput{Owner: "octo", Repo: "hello"}, "give jobId"},
		{JobLogInput{Owner: "octo", Repo: "hello", JobID: 1, Lines: 501}, "lines is 501; expected 1 to 500"},
		{JobLogInput{Owner: "octo", Repo: "hello", JobID: -1}, "must be positive"},
	}
	for _, tt := range tests {
		_, err := b.GetJobLogTail(context.Background(), tt.in)
		if err == nil || !contains(err.Error(), tt.want) {
			t.Errorf("GetJobLogTail(%+v) = %v; want error containing %q", tt.in, err, tt.want)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("invalid input sent %d requests; want 0", n)
	}
}

func TestJobLogRedirectToPlainHTTPElsewhereIsRefused(t *testing.T) {
	f := newFake(t)
	f.override("GET /api/v3/repos/octo/hello/actions/jobs/42/logs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://logs.example.com/job-42.txt", http.StatusFound)
	})
	b := f.backend(BackendConfig{})
	_, err := b.GetJobLogTail(context.Background(), JobLogInput{Owner: "octo", Repo: "hello", JobID: 42})
	if err == nil || !contains(err.Error(), "only https (or http on loopback) is followed") {
		t.Errorf("err = %v; want a refusal of the plain-http log URL", err)
	}
}
