package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// GetReleaseInput names a release by its tag; no tag means the latest release.
type GetReleaseInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Tag   string `json:"tag,omitempty" jsonschema_description:"Omit for the latest release"`
}

// ReleaseResult is one release.
type ReleaseResult struct {
	Release
	mcpkit.Truncation
}

// GetRelease returns the release of a tag, or the latest published full release
// (GitHub's "latest": not a draft, not a pre-release).
func (b *Backend) GetRelease(ctx context.Context, in GetReleaseInput) (ReleaseResult, error) {
	var out ReleaseResult
	if in.Tag != "" {
		if err := validateRef("tag", in.Tag); err != nil {
			return out, err
		}
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	var r *gh.RepositoryRelease
	what := "get the latest release of " + repoName(in.Owner, in.Repo)
	if in.Tag == "" {
		r, _, err = b.gh.Repositories.GetLatestRelease(ctx, in.Owner, in.Repo)
	} else {
		what = fmt.Sprintf("get release %s of %s", in.Tag, repoName(in.Owner, in.Repo))
		r, _, err = b.gh.Repositories.GetReleaseByTag(ctx, in.Owner, in.Repo, in.Tag)
	}
	if err != nil {
		return out, b.fail(err, what)
	}
	out.Release = Release{
		TagName:     name(r.GetTagName()),
		Name:        out.CleanField("the release name", r.GetName(), maxTitleBytes),
		Draft:       r.GetDraft(),
		Prerelease:  r.GetPrerelease(),
		Author:      login(r.GetAuthor()),
		PublishedAt: ts(r.PublishedAt),
		Body:        out.CleanField("the release notes", r.GetBody(), maxBodyBytes),
		URL:         name(r.GetHTMLURL()),
	}
	return out, nil
}

// GetTagInput names a tag.
type GetTagInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Tag   string `json:"tag"`
}

// TagInfo is one tag: the commit it names and, for an annotated tag, its message,
// tagger and date.
type TagInfo struct {
	Name      string `json:"name" jsonschema_description:"Tag name"`
	SHA       string `json:"sha" jsonschema_description:"Commit SHA the tag points at"`
	Annotated bool   `json:"annotated" jsonschema_description:"True for an annotated tag"`
	Message   string `json:"message,omitempty" jsonschema_description:"Annotated tag message"`
	Tagger    string `json:"tagger,omitempty" jsonschema_description:"Tagger name"`
	Date      string `json:"date,omitempty" jsonschema_description:"Tagging time (RFC 3339)"`
	Verified  bool   `json:"verified,omitempty" jsonschema_description:"True when GitHub verified the tag's signature"`
	mcpkit.Truncation
}

// GetTag reads refs/tags/TAG and, when it names an annotated tag object, that object.
func (b *Backend) GetTag(ctx context.Context, in GetTagInput) (TagInfo, error) {
	var out TagInfo
	if err := validateRef("tag", in.Tag); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("get tag %s of %s", in.Tag, repoName(in.Owner, in.Repo))
	ref, _, err := b.gh.Git.GetRef(ctx, in.Owner, in.Repo, "tags/"+strings.TrimPrefix(in.Tag, "refs/tags/"))
	if err != nil {
		return out, b.fail(err, what)
	}
	out.Name = name(strings.TrimPrefix(ref.GetRef(), "refs/tags/"))
	obj := ref.GetObject()
	if obj.GetType() != "tag" {
		out.SHA = name(obj.GetSHA())
		return out, nil
	}
	t, _, err := b.gh.Git.GetTag(ctx, in.Owner, in.Repo, obj.GetSHA())
	if err != nil {
		return out, b.fail(err, what)
	}
	out.Annotated = true
	out.SHA = name(t.GetObject().GetSHA())
	out.Message = out.CleanField("the tag message", t.GetMessage(), maxBodyBytes)
	out.Tagger = name(t.GetTagger().GetName())
	out.Date = tsv(t.GetTagger().GetDate())
	out.Verified = t.GetVerification().GetVerified()
	return out, nil
}

// SearchCommitsInput is a commit search in GitHub's search syntax.
type SearchCommitsInput struct {
	Query   string `json:"query" jsonschema_description:"Such as 'repo:octo/hello fix author:octocat'"`
	Sort    string `json:"sort,omitempty" jsonschema:"enum=author-date,enum=committer-date"`
	Order   string `json:"order,omitempty" jsonschema:"enum=asc,enum=desc"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// CommitHit is one commit a search found.
type CommitHit struct {
	Repository string `json:"repository" jsonschema_description:"owner/name"`
	CommitSummary
}

// CommitSearchResult is one page of a commit search.
type CommitSearchResult struct {
	TotalCount int         `json:"totalCount" jsonschema_description:"Commits found in all pages (including any the allow-list hides)"`
	Items      []CommitHit `json:"items" jsonschema_description:"Commits on this page"`
	Hidden     int         `json:"hiddenByAllowList,omitempty" jsonschema_description:"Results left out because the allow-list excludes their repository"`
	Page       int         `json:"page" jsonschema_description:"This page number"`
	NextPage   int         `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// SearchCommits runs a commit search; commits of repositories outside the allow-list
// are dropped and counted.
func (b *Backend) SearchCommits(ctx context.Context, in SearchCommitsInput) (CommitSearchResult, error) {
	out := CommitSearchResult{Items: []CommitHit{}}
	opts, err := searchOptions(in.Query, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	opts.Sort, opts.Order = in.Sort, in.Order
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	res, resp, err := b.gh.Search.Commits(ctx, in.Query, opts)
	if err != nil {
		return out, b.fail(err, "search commits")
	}
	out.TotalCount, out.Page = res.GetTotal(), opts.Page
	for _, c := range res.Commits {
		r := c.GetRepository()
		if !b.allow.Allowed(r.GetOwner().GetLogin(), r.GetName()) {
			out.Hidden++
			continue
		}
		out.Items = append(out.Items, CommitHit{Repository: name(r.GetFullName()), CommitSummary: CommitSummary{
			SHA:     name(c.GetSHA()),
			Message: out.CleanField("a commit message", firstLine(c.GetCommit().GetMessage()), maxTitleBytes),
			Author:  commitPerson(c.GetAuthor(), c.GetCommit().GetAuthor()),
			Date:    tsv(c.GetCommit().GetAuthor().GetDate()),
			URL:     name(c.GetHTMLURL()),
		}})
	}
	finishSearch(&out.Truncation, res.GetIncompleteResults())
	out.NextPage = nextPage(&out.Truncation, resp, "commits")
	return out, nil
}
