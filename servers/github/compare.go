package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// maxCompareFiles is what GitHub's compare lists at most: the changed files of the
// whole comparison, on its first page only.
const maxCompareFiles = 300

// CompareInput names two refs; the result is what head has that base has not.
type CompareInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Base    string `json:"base"`
	Head    string `json:"head"`
	Path    string `json:"path,omitempty" jsonschema_description:"Only files under it"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Comparison is base...head: its commits (paged, oldest first) and, on the first
// page, its changed files with bounded patches.
type Comparison struct {
	Status       string          `json:"status" jsonschema_description:"ahead or behind or diverged or identical"`
	AheadBy      int             `json:"aheadBy" jsonschema_description:"Commits head has that base lacks"`
	BehindBy     int             `json:"behindBy" jsonschema_description:"Commits base has that head lacks"`
	MergeBase    string          `json:"mergeBase,omitempty" jsonschema_description:"SHA of the common ancestor"`
	TotalCommits int             `json:"totalCommits" jsonschema_description:"Commits in the whole comparison"`
	Commits      []CommitSummary `json:"commits" jsonschema_description:"Commits on this page, oldest first"`
	Files        []ChangedFile   `json:"files,omitempty" jsonschema_description:"Changed files (first page only)"`
	PatchesCut   []string        `json:"patchesCut,omitempty" jsonschema_description:"Files whose patch was cut or left out"`
	URL          string          `json:"url,omitempty" jsonschema_description:"Web page of the comparison"`
	Page         int             `json:"page" jsonschema_description:"This page of commits"`
	NextPage     int             `json:"nextPage,omitempty" jsonschema_description:"Next page of commits"`
	mcpkit.Truncation
}

// CompareCommits compares base...head. Files come on the first page only (GitHub
// lists them there, at most 300); patches are capped per file and in total, and the
// files whose patch was cut are named, with a hint to narrow by path.
func (b *Backend) CompareCommits(ctx context.Context, in CompareInput) (Comparison, error) {
	out := Comparison{Commits: []CommitSummary{}}
	if err := validateRef("base", in.Base); err != nil {
		return out, err
	}
	if err := validateRef("head", in.Head); err != nil {
		return out, err
	}
	prefix, err := validatePath(in.Path)
	if err != nil {
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
	c, resp, err := b.gh.Repositories.CompareCommits(ctx, in.Owner, in.Repo, in.Base, in.Head, &lo)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("compare %s...%s in %s", in.Base, in.Head, repoName(in.Owner, in.Repo)))
	}
	out.Status, out.AheadBy, out.BehindBy = name(c.GetStatus()), c.GetAheadBy(), c.GetBehindBy()
	out.MergeBase = name(c.GetMergeBaseCommit().GetSHA())
	out.TotalCommits = c.GetTotalCommits()
	out.URL = name(c.GetHTMLURL())
	for _, rc := range c.Commits {
		out.Commits = append(out.Commits, CommitSummary{
			SHA:     name(rc.GetSHA()),
			Message: out.CleanField("a commit message", firstLine(rc.GetCommit().GetMessage()), maxTitleBytes),
			Author:  commitPerson(rc.GetAuthor(), rc.GetCommit().GetAuthor()),
			Date:    tsv(rc.GetCommit().GetAuthor().GetDate()),
		})
	}
	if lo.Page == 1 {
		files := c.Files
		if prefix != "" {
			files = nil
			for _, f := range c.Files {
				if underPath(f.GetFilename(), prefix) || underPath(f.GetPreviousFilename(), prefix) {
					files = append(files, f)
				}
			}
		}
		var t mcpkit.Truncation // per-file hints are replaced by one that names the way on
		perFile := maxPatchBytesPerFile
		if prefix != "" {
			perFile = maxPatchBytesTotal
		}
		out.Files = changedFilesCapped(&t, files, true, perFile)
		for _, f := range out.Files {
			if f.PatchCut {
				out.PatchesCut = append(out.PatchesCut, f.Path)
			}
		}
		if len(out.PatchesCut) > 0 {
			out.Cut(fmt.Sprintf("%d patches were cut or left out (patchesCut): call again with path set to one of them, or read the file at both refs", len(out.PatchesCut)))
		}
		if len(c.Files) >= maxCompareFiles {
			out.Cut(fmt.Sprintf("GitHub lists at most %d changed files of a comparison; compare closer refs or list each commit's files with get_commit", maxCompareFiles))
		}
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "commits")
	return out, nil
}

// underPath reports whether p is prefix or inside the directory prefix.
func underPath(p, prefix string) bool {
	return p != "" && (p == prefix || strings.HasPrefix(p, prefix+"/"))
}
