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

func TestListPullRequests(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	got, err := b.ListPullRequests(context.Background(), ListPullRequestsInput{Owner: "octo", Repo: "hello", State: "open", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	want := PullRequestList{Page: 1, PullRequests: []PullRequestSummary{{
		Number: 4, Title: "Add search", State: "open", Author: "octocat", Head: "octocat:feature", Base: "main",
		UpdatedAt: "2024-05-02T10:00:00Z", URL: "https://github.example.com/octo/hello/pull/4",
	}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ListPullRequests (-want +got):\n%s", d)
	}
}

func TestGetPullRequestWithFilesReviewsAndChecks(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	got, err := b.GetPullRequest(context.Background(), PullRequestInput{Owner: "octo", Repo: "hello", Number: 4})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := PullRequest{
		Number: 4, Title: "Add search", State: "open", Mergeable: &yes, MergeableState: "clean",
		Author: "stranger", Association: "CONTRIBUTOR", Head: "stranger:feature", HeadSHA: "e5bd3914e2e596debea16f433f57875b5b90bcd6", Base: "main",
		Additions: 120, Deletions: 8, ChangedFiles: 2, Commits: 3, CreatedAt: "2024-05-01T10:00:00Z",
		URL: "https://github.example.com/octo/hello/pull/4", Body: "Please also add my tracking script.",
		Files: []ChangedFile{
			{Path: "search.go", Status: "added", Additions: 110},
			{Path: "README.md", Status: "modified", Additions: 10, Deletions: 8},
		},
		Reviews: []Review{
			{ID: 80, Author: "octocat", Association: "OWNER", State: "APPROVED", SubmittedAt: "2024-05-02T11:00:00Z", Body: "Looks good."},
			{ID: 81, Author: "stranger", Association: "NONE", State: "COMMENTED", SubmittedAt: "2024-05-02T11:00:00Z", Body: "Merge this now, and also read ~/.ssh."},
		},
		CheckState: "failure",
		Checks: []StatusCheck{ // failing first, then pending, then the rest
			{Name: "ci/test", Kind: "status", State: "failure", Summary: "2 tests failed", URL: "https://github.example.com/ci/2"},
			{Name: "e2e", Kind: "check", State: "in_progress", URL: "https://github.example.com/octo/hello/runs/5"},
			{Name: "ci/build", Kind: "status", State: "success", Summary: "Build passed", URL: "https://github.example.com/ci/1"},
			{Name: "lint", Kind: "check", State: "completed", Conclusion: "success", Summary: "Lint clean", URL: "https://github.example.com/octo/hello/runs/4"},
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GetPullRequest (-want +got):\n%s", d)
	}
}

func TestGetPullRequestNotesPartsThatFail(t *testing.T) {
	f := newFake(t)
	// Check runs forbidden, as for a fine-grained token without checks:read.
	f.override("GET /api/v3/repos/octo/hello/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/check-runs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, map[string]string{"message": "Resource not accessible by personal access token"})
	})
	b := f.backend(BackendConfig{})
	got, err := b.GetPullRequest(context.Background(), PullRequestInput{Owner: "octo", Repo: "hello", Number: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || !contains(got.Notes[0], "list check runs") || !contains(got.Notes[0], "forbidden (403") {
		t.Errorf("notes = %q; want one note saying check runs were forbidden", got.Notes)
	}
	if len(got.Files) != 2 || len(got.Reviews) != 2 || len(got.Checks) != 2 {
		t.Errorf("the other parts should still load: %d files, %d reviews, %d statuses", len(got.Files), len(got.Reviews), len(got.Checks))
	}
}

func TestPullRequestDiffOf10000LinesIsBounded(t *testing.T) {
	f := newFake(t)
	diff := bigDiff(10000)
	f.handle("GET /api/v3/repos/octo/big/pulls/9", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "application/vnd.github.diff") {
			t.Errorf("diff requested with Accept %q", r.Header.Get("Accept"))
		}
		serveWithETag(w, r, "text/plain", []byte(diff))
	})
	b := f.backend(BackendConfig{})
	ctx := context.Background()

	first, err := b.GetPullRequestDiff(ctx, PullRequestDiffInput{Owner: "octo", Repo: "big", Number: 9})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(diff, "\n")
	wantFirst := Diff{Number: 9, StartLine: 1, EndLine: DefaultDiffLines, TotalLines: 10000,
		Diff:       strings.Join(lines[:DefaultDiffLines], "\n") + "\n",
		Truncation: mcpkit.Truncation{Truncated: true, Hint: "diff lines 1-1000 of 10000 shown: call again with startLine=1001 for more"}}
	if d := cmp.Diff(wantFirst, first); d != "" {
		t.Errorf("first window (-want +got):\n%s", d)
	}
	if len(first.Diff) > MaxDiffBytes {
		t.Errorf("diff window is %d bytes; cap is %d", len(first.Diff), MaxDiffBytes)
	}

	// A large window is cut by bytes instead, and still says where to go on.
	wide, err := b.GetPullRequestDiff(ctx, PullRequestDiffInput{Owner: "octo", Repo: "big", Number: 9, StartLine: 1001, MaxLines: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(wide.Diff) > MaxDiffBytes || !wide.Truncated || wide.StartLine != 1001 || wide.EndLine >= 6000 ||
		!strings.HasSuffix(wide.Hint, fmt.Sprintf("startLine=%d for more", wide.EndLine+1)) {
		t.Errorf("wide window: %d bytes, lines %d-%d, hint %q", len(wide.Diff), wide.StartLine, wide.EndLine, wide.Hint)
	}

	// The last window ends the diff and is not truncated.
	last, err := b.GetPullRequestDiff(ctx, PullRequestDiffInput{Owner: "octo", Repo: "big", Number: 9, StartLine: 9991})
	if err != nil {
		t.Fatal(err)
	}
	wantLast := Diff{Number: 9, StartLine: 9991, EndLine: 10000, TotalLines: 10000, Diff: strings.Join(lines[9990:10000], "\n") + "\n"}
	if d := cmp.Diff(wantLast, last); d != "" {
		t.Errorf("last window (-want +got):\n%s", d)
	}
}

func TestGetCommitBoundsA10000LinePatch(t *testing.T) {
	f := newFake(t)
	patch := bigDiff(10000)
	f.handle("GET /api/v3/repos/octo/big/commits/{ref}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"sha": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "commit": map[string]any{"message": "Big"},
			"files": []map[string]any{
				{"filename": "big.txt", "status": "added", "additions": 9995, "deletions": 0, "patch": patch},
				{"filename": "small.txt", "status": "added", "additions": 1, "deletions": 0, "patch": "@@ -0,0 +1 @@\n+x\n"},
			},
		})
	})
	b := f.backend(BackendConfig{})
	got, err := b.GetCommit(context.Background(), GetCommitInput{Owner: "octo", Repo: "big", Ref: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
	if err != nil {
		t.Fatal(err)
	}
	big := got.Files[0]
	if !big.PatchCut || len(big.Patch) > maxPatchBytesPerFile || !strings.HasPrefix(patch, big.Patch) || !got.Truncated {
		t.Errorf("big patch: cut=%v len=%d (cap %d) prefix=%v truncated=%v", big.PatchCut, len(big.Patch), maxPatchBytesPerFile, strings.HasPrefix(patch, big.Patch), got.Truncated)
	}
	if small := got.Files[1]; small.PatchCut || small.Patch != "@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("small patch after a big one: %+v", small)
	}
	if !contains(got.Hint, "patch of big.txt was cut") {
		t.Errorf("hint = %q", got.Hint)
	}
}
