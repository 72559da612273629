package github

import (
	"context"
	"fmt"
	"sync"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Diff caps: what one call returns, and how much of a diff is read to find the window.
const (
	MaxDiffBytes     = 64 << 10
	DefaultDiffLines = 1000
	maxDiffReadBytes = 32 << 20
	maxPRFiles       = 100
	maxReviews       = 50
	maxChecks        = 100
)

// ListPullRequestsInput selects pull requests of one repository.
type ListPullRequestsInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	State     string `json:"state,omitempty" jsonschema:"enum=open,enum=closed,enum=all,default=open"`
	Head      string `json:"head,omitempty" jsonschema_description:"user:branch"`
	Base      string `json:"base,omitempty"`
	Sort      string `json:"sort,omitempty" jsonschema:"enum=created,enum=updated,enum=popularity,enum=long-running,default=created"`
	Direction string `json:"direction,omitempty" jsonschema:"enum=asc,enum=desc"`
	Page      int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage   int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// PullRequestSummary is one pull request in a list.
type PullRequestSummary struct {
	Number    int    `json:"number" jsonschema_description:"Pull request number"`
	Title     string `json:"title" jsonschema_description:"Title"`
	State     string `json:"state" jsonschema_description:"open or closed"`
	Draft     bool   `json:"draft,omitempty" jsonschema_description:"True for a draft"`
	Merged    bool   `json:"merged,omitempty" jsonschema_description:"True when merged"`
	Author    string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Head      string `json:"head" jsonschema_description:"Source branch as owner:branch"`
	Base      string `json:"base" jsonschema_description:"Target branch"`
	UpdatedAt string `json:"updatedAt,omitempty" jsonschema_description:"Last update time (RFC 3339)"`
	URL       string `json:"url" jsonschema_description:"Web page"`
}

// PullRequestList is one page of pull requests.
type PullRequestList struct {
	PullRequests []PullRequestSummary `json:"pullRequests" jsonschema_description:"Pull requests on this page"`
	Page         int                  `json:"page" jsonschema_description:"This page number"`
	NextPage     int                  `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// PullRequestInput names one pull request.
type PullRequestInput struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number" jsonschema:"minimum=1"`
}

// Review is one submitted review.
type Review struct {
	ID          int64  `json:"id" jsonschema_description:"Review ID"`
	Author      string `json:"author,omitempty" jsonschema_description:"Login of the reviewer"`
	Association string `json:"association,omitempty" jsonschema_description:"Reviewer's relation to the repository"`
	State       string `json:"state" jsonschema_description:"APPROVED or CHANGES_REQUESTED or COMMENTED or DISMISSED or PENDING"`
	SubmittedAt string `json:"submittedAt,omitempty" jsonschema_description:"Submission time (RFC 3339)"`
	Body        string `json:"body,omitempty" jsonschema_description:"Review summary text (capped at 8 KiB)"`
	Hidden      bool   `json:"hidden,omitempty" jsonschema_description:"True when lockdown mode replaced the text with a notice"`
}

// StatusCheck is one commit status or check run on the head commit.
type StatusCheck struct {
	Name       string `json:"name" jsonschema_description:"Status context or check run name"`
	Kind       string `json:"kind" jsonschema_description:"status or check"`
	State      string `json:"state" jsonschema_description:"For statuses: success or failure or error or pending. For checks: queued or in_progress or completed"`
	Conclusion string `json:"conclusion,omitempty" jsonschema_description:"For completed checks: success or failure or neutral or cancelled or skipped or timed_out or action_required"`
	Summary    string `json:"summary,omitempty" jsonschema_description:"Status description or check output title"`
	URL        string `json:"url,omitempty" jsonschema_description:"Link to details"`
}

// PullRequest is one pull request with its files, reviews and status checks.
type PullRequest struct {
	Number         int           `json:"number" jsonschema_description:"Pull request number"`
	Title          string        `json:"title" jsonschema_description:"Title"`
	State          string        `json:"state" jsonschema_description:"open or closed"`
	Draft          bool          `json:"draft,omitempty" jsonschema_description:"True for a draft"`
	Merged         bool          `json:"merged,omitempty" jsonschema_description:"True when merged"`
	Mergeable      *bool         `json:"mergeable,omitempty" jsonschema_description:"Whether GitHub can merge it cleanly (absent while GitHub computes it)"`
	MergeableState string        `json:"mergeableState,omitempty" jsonschema_description:"clean or dirty or blocked or behind or unstable or unknown"`
	Author         string        `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Association    string        `json:"association,omitempty" jsonschema_description:"Author's relation to the repository"`
	Head           string        `json:"head" jsonschema_description:"Source branch as owner:branch"`
	HeadSHA        string        `json:"headSha" jsonschema_description:"Commit SHA at the head of the source branch"`
	Base           string        `json:"base" jsonschema_description:"Target branch"`
	Additions      int           `json:"additions" jsonschema_description:"Lines added"`
	Deletions      int           `json:"deletions" jsonschema_description:"Lines deleted"`
	ChangedFiles   int           `json:"changedFiles" jsonschema_description:"Number of changed files"`
	Commits        int           `json:"commits" jsonschema_description:"Number of commits"`
	CreatedAt      string        `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	MergedAt       string        `json:"mergedAt,omitempty" jsonschema_description:"Merge time (RFC 3339)"`
	URL            string        `json:"url" jsonschema_description:"Web page"`
	Body           string        `json:"body" jsonschema_description:"Description text (capped at 16 KiB)"`
	BodyHidden     bool          `json:"bodyHidden,omitempty" jsonschema_description:"True when lockdown mode replaced the body with a notice"`
	Files          []ChangedFile `json:"files" jsonschema_description:"Changed files without patches (use the diff for those); at most 100"`
	Reviews        []Review      `json:"reviews" jsonschema_description:"Submitted reviews; at most 50"`
	CheckState     string        `json:"checkState,omitempty" jsonschema_description:"Combined commit status: success or failure or pending"`
	Checks         []StatusCheck `json:"checks" jsonschema_description:"Commit statuses and check runs on the head commit; failing ones first"`
	Notes          []string      `json:"notes,omitempty" jsonschema_description:"Parts that could not be fetched and why"`
	Lockdown       int           `json:"hiddenByLockdown,omitempty" jsonschema_description:"How many texts lockdown mode hid because their authors lack push access"`
	mcpkit.Truncation
}

// PullRequestDiffInput names a pull request and a window of its unified diff.
type PullRequestDiffInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	Number    int    `json:"number" jsonschema:"minimum=1"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"minimum=1"`
	MaxLines  int    `json:"maxLines,omitempty" jsonschema:"minimum=1,maximum=5000,default=1000"`
}

