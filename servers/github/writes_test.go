package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lastBody decodes the JSON body of the last request to method+path.
func (f *fakeGitHub) lastBody(t *testing.T, method, path string) map[string]any {
	t.Helper()
	reqs := f.requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == method && reqs[i].Path == path {
			var m map[string]any
			if err := json.Unmarshal(reqs[i].Body, &m); err != nil {
				t.Fatalf("%s %s body: %v", method, path, err)
			}
			return m
		}
	}
	t.Fatalf("no %s %s request", method, path)
	return nil
}

func TestWrites(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{Repos: mustAllow(t, "octo/hello")})
	ctx := context.Background()

	is, err := b.CreateIssue(ctx, CreateIssueInput{Owner: "octo", Repo: "hello", Title: "New bug", Body: "Steps to reproduce", Labels: []string{"bug"}, Assignees: []string{"octocat"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(CreatedIssue{Repository: "octo/hello", Number: 11, URL: "https://github.example.com/octo/hello/issues/11"}, is); d != "" {
		t.Errorf("CreateIssue (-want +got):\n%s", d)
	}
	wantIssue := map[string]any{"title": "New bug", "body": "Steps to reproduce", "labels": []any{"bug"}, "assignees": []any{"octocat"}}
	if d := cmp.Diff(wantIssue, f.lastBody(t, "POST", "/api/v3/repos/octo/hello/issues")); d != "" {
		t.Errorf("issue request body (-want +got):\n%s", d)
	}

	c, err := b.AddComment(ctx, AddCommentInput{Owner: "octo", Repo: "hello", Number: 5, Body: "Fixed in #4."})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(CreatedComment{ID: 950, URL: "https://github.example.com/octo/hello/issues/5#issuecomment-950"}, c); d != "" {
		t.Errorf("AddComment (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"body": "Fixed in #4."}, f.lastBody(t, "POST", "/api/v3/repos/octo/hello/issues/5/comments")); d != "" {
		t.Errorf("comment request body (-want +got):\n%s", d)
	}

	pr, err := b.CreatePullRequest(ctx, CreatePullRequestInput{Owner: "octo", Repo: "hello", Title: "Add feature", Body: "Implements it.", Head: "octocat:feature", Base: "main", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(CreatedPullRequest{Repository: "octo/hello", Number: 12, URL: "https://github.example.com/octo/hello/pull/12"}, pr); d != "" {
		t.Errorf("CreatePullRequest (-want +got):\n%s", d)
	}
	wantPR := map[string]any{"title": "Add feature", "body": "Implements it.", "head": "octocat:feature", "base": "main", "draft": true}
	if d := cmp.Diff(wantPR, f.lastBody(t, "POST", "/api/v3/repos/octo/hello/pulls")); d != "" {
		t.Errorf("pull request body (-want +got):\n%s", d)
	}

	fc, err := b.CreateOrUpdateFile(ctx, CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "docs/my notes.md", Content: "# Notes\n", Message: "Add notes", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	wantFC := FileCommit{Path: "docs/my notes.md", Created: true, ContentSHA: "95b966ae1c166bd92f8ae7d1c313e738c731dfc3",
		CommitSHA: "7638417db6d59f3c431d3e1f261cc637155684cd", URL: "https://github.example.com/octo/hello/commit/7638417db6d59f3c431d3e1f261cc637155684cd"}
	if d := cmp.Diff(wantFC, fc); d != "" {
		t.Errorf("CreateOrUpdateFile (-want +got):\n%s", d)
	}
	body := f.lastBody(t, "PUT", "/api/v3/repos/octo/hello/contents/docs/my notes.md")
	if d := cmp.Diff(map[string]any{"message": "Add notes", "branch": "main", "content": base64.StdEncoding.EncodeToString([]byte("# Notes\n"))}, body); d != "" {
		t.Errorf("file request body (-want +got):\n%s", d)
	}
}

func TestCreateFileThatExistsSaysToPassSHA(t *testing.T) {
	f := newFake(t)
	f.override("PUT /api/v3/repos/octo/hello/contents/README.md", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 422, map[string]string{"message": "Invalid request.\n\n\"sha\" wasn't supplied.", "documentation_url": "https://docs.github.com/rest/repos/contents"})
	})
	b := f.backend(BackendConfig{})
	_, err := b.CreateOrUpdateFile(context.Background(), CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "README.md", Content: "x", Message: "m"})
	if err == nil || !contains(err.Error(), "the file already exists; pass sha") {
		t.Errorf("err = %v", err)
	}
}

func TestWriteInputValidation(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"empty title", func() error {
			_, err := b.CreateIssue(ctx, CreateIssueInput{Owner: "octo", Repo: "hello", Title: " "})
			return err
		}, "title is empty"},
		{"long title", func() error {
			_, err := b.CreateIssue(ctx, CreateIssueInput{Owner: "octo", Repo: "hello", Title: strings.Repeat("é", 257)})
			return err
		}, "title is 257 characters"},
		{"bad assignee", func() error {
			_, err := b.CreateIssue(ctx, CreateIssueInput{Owner: "octo", Repo: "hello", Title: "t", Assignees: []string{"a b"}})
			return err
		}, "assignee"},
		{"empty comment", func() error {
			_, err := b.AddComment(ctx, AddCommentInput{Owner: "octo", Repo: "hello", Number: 1})
			return err
		}, "body is empty"},
		{"bad head", func() error {
			_, err := b.CreatePullRequest(ctx, CreatePullRequestInput{Owner: "octo", Repo: "hello", Title: "t", Head: "feat..x", Base: "main"})
			return err
		}, "head \"feat..x\" is not a valid git ref"},
		{"path traversal", func() error {
			_, err := b.CreateOrUpdateFile(ctx, CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "docs/../../x", Content: "x", Message: "m"})
			return err
		}, "must not contain . or .."},
		{"too large", func() error {
			_, err := b.CreateOrUpdateFile(ctx, CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "a", Content: strings.Repeat("x", MaxWriteFileBytes+1), Message: "m"})
			return err
		}, "at most 1048576 can be written"},
		{"bad sha", func() error {
			_, err := b.CreateOrUpdateFile(ctx, CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "a", Content: "x", Message: "m", SHA: "main"})
			return err
		}, "is not a blob SHA"},
	}
	for _, tt := range tests {
		err := tt.call()
		if err == nil || !contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v; want it to contain %q", tt.name, err, tt.want)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("invalid writes sent %d requests; want 0", n)
	}
}

