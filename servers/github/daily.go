package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// The smaller daily reads of issue 29: notifications, labels and milestones,
// sub-issues and a parent issue.

// NotificationsInput selects the user's notifications, optionally of one repository.
type NotificationsInput struct {
	Owner   string `json:"owner,omitempty" jsonschema_description:"With repo: only this repository's"`
	Repo    string `json:"repo,omitempty"`
	All     bool   `json:"all,omitempty" jsonschema_description:"Include read ones"`
	Since   string `json:"since,omitempty"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=50"`
}

// Notification is one notification thread.
type Notification struct {
	ID         string `json:"id" jsonschema_description:"Thread ID"`
	Repository string `json:"repository" jsonschema_description:"owner/name"`
	Type       string `json:"type" jsonschema_description:"Issue or PullRequest or Release or CheckSuite or Discussion ..."`
	Title      string `json:"title" jsonschema_description:"Subject title"`
	Reason     string `json:"reason" jsonschema_description:"Why you were notified: mention, review_requested, assign, ..."`
	Unread     bool   `json:"unread,omitempty" jsonschema_description:"True when unread"`
	UpdatedAt  string `json:"updatedAt,omitempty" jsonschema_description:"Last update (RFC 3339)"`
	Number     int    `json:"number,omitempty" jsonschema_description:"Issue or pull request number"`
}

