package github

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

const readme = "# Hello\n\nThis is the hello repository.\nIt has three lines of text after the title.\n"

func mustAllow(t *testing.T, s string) *AllowList {
	t.Helper()
	a, err := ParseAllowList(s)
	if err != nil {
		t.Fatalf("ParseAllowList(%q): %v", s, err)
	}
	return a
}

func TestGetRepository(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	got, err := b.GetRepository(context.Background(), RepoInput{Owner: "octo", Repo: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	want := Repository{
		FullName: "octo/hello", Description: "Hello World evil example", // bidi controls stripped
		Visibility: "public", DefaultBranch: "main", Language: "Go", Topics: []string{"cli", "mcp"},
		License: "MIT", Stars: 1280, Forks: 7, OpenIssues: 5, Homepage: "https://octo.example",
		PushedAt: "2024-05-02T08:00:00Z", URL: "https://github.example.com/octo/hello",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GetRepository (-want +got):\n%s", d)
	}
	if n := f.count("GET", "/api/v3/repos/octo/hello"); n != 1 {
		t.Errorf("fake saw %d GETs of /api/v3/repos/octo/hello; want 1 (Enterprise path)", n)
	}
}

func TestSearchRepositoriesHidesOutsideAllowList(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{Repos: mustAllow(t, "octo/*")})
	got, err := b.SearchRepositories(context.Background(), SearchRepositoriesInput{Query: "hello", Sort: "stars", PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := RepoSearchResult{
		TotalCount: 3,
		Items: []RepoSummary{
			{FullName: "octo/hello", Description: "Hello World example", Visibility: "public", Language: "Go", Stars: 1280, PushedAt: "2024-05-02T08:00:00Z", URL: "https://github.example.com/octo/hello"},
			{FullName: "octo/tools", Description: "Tools", Visibility: "public", Language: "Python", Stars: 12, PushedAt: "2024-05-02T08:00:00Z", URL: "https://github.example.com/octo/tools"},
		},
		Hidden: 1,
		Page:   1,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SearchRepositories (-want +got):\n%s", d)
	}
	q := f.requests()[0].Query
	if q != "page=1&per_page=10&q=hello&sort=stars" {
		t.Errorf("search query string = %q", q)
	}
}

func TestGetFileContents(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	tests := []struct {
		name string
		in   FileContentsInput
		want FileContents
	}{
		{
			name: "whole file",
			in:   FileContentsInput{Owner: "octo", Repo: "hello", Path: "README.md"},
			want: FileContents{Type: "file", Path: "README.md", SHA: "3d21ec53a331a6f037a91c368710b99387d012c1", Size: len(readme),
				StartLine: 1, EndLine: 4, TotalLines: 4, Content: readme},
		},
		{
			name: "line range",
			in:   FileContentsInput{Owner: "octo", Repo: "hello", Path: "/README.md", StartLine: 3, EndLine: 3, Ref: "main"},
			want: FileContents{Type: "file", Path: "README.md", Ref: "main", SHA: "3d21ec53a331a6f037a91c368710b99387d012c1", Size: len(readme),
				StartLine: 3, EndLine: 3, TotalLines: 4, Content: "This is the hello repository.\n"},
		},
		{
			name: "root directory",
			in:   FileContentsInput{Owner: "octo", Repo: "hello"},
			want: FileContents{Type: "dir", Path: "", Entries: []DirEntry{
				{Name: "README.md", Path: "README.md", Type: "file", Size: len(readme)},
				{Name: "cmd", Path: "cmd", Type: "dir"},
				{Name: "go.mod", Path: "go.mod", Type: "file", Size: 96},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.GetFileContents(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, err := b.GetFileContents(ctx, FileContentsInput{Owner: "octo", Repo: "hello", Path: "README.md", StartLine: 9}); err == nil ||
		!contains(err.Error(), "past the end of the file, which has 4 lines") {
		t.Errorf("startLine past the end: err = %v", err)
	}
}

func TestListBranchesTagsReleases(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	in := ListRepoInput{Owner: "octo", Repo: "hello"}

	branches, err := b.ListBranches(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	wantB := BranchList{Page: 1, Branches: []Branch{
		{Name: "main", SHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Protected: true},
		{Name: "feature/search", SHA: "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"},
	}}
	if d := cmp.Diff(wantB, branches); d != "" {
		t.Errorf("ListBranches (-want +got):\n%s", d)
	}

	tags, err := b.ListTags(ctx, ListRepoInput{Owner: "octo", Repo: "hello", PerPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantT := TagList{Page: 1, NextPage: 2, Tags: []Tag{{Name: "v1.1.0", SHA: "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"}},
		Truncation: mcpkit.Truncation{Truncated: true, Hint: "more tags: call again with page=2"}}
	if d := cmp.Diff(wantT, tags); d != "" {
		t.Errorf("ListTags (-want +got):\n%s", d)
	}

	rel, err := b.ListReleases(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	wantR := ReleaseList{Page: 1, Releases: []Release{{
		TagName: "v1.1.0", Name: "v1.1.0", Author: "octocat", PublishedAt: "2024-05-01T12:00:00Z",
		Body: "## Changes\n- Faster search\n- Fix crash on empty input\n", URL: "https://github.example.com/octo/hello/releases/v1.1.0",
	}}}
	if d := cmp.Diff(wantR, rel); d != "" {
		t.Errorf("ListReleases (-want +got):\n%s", d)
	}
}

func TestListCommitsAndGetCommit(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	list, err := b.ListCommits(ctx, ListCommitsInput{Owner: "octo", Repo: "hello", Ref: "main", Path: "parse.go", Since: "2024-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	want := CommitList{Page: 1, Commits: []CommitSummary{
		{SHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Message: "Fix crash on empty input", Author: "octocat", Date: "2024-05-02T08:00:00Z", URL: "https://github.example.com/octo/hello/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e"},
		{SHA: "553c2077f0edc3d5dc5d17262f6aa498e69d6f8e", Message: "Add search", Author: "The Octocat", Date: "2024-05-01T08:00:00Z", URL: "https://github.example.com/octo/hello/commit/553c2077f0edc3d5dc5d17262f6aa498e69d6f8e"},
	}}
	if d := cmp.Diff(want, list); d != "" {
		t.Errorf("ListCommits (-want +got):\n%s", d)
	}
	if q := f.requests()[0].Query; q != "page=1&path=parse.go&per_page=30&sha=main&since=2024-01-01T00%3A00%3A00Z" {
		t.Errorf("ListCommits query = %q", q)
	}

	c, err := b.GetCommit(ctx, GetCommitInput{Owner: "octo", Repo: "hello", Ref: "6dcb09b5b57875f334f61aebed695e2e4193db5e"})
	if err != nil {
		t.Fatal(err)
	}
	wantC := Commit{
		SHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", Message: "Fix crash on empty input\n\nThe parser assumed one token.",
		Author: "octocat", Committer: "web-flow", Date: "2024-05-02T08:00:00Z", Parents: []string{"553c2077f0edc3d5dc5d17262f6aa498e69d6f8e"},
		Additions: 3, Deletions: 1, URL: "https://github.example.com/octo/hello/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e", Page: 1,
		Files: []ChangedFile{{Path: "parse.go", Status: "modified", Additions: 3, Deletions: 1,
			Patch: "@@ -10,7 +10,9 @@ func Parse(s string) []Token {\n-\treturn toks[:1]\n+\tif len(toks) == 0 {\n+\t\treturn nil\n+\t}\n+\treturn toks[:1]\n"}},
	}
	if d := cmp.Diff(wantC, c); d != "" {
		t.Errorf("GetCommit (-want +got):\n%s", d)
	}
}