// Diff is a window of a unified diff.
type Diff struct {
	Number     int    `json:"number" jsonschema_description:"Pull request number"`
	StartLine  int    `json:"startLine,omitempty" jsonschema_description:"First line in diff (1-based)"`
	EndLine    int    `json:"endLine,omitempty" jsonschema_description:"Last line in diff"`
	TotalLines int    `json:"totalLines,omitempty" jsonschema_description:"Lines in the whole diff when known"`
	Diff       string `json:"diff" jsonschema_description:"Unified diff text of lines startLine to endLine"`
	mcpkit.Truncation
}

// ListPullRequests lists pull requests of a repository.
func (b *Backend) ListPullRequests(ctx context.Context, in ListPullRequestsInput) (PullRequestList, error) {
	out := PullRequestList{PullRequests: []PullRequestSummary{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.PullRequestListOptions{State: in.State, Head: in.Head, Base: in.Base, Sort: in.Sort, Direction: in.Direction, ListOptions: lo}
	list, resp, err := b.gh.PullRequests.List(ctx, in.Owner, in.Repo, opts)
	if err != nil {
		return out, b.fail(err, "list pull requests of "+repoName(in.Owner, in.Repo))
	}
	for _, pr := range list {
		out.PullRequests = append(out.PullRequests, PullRequestSummary{
			Number:    pr.GetNumber(),
			Title:     out.CleanField("a title", pr.GetTitle(), maxTitleBytes),
			State:     name(pr.GetState()),
			Draft:     pr.GetDraft(),
			Merged:    pr.MergedAt != nil,
			Author:    login(pr.GetUser()),
			Head:      name(pr.GetHead().GetLabel()),
			Base:      name(pr.GetBase().GetRef()),
			UpdatedAt: ts(pr.UpdatedAt),
			URL:       name(pr.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "pull requests")
	return out, nil
}

// GetPullRequest returns a pull request with its first 100 changed files (no
// patches), its reviews and the statuses and check runs on its head commit. The
// pull request itself must load; files, reviews and checks that fail to load are
// named in Notes instead of failing the call.
func (b *Backend) GetPullRequest(ctx context.Context, in PullRequestInput) (PullRequest, error) {
	out := PullRequest{Files: []ChangedFile{}, Reviews: []Review{}, Checks: []StatusCheck{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected a pull request number of 1 or more", in.Number)
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("get pull request %s#%d", repoName(in.Owner, in.Repo), in.Number)
	pr, _, err := b.gh.PullRequests.Get(ctx, in.Owner, in.Repo, in.Number)
	if err != nil {
		return out, b.fail(err, what)
	}
	headSHA := name(pr.GetHead().GetSHA())

	var (
		wg       sync.WaitGroup
		files    []*gh.CommitFile
		reviews  []*gh.PullRequestReview
		combined *gh.CombinedStatus
		runs     *gh.ListCheckRunsResults
		errs     [4]error
		more     [4]int
	)
	page1 := func(n int) *gh.ListOptions { return &gh.ListOptions{Page: 1, PerPage: n} }
	wg.Go(func() {
		var r *gh.Response
		files, r, errs[0] = b.gh.PullRequests.ListFiles(ctx, in.Owner, in.Repo, in.Number, page1(maxPRFiles))
		if r != nil {
			more[0] = r.NextPage
		}
	})
	wg.Go(func() {
		var r *gh.Response
		reviews, r, errs[1] = b.gh.PullRequests.ListReviews(ctx, in.Owner, in.Repo, in.Number, page1(maxReviews))
		if r != nil {
			more[1] = r.NextPage
		}
	})
	if headSHA != "" {
		wg.Go(func() {
			combined, _, errs[2] = b.gh.Repositories.GetCombinedStatus(ctx, in.Owner, in.Repo, headSHA, page1(maxChecks))
		})
		wg.Go(func() {
			runs, _, errs[3] = b.gh.Checks.ListCheckRunsForRef(ctx, in.Owner, in.Repo, headSHA, &gh.ListCheckRunsOptions{ListOptions: *page1(maxChecks)})
		})
	}
	wg.Wait()
	filter := b.filterFor(ctx, in.Owner, in.Repo)

	out.Number = pr.GetNumber()
	out.Title = out.CleanField("the title", pr.GetTitle(), maxTitleBytes)
	out.State, out.Draft, out.Merged = name(pr.GetState()), pr.GetDraft(), pr.GetMerged() || pr.MergedAt != nil
	out.Mergeable, out.MergeableState = pr.Mergeable, name(pr.GetMergeableState())
	out.Author, out.Association = login(pr.GetUser()), name(pr.GetAuthorAssociation())
	out.Head, out.HeadSHA, out.Base = name(pr.GetHead().GetLabel()), headSHA, name(pr.GetBase().GetRef())
	out.Additions, out.Deletions, out.ChangedFiles, out.Commits = pr.GetAdditions(), pr.GetDeletions(), pr.GetChangedFiles(), pr.GetCommits()
	out.CreatedAt, out.MergedAt, out.URL = ts(pr.CreatedAt), ts(pr.MergedAt), name(pr.GetHTMLURL())
	body, hidden := filter.text(ctx, out.Author, out.Association, "pull request body", pr.GetBody())
	out.Body, out.BodyHidden = out.CleanField("the pull request body", body, maxBodyBytes), hidden

	note := func(part string, err error) {
		out.Notes = append(out.Notes, b.fail(err, part).Error())
	}
	if errs[0] != nil {
		note("list changed files", errs[0])
	} else {
		out.Files = changedFiles(&out.Truncation, files, false)
		if more[0] != 0 {
			out.Cut(fmt.Sprintf("only the first %d of %d changed files are listed; read the diff for the rest", maxPRFiles, out.ChangedFiles))
		}
	}
	if errs[1] != nil {
		note("list reviews", errs[1])
	} else {
		for _, r := range reviews {
			rv := Review{ID: r.GetID(), Author: login(r.GetUser()), Association: name(r.GetAuthorAssociation()), State: name(r.GetState()), SubmittedAt: ts(r.SubmittedAt)}
			text, hidden := filter.text(ctx, rv.Author, rv.Association, "review", r.GetBody())
			rv.Body, rv.Hidden = out.CleanField(fmt.Sprintf("review %d", rv.ID), text, maxCommentBytes), hidden
			out.Reviews = append(out.Reviews, rv)
		}
		if more[1] != 0 {
			out.Cut(fmt.Sprintf("only the first %d reviews are listed", maxReviews))
		}
	}
	if errs[2] != nil {
		note("get combined status", errs[2])
	} else if combined != nil {
		out.CheckState = name(combined.GetState())
		for _, s := range combined.Statuses {
			out.Checks = append(out.Checks, StatusCheck{
				Name: name(s.GetContext()), Kind: "status", State: name(s.GetState()),
				Summary: out.CleanField("a status description", s.GetDescription(), maxShortBytes), URL: name(s.GetTargetURL()),
			})
		}
	}
	if errs[3] != nil {
		note("list check runs", errs[3])
	} else if runs != nil {
		for _, c := range runs.CheckRuns {
			out.Checks = append(out.Checks, StatusCheck{
				Name: name(c.GetName()), Kind: "check", State: name(c.GetStatus()), Conclusion: name(c.GetConclusion()),
				Summary: out.CleanField("a check summary", c.GetOutput().GetTitle(), maxShortBytes), URL: name(c.GetHTMLURL()),
			})
		}
		if runs.GetTotal() > len(runs.CheckRuns) {
			out.Cut(fmt.Sprintf("only %d of %d check runs are listed", len(runs.CheckRuns), runs.GetTotal()))
		}
	}
	sortChecks(out.Checks)
	out.Lockdown = filter.count()
	return out, nil
}

// sortChecks puts failing checks first, then pending, then the rest, keeping order
// within each group: what a reviewer needs to see first.
func sortChecks(cs []StatusCheck) {
	rank := func(c StatusCheck) int {
		switch {
		case c.State == "failure" || c.State == "error" || c.Conclusion == "failure" || c.Conclusion == "timed_out" || c.Conclusion == "action_required" || c.Conclusion == "cancelled":
			return 0
		case c.State == "pending" || c.State == "queued" || c.State == "in_progress":
			return 1
		default:
			return 2
		}
	}
	// insertion sort: stable, and lists are short
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && rank(cs[j]) < rank(cs[j-1]); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// GetPullRequestDiff returns a window of a pull request's unified diff: at most
// maxLines lines and MaxDiffBytes bytes, with a hint naming the next startLine.
func (b *Backend) GetPullRequestDiff(ctx context.Context, in PullRequestDiffInput) (Diff, error) {
	out := Diff{Number: in.Number}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected a pull request number of 1 or more", in.Number)
	}
	if in.StartLine < 0 || in.MaxLines < 0 || in.MaxLines > 5000 {
		return out, fmt.Errorf("startLine %d / maxLines %d out of range; expected startLine >= 1 and maxLines 1 to 5000", in.StartLine, in.MaxLines)
	}
	start, lines := max(in.StartLine, 1), in.MaxLines
	if lines == 0 {
		lines = DefaultDiffLines
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("get diff of pull request %s#%d", repoName(in.Owner, in.Repo), in.Number)
	rc, err := b.raw(ctx, fmt.Sprintf("repos/%s/%s/pulls/%d", in.Owner, in.Repo, in.Number), "application/vnd.github.diff")
	if err != nil {
		return out, b.fail(err, what)
	}
	defer rc.Close()
	dc := newDiffCheckReader(rc)
	cr := newCappedReader(dc, maxDiffReadBytes)
	w, err := readLines(cr, start, start+lines-1, MaxDiffBytes)
	if err != nil {
		return out, b.fail(err, what)
	}
	if !cr.Hit && !w.Binary {
		if err := dc.complete(); err != nil {
			return out, b.fail(err, what)
		}
	}
	if start > w.Total && w.Total > 0 {
		return out, fmt.Errorf("startLine %d is past the end of the diff, which has %d lines", start, w.Total)
	}
	out.Diff, out.StartLine, out.EndLine = w.Content, w.First, w.Last
	if !cr.Hit {
		out.TotalLines = w.Total
	}
	switch {
	case w.LongLine:
		out.Cut(fmt.Sprintf("diff line %d is longer than %d bytes and was cut", w.First, MaxDiffBytes))
	case w.Last > 0 && (w.Last < w.Total || cr.Hit):
		of := fmt.Sprintf(" of %d", w.Total)
		if cr.Hit {
			of = ""
		}
		out.Cut(fmt.Sprintf("diff lines %d-%d%s shown: call again with startLine=%d for more", w.First, w.Last, of, w.Last+1))
	}
	if cr.Hit && w.Last >= w.Total {
		out.Cut(fmt.Sprintf("the diff is larger than the %d MiB this server reads; list the changed files and read them instead", maxDiffReadBytes>>20))
	}
	return out, nil
}
