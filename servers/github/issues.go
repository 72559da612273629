package github

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// ListIssuesInput selects issues of one repository. GitHub counts pull requests as
// issues; they are marked pullRequest.
type ListIssuesInput struct {
	Owner     string   `json:"owner"`
	Repo      string   `json:"repo"`
	State     string   `json:"state,omitempty" jsonschema:"enum=open,enum=closed,enum=all,default=open"`
	Labels    []string `json:"labels,omitempty" jsonschema_description:"Labels (all must match)"`
	Assignee  string   `json:"assignee,omitempty" jsonschema_description:"Assignee login or none or *"`
	Since     string   `json:"since,omitempty" jsonschema_description:"Updated since"`
	Sort      string   `json:"sort,omitempty" jsonschema:"enum=created,enum=updated,enum=comments,default=created"`
	Direction string   `json:"direction,omitempty" jsonschema:"enum=asc,enum=desc"`
	Page      int      `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage   int      `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// IssueSummary is one issue in a list: no body (get the issue for that).
type IssueSummary struct {
	Number      int      `json:"number" jsonschema_description:"Issue number"`
	Title       string   `json:"title" jsonschema_description:"Issue title"`
	State       string   `json:"state" jsonschema_description:"open or closed"`
	Author      string   `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Labels      []string `json:"labels,omitempty" jsonschema_description:"Label names"`
	Assignees   []string `json:"assignees,omitempty" jsonschema_description:"Logins of assignees"`
	Comments    int      `json:"comments" jsonschema_description:"Number of comments"`
	PullRequest bool     `json:"pullRequest,omitempty" jsonschema_description:"True when this issue is a pull request"`
	CreatedAt   string   `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	UpdatedAt   string   `json:"updatedAt,omitempty" jsonschema_description:"Last update time (RFC 3339)"`
}

// IssueList is one page of issues.
type IssueList struct {
	Issues   []IssueSummary `json:"issues" jsonschema_description:"Issues on this page"`
	Page     int            `json:"page" jsonschema_description:"This page number"`
	NextPage int            `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// GetIssueInput names one issue (or pull request) and a page of its comments.
type GetIssueInput struct {
	Owner           string `json:"owner"`
	Repo            string `json:"repo"`
	Number          int    `json:"number" jsonschema:"minimum=1"`
	CommentsPage    int    `json:"commentsPage,omitempty" jsonschema:"minimum=1"`
	CommentsPerPage int    `json:"commentsPerPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Comment is one comment on an issue or pull request.
type Comment struct {
	ID          int64  `json:"id" jsonschema_description:"Comment ID"`
	Author      string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Association string `json:"association,omitempty" jsonschema_description:"Author's relation to the repository such as OWNER or MEMBER or CONTRIBUTOR or NONE"`
	CreatedAt   string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	Body        string `json:"body" jsonschema_description:"Comment text (capped at 8 KiB)"`
	Hidden      bool   `json:"hidden,omitempty" jsonschema_description:"True when lockdown mode replaced the text with a notice"`
}

// Issue is one issue with a page of its comments.
type Issue struct {
	Number       int       `json:"number" jsonschema_description:"Issue number"`
	Title        string    `json:"title" jsonschema_description:"Issue title"`
	State        string    `json:"state" jsonschema_description:"open or closed"`
	StateReason  string    `json:"stateReason,omitempty" jsonschema_description:"Why it was closed: completed or not_planned or reopened"`
	Author       string    `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Association  string    `json:"association,omitempty" jsonschema_description:"Author's relation to the repository"`
	Labels       []string  `json:"labels,omitempty" jsonschema_description:"Label names"`
	Assignees    []string  `json:"assignees,omitempty" jsonschema_description:"Logins of assignees"`
	Milestone    string    `json:"milestone,omitempty" jsonschema_description:"Milestone title"`
	PullRequest  bool      `json:"pullRequest,omitempty" jsonschema_description:"True when this issue is a pull request"`
	CreatedAt    string    `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	UpdatedAt    string    `json:"updatedAt,omitempty" jsonschema_description:"Last update time (RFC 3339)"`
	ClosedAt     string    `json:"closedAt,omitempty" jsonschema_description:"Close time (RFC 3339)"`
	URL          string    `json:"url" jsonschema_description:"Web page of the issue"`
	Body         string    `json:"body" jsonschema_description:"Issue text (capped at 16 KiB)"`
	BodyHidden   bool      `json:"bodyHidden,omitempty" jsonschema_description:"True when lockdown mode replaced the body with a notice"`
	CommentCount int       `json:"commentCount" jsonschema_description:"Total number of comments"`
	Comments     []Comment `json:"comments" jsonschema_description:"Comments on this page; oldest first"`
	CommentsPage int       `json:"commentsPage" jsonschema_description:"This page of comments"`
	NextPage     int       `json:"nextCommentsPage,omitempty" jsonschema_description:"Next page of comments when there are more"`
	Lockdown     int       `json:"hiddenByLockdown,omitempty" jsonschema_description:"How many bodies or comments lockdown mode hid because their authors lack push access"`
	mcpkit.Truncation
}

// SearchIssuesInput is an issue and pull request search in GitHub's search syntax.
type SearchIssuesInput struct {
	Query   string `json:"query" jsonschema_description:"Such as 'repo:octo/hello is:open label:bug'"`
	Sort    string `json:"sort,omitempty" jsonschema:"enum=comments,enum=reactions,enum=created,enum=updated"`
	Order   string `json:"order,omitempty" jsonschema:"enum=asc,enum=desc"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// IssueSearchItem is one issue or pull request in a search result.
type IssueSearchItem struct {
	Repository  string   `json:"repository" jsonschema_description:"owner/name of the repository"`
	Number      int      `json:"number" jsonschema_description:"Issue or pull request number"`
	Title       string   `json:"title" jsonschema_description:"Title"`
	State       string   `json:"state" jsonschema_description:"open or closed"`
	Author      string   `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Labels      []string `json:"labels,omitempty" jsonschema_description:"Label names"`
	Comments    int      `json:"comments" jsonschema_description:"Number of comments"`
	PullRequest bool     `json:"pullRequest,omitempty" jsonschema_description:"True for a pull request"`
	UpdatedAt   string   `json:"updatedAt,omitempty" jsonschema_description:"Last update time (RFC 3339)"`
	URL         string   `json:"url" jsonschema_description:"Web page"`
}

// IssueSearchResult is one page of an issue search.
type IssueSearchResult struct {
	TotalCount int               `json:"totalCount" jsonschema_description:"Number of matches GitHub found in all pages (including any the allow-list hides)"`
	Items      []IssueSearchItem `json:"items" jsonschema_description:"Matches on this page"`
	Hidden     int               `json:"hiddenByAllowList,omitempty" jsonschema_description:"Results on this page left out because the server's repository allow-list excludes them"`
	Page       int               `json:"page" jsonschema_description:"This page number"`
	NextPage   int               `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more results"`
	mcpkit.Truncation
}

// ListIssues lists issues of a repository.
func (b *Backend) ListIssues(ctx context.Context, in ListIssuesInput) (IssueList, error) {
	out := IssueList{Issues: []IssueSummary{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	opts := &gh.IssueListByRepoOptions{State: in.State, Assignee: in.Assignee, Sort: in.Sort, Direction: in.Direction, ListOptions: lo}
	for _, l := range in.Labels {
		if strings.Contains(l, ",") {
			return out, fmt.Errorf("label %q contains a comma; give each label as its own list item", clip(l))
		}
		opts.Labels = append(opts.Labels, l)
	}
	if opts.Since, err = parseTime("since", in.Since); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Issues.ListByRepo(ctx, in.Owner, in.Repo, opts)
	if err != nil {
		return out, b.fail(err, "list issues of "+repoName(in.Owner, in.Repo))
	}
	for _, is := range list {
		out.Issues = append(out.Issues, IssueSummary{
			Number:      is.GetNumber(),
			Title:       out.CleanField("a title", is.GetTitle(), maxTitleBytes),
			State:       name(is.GetState()),
			Author:      login(is.GetUser()),
			Labels:      labelNames(is.Labels),
			Assignees:   logins(is.Assignees),
			Comments:    is.GetComments(),
			PullRequest: is.IsPullRequest(),
			CreatedAt:   ts(is.CreatedAt),
			UpdatedAt:   ts(is.UpdatedAt),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "issues")
	return out, nil
}

// GetIssue returns an issue (or a pull request's conversation) with a page of its
// comments. With lockdown on, text by authors without push access is hidden.
func (b *Backend) GetIssue(ctx context.Context, in GetIssueInput) (Issue, error) {
	out := Issue{Comments: []Comment{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected an issue or pull request number of 1 or more", in.Number)
	}
	lo, err := listOptions(in.CommentsPage, in.CommentsPerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("get issue %s#%d", repoName(in.Owner, in.Repo), in.Number)
	is, _, err := b.gh.Issues.Get(ctx, in.Owner, in.Repo, in.Number)
	if err != nil {
		return out, b.fail(err, what)
	}
	comments, resp, err := b.gh.Issues.ListComments(ctx, in.Owner, in.Repo, in.Number, &gh.IssueListCommentsOptions{ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list comments of "+strings.TrimPrefix(what, "get "))
	}
	filter := b.filterFor(ctx, in.Owner, in.Repo)

	out.Number = is.GetNumber()
	out.Title = out.CleanField("the title", is.GetTitle(), maxTitleBytes)
	out.State, out.StateReason = name(is.GetState()), name(is.GetStateReason())
	out.Author, out.Association = login(is.GetUser()), name(is.GetAuthorAssociation())
	out.Labels, out.Assignees = labelNames(is.Labels), logins(is.Assignees)
	out.Milestone = name(is.GetMilestone().GetTitle())
	out.PullRequest = is.IsPullRequest()
	out.CreatedAt, out.UpdatedAt, out.ClosedAt = ts(is.CreatedAt), ts(is.UpdatedAt), ts(is.ClosedAt)
	out.URL = name(is.GetHTMLURL())
	out.CommentCount = is.GetComments()
	body, hidden := filter.text(ctx, out.Author, out.Association, "issue body", is.GetBody())
	out.Body, out.BodyHidden = out.CleanField("the issue body", body, maxBodyBytes), hidden
	for _, c := range comments {
		cm := Comment{ID: c.GetID(), Author: login(c.GetUser()), Association: name(c.GetAuthorAssociation()), CreatedAt: ts(c.CreatedAt)}
		text, hidden := filter.text(ctx, cm.Author, cm.Association, "comment", c.GetBody())
		cm.Body, cm.Hidden = out.CleanField(fmt.Sprintf("comment %d", cm.ID), text, maxCommentBytes), hidden
		out.Comments = append(out.Comments, cm)
	}
	out.Lockdown = filter.count()
	out.CommentsPage = lo.Page
	if resp.NextPage != 0 {
		out.NextPage = resp.NextPage
		out.Cut(fmt.Sprintf("more comments: call again with commentsPage=%d", resp.NextPage))
	}
	return out, nil
}

// SearchIssues searches issues and pull requests. Results outside the allow-list are
// dropped from the page and counted in Hidden.
func (b *Backend) SearchIssues(ctx context.Context, in SearchIssuesInput) (IssueSearchResult, error) {
	out := IssueSearchResult{Items: []IssueSearchItem{}}
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
	res, resp, err := b.gh.Search.Issues(ctx, in.Query, opts)
	if err != nil {
		return out, b.fail(err, "search issues")
	}
	out.TotalCount, out.Page = res.GetTotal(), opts.Page
	for _, is := range res.Issues {
		owner, repo, ok := repoFromAPIURL(is.GetRepositoryURL())
		if !ok || !b.allow.Allowed(owner, repo) {
			out.Hidden++
			continue
		}
		out.Items = append(out.Items, IssueSearchItem{
			Repository:  repoName(owner, repo),
			Number:      is.GetNumber(),
			Title:       out.CleanField("a title", is.GetTitle(), maxTitleBytes),
			State:       name(is.GetState()),
			Author:      login(is.GetUser()),
			Labels:      labelNames(is.Labels),
			Comments:    is.GetComments(),
			PullRequest: is.IsPullRequest(),
			UpdatedAt:   ts(is.UpdatedAt),
			URL:         name(is.GetHTMLURL()),
		})
	}
	finishSearch(&out.Truncation, res.GetIncompleteResults())
	out.NextPage = nextPage(&out.Truncation, resp, "results")
	return out, nil
}

// repoFromAPIURL takes owner and name from an API URL ending in /repos/OWNER/NAME, as
// in a search result's repository_url. A URL of any other shape counts as unknown,
// which the allow-list treats as outside.
func repoFromAPIURL(s string) (string, string, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 3 || parts[len(parts)-3] != "repos" {
		return "", "", false
	}
	owner, repo := parts[len(parts)-2], parts[len(parts)-1]
	if validateRepo(owner, repo) != nil {
		return "", "", false
	}
	return owner, repo, true
}