// NotificationList is one page of notifications.
type NotificationList struct {
	Notifications []Notification `json:"notifications" jsonschema_description:"Notifications on this page, newest first"`
	Hidden        int            `json:"hiddenByAllowList,omitempty" jsonschema_description:"Notifications of repositories outside the allow-list, left out"`
	Page          int            `json:"page" jsonschema_description:"This page number"`
	NextPage      int            `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListNotifications lists the token owner's notifications, newest first. Those of
// repositories outside the allow-list are left out and counted.
func (b *Backend) ListNotifications(ctx context.Context, in NotificationsInput) (NotificationList, error) {
	out := NotificationList{Notifications: []Notification{}}
	if in.PerPage > 50 {
		return out, fmt.Errorf("perPage is %d; expected 1 to 50", in.PerPage)
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	since, err := parseTime("since", in.Since)
	if err != nil {
		return out, err
	}
	if (in.Owner == "") != (in.Repo == "") {
		return out, fmt.Errorf("give owner and repo together (one repository's notifications), or neither (all)")
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.NotificationListOptions{All: in.All, Since: since, ListOptions: lo}
	var list []*gh.Notification
	var resp *gh.Response
	if in.Owner != "" {
		list, resp, err = b.gh.Activity.ListRepositoryNotifications(ctx, in.Owner, in.Repo, opts)
	} else {
		list, resp, err = b.gh.Activity.ListNotifications(ctx, opts)
	}
	if err != nil {
		return out, b.fail(err, "list notifications")
	}
	for _, n := range list {
		r := n.GetRepository()
		if !b.allow.Allowed(r.GetOwner().GetLogin(), r.GetName()) {
			out.Hidden++
			continue
		}
		nt := Notification{ID: name(n.GetID()), Repository: name(r.GetFullName()), Type: name(n.GetSubject().GetType()),
			Title: out.CleanField("a notification title", n.GetSubject().GetTitle(), maxTitleBytes), Reason: name(n.GetReason()),
			Unread: n.GetUnread(), UpdatedAt: ts(n.UpdatedAt)}
		nt.Number = numberFromAPIURL(n.GetSubject().GetURL())
		out.Notifications = append(out.Notifications, nt)
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "notifications")
	return out, nil
}

// numberFromAPIURL takes the number at the end of .../issues/N or .../pulls/N.
func numberFromAPIURL(s string) int {
	var n int
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			fmt.Sscanf(s[i+1:], "%d", &n)
			break
		}
	}
	return n
}

// Label is one label of a repository.
type Label struct {
	Name        string `json:"name" jsonschema_description:"Label name"`
	Color       string `json:"color,omitempty" jsonschema_description:"Hex color"`
	Description string `json:"description,omitempty" jsonschema_description:"Label description"`
}

// LabelList is one page of labels.
type LabelList struct {
	Labels   []Label `json:"labels" jsonschema_description:"Labels on this page"`
	Page     int     `json:"page" jsonschema_description:"This page number"`
	NextPage int     `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListLabels lists a repository's labels.
func (b *Backend) ListLabels(ctx context.Context, in ListRepoInput) (LabelList, error) {
	out := LabelList{Labels: []Label{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Issues.ListLabels(ctx, in.Owner, in.Repo, &lo)
	if err != nil {
		return out, b.fail(err, "list labels of "+repoName(in.Owner, in.Repo))
	}
	for _, l := range list {
		out.Labels = append(out.Labels, Label{Name: name(l.GetName()), Color: name(l.GetColor()),
			Description: out.CleanField("a label description", l.GetDescription(), maxShortBytes)})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "labels")
	return out, nil
}

// MilestonesInput selects milestones of a repository.
type MilestonesInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	State   string `json:"state,omitempty" jsonschema:"enum=open,enum=closed,enum=all,default=open"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Milestone is one milestone and its progress.
type Milestone struct {
	Number      int    `json:"number" jsonschema_description:"Milestone number"`
	Title       string `json:"title" jsonschema_description:"Title"`
	State       string `json:"state" jsonschema_description:"open or closed"`
	Open        int    `json:"openIssues" jsonschema_description:"Open issues in it"`
	Closed      int    `json:"closedIssues" jsonschema_description:"Closed issues in it"`
	DueOn       string `json:"dueOn,omitempty" jsonschema_description:"Due date (RFC 3339)"`
	Description string `json:"description,omitempty" jsonschema_description:"Description (capped)"`
}

// MilestoneList is one page of milestones.
type MilestoneList struct {
	Milestones []Milestone `json:"milestones" jsonschema_description:"Milestones on this page"`
	Page       int         `json:"page" jsonschema_description:"This page number"`
	NextPage   int         `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListMilestones lists a repository's milestones with their progress.
func (b *Backend) ListMilestones(ctx context.Context, in MilestonesInput) (MilestoneList, error) {
	out := MilestoneList{Milestones: []Milestone{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	if err := checkWord("state", in.State); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Issues.ListMilestones(ctx, in.Owner, in.Repo, &gh.MilestoneListOptions{State: in.State, ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list milestones of "+repoName(in.Owner, in.Repo))
	}
	for _, m := range list {
		out.Milestones = append(out.Milestones, Milestone{Number: m.GetNumber(), Title: out.CleanField("a milestone title", m.GetTitle(), maxTitleBytes),
			State: name(m.GetState()), Open: m.GetOpenIssues(), Closed: m.GetClosedIssues(), DueOn: ts(m.DueOn),
			Description: out.CleanField("a milestone description", m.GetDescription(), maxShortBytes)})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "milestones")
	return out, nil
}

// SubIssuesInput names an issue and a page of its sub-issues.
type SubIssuesInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Number  int    `json:"number" jsonschema:"minimum=1"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// RelatedIssue is a parent or sub-issue, possibly in another repository.
type RelatedIssue struct {
	Repository string   `json:"repository" jsonschema_description:"owner/name"`
	Number     int      `json:"number" jsonschema_description:"Issue number"`
	Title      string   `json:"title" jsonschema_description:"Title"`
	State      string   `json:"state" jsonschema_description:"open or closed"`
	Assignees  []string `json:"assignees,omitempty" jsonschema_description:"Logins of assignees"`
}

// SubIssues is an issue's parent (if any) and a page of its sub-issues.
type SubIssues struct {
	Parent    *RelatedIssue  `json:"parent,omitempty" jsonschema_description:"The issue this one is a sub-issue of"`
	SubIssues []RelatedIssue `json:"subIssues" jsonschema_description:"Sub-issues on this page"`
	Hidden    int            `json:"hiddenByAllowList,omitempty" jsonschema_description:"Related issues in repositories outside the allow-list, left out"`
	Page      int            `json:"page" jsonschema_description:"This page number"`
	NextPage  int            `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// GetSubIssues reads an issue's parent and a page of its sub-issues (REST; go-github
// v62 has no helper, so the requests are built on its client). Related issues can
// live in other repositories: those outside the allow-list are left out and counted.
func (b *Backend) GetSubIssues(ctx context.Context, in SubIssuesInput) (SubIssues, error) {
	out := SubIssues{SubIssues: []RelatedIssue{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected an issue number of 1 or more", in.Number)
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
	base := fmt.Sprintf("repos/%s/%s/issues/%d", in.Owner, in.Repo, in.Number)
	what := fmt.Sprintf("list sub-issues of %s#%d", repoName(in.Owner, in.Repo), in.Number)
	req, err := b.gh.NewRequest("GET", fmt.Sprintf("%s/sub_issues?page=%d&per_page=%d", base, lo.Page, lo.PerPage), nil)
	if err != nil {
		return out, err
	}
	var subs []*gh.Issue
	resp, err := b.gh.Do(ctx, req, &subs)
	if err != nil {
		return out, b.fail(err, what)
	}
	for _, is := range subs {
		if ri, ok := b.related(&out.Truncation, is); ok {
			out.SubIssues = append(out.SubIssues, ri)
		} else {
			out.Hidden++
		}
	}
	if lo.Page == 1 {
		preq, err := b.gh.NewRequest("GET", base+"/parent", nil)
		if err != nil {
			return out, err
		}
		var parent gh.Issue
		var er *gh.ErrorResponse
		switch _, err := b.gh.Do(ctx, preq, &parent); {
		case err == nil:
			if ri, ok := b.related(&out.Truncation, &parent); ok {
				out.Parent = &ri
			} else {
				out.Hidden++
			}
		case asErrorResponse(err, &er) && er.Response.StatusCode == 404:
			// No parent.
		default:
			return out, b.fail(err, fmt.Sprintf("get the parent of %s#%d", repoName(in.Owner, in.Repo), in.Number))
		}
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "sub-issues")
	return out, nil
}

// related converts an issue named by a parent or sub-issue link, or reports that its
// repository is outside the allow-list (or unknown).
func (b *Backend) related(t *mcpkit.Truncation, is *gh.Issue) (RelatedIssue, bool) {
	owner, repo, ok := repoFromAPIURL(is.GetRepositoryURL())
	if !ok || !b.allow.Allowed(owner, repo) {
		return RelatedIssue{}, false
	}
	return RelatedIssue{Repository: repoName(owner, repo), Number: is.GetNumber(), Title: t.CleanField("an issue title", is.GetTitle(), maxTitleBytes),
		State: name(is.GetState()), Assignees: logins(is.Assignees)}, true
}
