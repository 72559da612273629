package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Patch caps for GetCommit: per file and for the whole answer.
const (
	maxPatchBytesPerFile = 8 << 10
	maxPatchBytesTotal   = 48 << 10
	maxReleaseBodyBytes  = 4 << 10
)

// ListRepoInput names a repository and a page of some list in it.
type ListRepoInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Branch is one branch and the commit at its tip.
type Branch struct {
	Name      string `json:"name" jsonschema_description:"Branch name"`
	SHA       string `json:"sha" jsonschema_description:"Commit SHA at the tip"`
	Protected bool   `json:"protected,omitempty" jsonschema_description:"True when branch protection applies"`
}

// BranchList is one page of branches.
type BranchList struct {
	Branches []Branch `json:"branches" jsonschema_description:"Branches on this page"`
	Page     int      `json:"page" jsonschema_description:"This page number"`
	NextPage int      `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// Tag is one tag and the commit it points at.
type Tag struct {
	Name string `json:"name" jsonschema_description:"Tag name"`
	SHA  string `json:"sha" jsonschema_description:"Commit SHA the tag points at"`
}

// TagList is one page of tags.
type TagList struct {
	Tags     []Tag `json:"tags" jsonschema_description:"Tags on this page"`
	Page     int   `json:"page" jsonschema_description:"This page number"`
	NextPage int   `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// Release is one release; its notes are capped.
type Release struct {
	TagName     string `json:"tagName" jsonschema_description:"Tag the release is built from"`
	Name        string `json:"name,omitempty" jsonschema_description:"Release title"`
	Draft       bool   `json:"draft,omitempty" jsonschema_description:"True for an unpublished draft"`
	Prerelease  bool   `json:"prerelease,omitempty" jsonschema_description:"True for a pre-release"`
	Author      string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	PublishedAt string `json:"publishedAt,omitempty" jsonschema_description:"Publication time (RFC 3339)"`
	Body        string `json:"body,omitempty" jsonschema_description:"Release notes (capped at 4 KiB)"`
	URL         string `json:"url" jsonschema_description:"Web page of the release"`
}

// ReleaseList is one page of releases, newest first.
type ReleaseList struct {
	Releases []Release `json:"releases" jsonschema_description:"Releases on this page"`
	Page     int       `json:"page" jsonschema_description:"This page number"`
	NextPage int       `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// ListCommitsInput selects commits of a repository, newest first.
type ListCommitsInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Ref     string `json:"ref,omitempty"`
	Path    string `json:"path,omitempty" jsonschema_description:"Only commits touching it"`
	Author  string `json:"author,omitempty" jsonschema_description:"Login or email"`
	Since   string `json:"since,omitempty"`
	Until   string `json:"until,omitempty"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// CommitSummary is one commit in a list.
type CommitSummary struct {
	SHA     string `json:"sha" jsonschema_description:"Commit SHA"`
	Message string `json:"message" jsonschema_description:"First line of the commit message"`
	Author  string `json:"author,omitempty" jsonschema_description:"GitHub login of the author or else the git author name"`
	Date    string `json:"date,omitempty" jsonschema_description:"Author date (RFC 3339)"`
	URL     string `json:"url,omitempty" jsonschema_description:"Web page of the commit"`
}

// CommitList is one page of commits.
type CommitList struct {
	Commits  []CommitSummary `json:"commits" jsonschema_description:"Commits on this page"`
	Page     int             `json:"page" jsonschema_description:"This page number"`
	NextPage int             `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// GetCommitInput names one commit; page/perPage page through its changed files.
type GetCommitInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Ref     string `json:"ref"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// ChangedFile is one file changed by a commit or pull request.
type ChangedFile struct {
	Path         string `json:"path" jsonschema_description:"File path"`
	Status       string `json:"status" jsonschema_description:"added or modified or removed or renamed or copied or changed or unchanged"`
	PreviousPath string `json:"previousPath,omitempty" jsonschema_description:"Path before a rename"`
	Additions    int    `json:"additions" jsonschema_description:"Lines added"`
	Deletions    int    `json:"deletions" jsonschema_description:"Lines deleted"`
	Patch        string `json:"patch,omitempty" jsonschema_description:"Unified diff of this file (capped)"`
	PatchCut     bool   `json:"patchCut,omitempty" jsonschema_description:"True when the patch was cut or left out to stay within the size cap"`
}

// Commit is one commit with its changed files and bounded patches.
type Commit struct {
	SHA       string        `json:"sha" jsonschema_description:"Commit SHA"`
	Message   string        `json:"message" jsonschema_description:"Full commit message"`
	Author    string        `json:"author,omitempty" jsonschema_description:"GitHub login of the author or else the git author name"`
	Committer string        `json:"committer,omitempty" jsonschema_description:"GitHub login of the committer or else the git committer name"`
	Date      string        `json:"date,omitempty" jsonschema_description:"Author date (RFC 3339)"`
	Parents   []string      `json:"parents,omitempty" jsonschema_description:"Parent commit SHAs"`
	Additions int           `json:"additions" jsonschema_description:"Lines added in total"`
	Deletions int           `json:"deletions" jsonschema_description:"Lines deleted in total"`
	Files     []ChangedFile `json:"files" jsonschema_description:"Changed files on this page"`
	URL       string        `json:"url,omitempty" jsonschema_description:"Web page of the commit"`
	Page      int           `json:"page" jsonschema_description:"This page of changed files"`
	NextPage  int           `json:"nextPage,omitempty" jsonschema_description:"Next page of changed files when there are more"`
	mcpkit.Truncation
}

// ListBranches lists a repository's branches.
func (b *Backend) ListBranches(ctx context.Context, in ListRepoInput) (BranchList, error) {
	out := BranchList{Branches: []Branch{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Repositories.ListBranches(ctx, in.Owner, in.Repo, &gh.BranchListOptions{ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list branches of "+repoName(in.Owner, in.Repo))
	}
	for _, br := range list {
		out.Branches = append(out.Branches, Branch{Name: name(br.GetName()), SHA: name(br.GetCommit().GetSHA()), Protected: br.GetProtected()})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "branches")
	return out, nil
}

// ListTags lists a repository's tags.
func (b *Backend) ListTags(ctx context.Context, in ListRepoInput) (TagList, error) {
	out := TagList{Tags: []Tag{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Repositories.ListTags(ctx, in.Owner, in.Repo, &lo)
	if err != nil {
		return out, b.fail(err, "list tags of "+repoName(in.Owner, in.Repo))
	}
	for _, t := range list {
		out.Tags = append(out.Tags, Tag{Name: name(t.GetName()), SHA: name(t.GetCommit().GetSHA())})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "tags")
	return out, nil
}

// ListReleases lists a repository's releases, newest first.
func (b *Backend) ListReleases(ctx context.Context, in ListRepoInput) (ReleaseList, error) {
	out := ReleaseList{Releases: []Release{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Repositories.ListReleases(ctx, in.Owner, in.Repo, &lo)
	if err != nil {
		return out, b.fail(err, "list releases of "+repoName(in.Owner, in.Repo))
	}
	for _, r := range list {
		out.Releases = append(out.Releases, Release{
			TagName:     name(r.GetTagName()),
			Name:        out.CleanField("a release name", r.GetName(), maxTitleBytes),
			Draft:       r.GetDraft(),
			Prerelease:  r.GetPrerelease(),
			Author:      login(r.GetAuthor()),
			PublishedAt: ts(r.PublishedAt),
			Body:        out.CleanField("release notes", r.GetBody(), maxReleaseBodyBytes),
			URL:         name(r.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "releases")
	return out, nil
}

// ListCommits lists commits, newest first.
func (b *Backend) ListCommits(ctx context.Context, in ListCommitsInput) (CommitList, error) {
	out := CommitList{Commits: []CommitSummary{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	opts := &gh.CommitsListOptions{SHA: in.Ref, Author: in.Author, ListOptions: lo}
	if in.Ref != "" {
		if err := validateRef("ref", in.Ref); err != nil {
			return out, err
		}
	}
	if opts.Path, err = validatePath(in.Path); err != nil {
		return out, err
	}
	if opts.Since, err = parseTime("since", in.Since); err != nil {
		return out, err
	}
	if opts.Until, err = parseTime("until", in.Until); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Repositories.ListCommits(ctx, in.Owner, in.Repo, opts)
	if err != nil {
		return out, b.fail(err, "list commits of "+repoName(in.Owner, in.Repo))
	}
	for _, c := range list {
		out.Commits = append(out.Commits, CommitSummary{
			SHA:     name(c.GetSHA()),
			Message: out.CleanField("a commit message", firstLine(c.GetCommit().GetMessage()), maxTitleBytes),
			Author:  commitPerson(c.GetAuthor(), c.GetCommit().GetAuthor()),
			Date:    tsv(c.GetCommit().GetAuthor().GetDate()),
			URL:     name(c.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "commits")
	return out, nil
}

// GetCommit returns one commit with its changed files; patches are capped per file
// and in total, and files past the total cap come without a patch.
func (b *Backend) GetCommit(ctx context.Context, in GetCommitInput) (Commit, error) {
	out := Commit{Files: []ChangedFile{}}
	if err := validateRef("ref", in.Ref); err != nil {
		return out, err
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	c, resp, err := b.gh.Repositories.GetCommit(ctx, in.Owner, in.Repo, in.Ref, &lo)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("get commit %s in %s", in.Ref, repoName(in.Owner, in.Repo)))
	}
	out.SHA = name(c.GetSHA())
	out.Message = out.CleanField("the commit message", c.GetCommit().GetMessage(), maxBodyBytes)
	out.Author = commitPerson(c.GetAuthor(), c.GetCommit().GetAuthor())
	out.Committer = commitPerson(c.GetCommitter(), c.GetCommit().GetCommitter())
	out.Date = tsv(c.GetCommit().GetAuthor().GetDate())
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, name(p.GetSHA()))
	}
	out.Additions, out.Deletions = c.GetStats().GetAdditions(), c.GetStats().GetDeletions()
	out.URL = name(c.GetHTMLURL())
	out.Files = changedFiles(&out.Truncation, c.Files, true)
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "changed files")
	return out, nil
}

// changedFiles converts files, with patches bounded when withPatch is set.
func changedFiles(t *mcpkit.Truncation, files []*gh.CommitFile, withPatch bool) []ChangedFile {
	return changedFilesCapped(t, files, withPatch, maxPatchBytesPerFile)
}

// changedFilesCapped is changedFiles with perFile bytes of patch per file (the total
// cap stays): compare gives a path-narrowed call's few files more room.
func changedFilesCapped(t *mcpkit.Truncation, files []*gh.CommitFile, withPatch bool, perFile int) []ChangedFile {
	out := []ChangedFile{}
	budget := maxPatchBytesTotal
	for _, f := range files {
		cf := ChangedFile{
			Path:         name(f.GetFilename()),
			Status:       name(f.GetStatus()),
			PreviousPath: name(f.GetPreviousFilename()),
			Additions:    f.GetAdditions(),
			Deletions:    f.GetDeletions(),
		}
		if withPatch && f.GetPatch() != "" {
			limit := min(perFile, budget)
			if limit <= 0 {
				cf.PatchCut = true
				t.Cut(fmt.Sprintf("patches past the first %d KiB are left out; ask for a smaller page of files (perPage) or read the files themselves", maxPatchBytesTotal>>10))
			} else {
				p, cut := mcpkit.CleanText(f.GetPatch(), limit)
				cf.Patch, cf.PatchCut = p, cut
				budget -= len(p)
				if cut {
					t.Cut(fmt.Sprintf("the patch of %s was cut at %d bytes; read the file at both commits for the rest", cf.Path, limit))
				}
			}
		}
		out = append(out, cf)
	}
	return out
}

// commitPerson prefers the GitHub login and falls back to the git name.
func commitPerson(u *gh.User, a *gh.CommitAuthor) string {
	if l := login(u); l != "" {
		return l
	}
	return name(a.GetName())
}

func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an RFC 3339 time; expected e.g. 2024-05-01T00:00:00Z", field, clip(s))
	}
	return t, nil
}