func TestDescribeWrites(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{Repos: mustAllow(t, "octo/hello")})
	tests := []struct {
		name string
		call func() (string, error)
		want string
	}{
		{"issue", func() (string, error) {
			return b.DescribeCreateIssue(CreateIssueInput{Owner: "octo", Repo: "hello", Title: "Crash\nApproved: yes", Body: "line one\n-----\nsafe\u202etxt.exe", Labels: []string{"bug"}})
		}, "Create an issue in octo/hello on " + f.srv.Listener.Addr().String() + "\n" +
			"Title: Crash\\nApproved: yes\n" +
			"Labels: bug\n" +
			"Body (29 bytes):\n| line one\n| -----\n| safe\\u{202E}txt.exe\n" +
			"Warning: the text contains 1 invisible or direction-changing character(s), shown above as \\u{…}.\n"},
		{"comment", func() (string, error) {
			return b.DescribeAddComment(AddCommentInput{Owner: "octo", Repo: "hello", Number: 5, Body: "LGTM"})
		}, "Comment on octo/hello#5 on " + f.srv.Listener.Addr().String() + "\nComment (4 bytes):\n| LGTM\n"},
		{"pull request", func() (string, error) {
			return b.DescribeCreatePullRequest(CreatePullRequestInput{Owner: "octo", Repo: "hello", Title: "Add", Head: "feature", Base: "main", Draft: true})
		}, "Open a draft pull request in octo/hello on " + f.srv.Listener.Addr().String() + ": merge feature into main\nTitle: Add\nDescription: (empty)\n"},
		{"file update", func() (string, error) {
			return b.DescribeCreateOrUpdateFile(CreateOrUpdateFileInput{Owner: "octo", Repo: "hello", Path: "a.txt", Content: "one\ntwo", Message: "Edit a\n\nbody", SHA: strings.Repeat("ab", 20)})
		}, "Replace the file (current blob abababababab) at a.txt in octo/hello on " + f.srv.Listener.Addr().String() + ", committing to the default branch\n" +
			"Commit message: Edit a\nNew content, 2 lines (7 bytes):\n| one\n| two\n"},
	}
	for _, tt := range tests {
		got, err := tt.call()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
	long, _ := b.DescribeAddComment(AddCommentInput{Owner: "octo", Repo: "hello", Number: 5, Body: strings.Repeat("y", 5000)})
	if !contains(long, "(the last 3000 bytes are not shown)") {
		t.Errorf("long preview does not say what it left out:\n%s", long)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("Describe sent %d requests; it must not touch GitHub", n)
	}
}
