package github

import (
	"context"
	"fmt"
	"sync"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Review threads per page, and comments read per thread.
const (
	reviewThreadsPerPage = 30
	commentsPerThread    = 20
)

// CheckStatusInput names any ref: a branch, tag or commit, in a pull request or not.
type CheckStatusInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Ref   string `json:"ref"`
}

// CheckStatus answers "is CI green on this ref": one verdict over the commit
// statuses and check runs of the ref's commit, and the checks, failing first.
type CheckStatus struct {
	Ref     string        `json:"ref" jsonschema_description:"The ref asked about"`
	SHA     string        `json:"sha,omitempty" jsonschema_description:"Commit the ref names"`
	Verdict string        `json:"verdict" jsonschema_description:"failure (something failed) or pending (nothing failed, something runs) or success (all passed) or none (no checks)"`
	Failing int           `json:"failing" jsonschema_description:"Checks that failed"`
	Pending int           `json:"pending" jsonschema_description:"Checks not finished"`
	Passing int           `json:"passing" jsonschema_description:"Checks that passed, were neutral or skipped"`
	Checks  []StatusCheck `json:"checks" jsonschema_description:"Statuses and check runs, failing first; at most 100 of each"`
	Notes   []string      `json:"notes,omitempty" jsonschema_description:"Parts that could not be read and why"`
	mcpkit.Truncation
}

// GetCheckStatus reads the combined commit status and the check runs of ref and
// sums them up in one verdict. When neither can be read it fails; when one cannot,
// the verdict is over the other and notes say what is missing.
func (b *Backend) GetCheckStatus(ctx context.Context, in CheckStatusInput) (CheckStatus, error) {
	out := CheckStatus{Checks: []StatusCheck{}}
	if err := validateRef("ref", in.Ref); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	var (
		wg       sync.WaitGroup
		combined *gh.CombinedStatus
		runs     *gh.ListCheckRunsResults
		errs     [2]error
	)
	page1 := &gh.ListOptions{Page: 1, PerPage: maxChecks}
	wg.Go(func() {
		combined, _, errs[0] = b.gh.Repositories.GetCombinedStatus(ctx, in.Owner, in.Repo, in.Ref, page1)
	})
	wg.Go(func() {
		runs, _, errs[1] = b.gh.Checks.ListCheckRunsForRef(ctx, in.Owner, in.Repo, in.Ref, &gh.ListCheckRunsOptions{ListOptions: *page1})
	})
	wg.Wait()
	what := fmt.Sprintf("get checks of %s in %s", in.Ref, repoName(in.Owner, in.Repo))
	if errs[0] != nil && errs[1] != nil {
		return out, b.fail(errs[0], what)
	}
	out.Ref = name(in.Ref)
	if errs[0] != nil {
		out.Notes = append(out.Notes, b.fail(errs[0], "get combined status").Error())
	} else {
		out.SHA = name(combined.GetSHA())
		for _, s := range combined.Statuses {
			out.Checks = append(out.Checks, StatusCheck{
				Name: name(s.GetContext()), Kind: "status", State: name(s.GetState()),
				Summary: out.CleanField("a status description", s.GetDescription(), maxShortBytes), URL: name(s.GetTargetURL()),
			})
		}
		if combined.GetTotalCount() > len(combined.Statuses) {
			out.Cut(fmt.Sprintf("only %d of %d statuses are listed", len(combined.Statuses), combined.GetTotalCount()))
		}
	}
	if errs[1] != nil {
		out.Notes = append(out.Notes, b.fail(errs[1], "list check runs").Error())
	} else {
		for _, c := range runs.CheckRuns {
			if out.SHA == "" {
				out.SHA = name(c.GetHeadSHA())
			}
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
	for _, c := range out.Checks {
		switch {
		case checkFailed(c):
			out.Failing++
		case c.State == "pending" || c.State == "queued" || c.State == "in_progress" || c.State == "waiting" || c.State == "requested":
			out.Pending++
		default:
			out.Passing++
		}
	}
	switch {
	case out.Failing > 0:
		out.Verdict = "failure"
	case out.Pending > 0:
		out.Verdict = "pending"
	case out.Passing > 0:
		out.Verdict = "success"
	default:
		out.Verdict = "none"
	}
	return out, nil
}

// checkFailed is sortChecks' first rank: a status or check run that did not pass.
func checkFailed(c StatusCheck) bool {
	return c.State == "failure" || c.State == "error" || c.Conclusion == "failure" || c.Conclusion == "timed_out" ||
		c.Conclusion == "action_required" || c.Conclusion == "cancelled" || c.Conclusion == "startup_failure"
}

// ListPullRequestCommitsInput names a pull request and a page of its commits.
type ListPullRequestCommitsInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Number  int    `json:"number" jsonschema:"minimum=1"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// ListPullRequestCommits lists a pull request's commits, oldest first (GitHub lists
// at most 250).
func (b *Backend) ListPullRequestCommits(ctx context.Context, in ListPullRequestCommitsInput) (CommitList, error) {
	out := CommitList{Commits: []CommitSummary{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected a pull request number of 1 or more", in.Number)
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
	list, resp, err := b.gh.PullRequests.ListCommits(ctx, in.Owner, in.Repo, in.Number, &lo)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("list commits of pull request %s#%d", repoName(in.Owner, in.Repo), in.Number))
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
