package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// The writes issue 29 adds: each opt-in (--allow-writes), confirmed (req.Confirm
// shows the Describe… text first) and checked against the allow-list before anyone is
// asked. No merge, no delete.

// UpdateIssueInput changes an issue's title, body or state; fields left out stay.
type UpdateIssueInput struct {
	Owner       string `json:"owner"`
	Repo        string `json:"repo"`
	Number      int    `json:"number" jsonschema:"minimum=1"`
	Title       string `json:"title,omitempty"`
	Body        string `json:"body,omitempty"`
	State       string `json:"state,omitempty" jsonschema:"enum=open,enum=closed"`
	StateReason string `json:"stateReason,omitempty" jsonschema:"enum=completed,enum=not_planned"`
}

// UpdatedIssue is the issue after the change.
type UpdatedIssue struct {
	Repository string `json:"repository" jsonschema_description:"owner/name"`
	Number     int    `json:"number" jsonschema_description:"Issue number"`
	State      string `json:"state" jsonschema_description:"open or closed"`
	URL        string `json:"url" jsonschema_description:"Web page"`
}

func (in UpdateIssueInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 {
		return fmt.Errorf("number is %d; expected an issue number of 1 or more", in.Number)
	}
	if in.Title == "" && in.Body == "" && in.State == "" {
		return fmt.Errorf("nothing to change; give title, body or state")
	}
	if in.Title != "" {
		if err := checkTitle(in.Title); err != nil {
			return err
		}
	}
	if err := checkBody("body", in.Body, false); err != nil {
		return err
	}
	switch {
	case in.State != "" && in.State != "open" && in.State != "closed":
		return fmt.Errorf("state %q is not open or closed", clip(in.State))
	case in.StateReason != "" && in.State != "closed":
		return fmt.Errorf("stateReason applies only with state closed")
	case in.StateReason != "" && in.StateReason != "completed" && in.StateReason != "not_planned":
		return fmt.Errorf("stateReason %q is not completed or not_planned", clip(in.StateReason))
	}
	return nil
}

// DescribeUpdateIssue renders an UpdateIssue call.
func (b *Backend) DescribeUpdateIssue(in UpdateIssueInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Update issue %s#%d on %s\n", repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host)
	if in.State != "" {
		fmt.Fprintf(&s, "State: %s %s\n", in.State, in.StateReason)
	}
	if in.Title != "" {
		fmt.Fprintf(&s, "New title: %s\n", oneLine(in.Title))
	}
	if in.Body != "" {
		writeText(&s, "New body, replacing the old", in.Body)
	}
	return s.String(), nil
}

// UpdateIssue edits an issue (or closes or reopens it).
func (b *Backend) UpdateIssue(ctx context.Context, in UpdateIssueInput) (UpdatedIssue, error) {
	var out UpdatedIssue
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	req := &gh.IssueRequest{}
	if in.Title != "" {
		req.Title = &in.Title
	}
	if in.Body != "" {
		req.Body = &in.Body
	}
	if in.State != "" {
		req.State = &in.State
	}
	if in.StateReason != "" {
		req.StateReason = &in.StateReason
	}
	is, _, err := b.gh.Issues.Edit(ctx, in.Owner, in.Repo, in.Number, req)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("update issue %s#%d", repoName(in.Owner, in.Repo), in.Number))
	}
	return UpdatedIssue{Repository: repoName(in.Owner, in.Repo), Number: is.GetNumber(), State: name(is.GetState()), URL: name(is.GetHTMLURL())}, nil
}

// EditLabelsInput adds and removes labels of an issue or pull request.
type EditLabelsInput struct {
	Owner  string   `json:"owner"`
	Repo   string   `json:"repo"`
	Number int      `json:"number" jsonschema:"minimum=1"`
	Add    []string `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// IssueLabels are an issue's labels after a change.
type IssueLabels struct {
	Labels []string `json:"labels" jsonschema_description:"Labels now on the issue"`
}

func (in EditLabelsInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 {
		return fmt.Errorf("number is %d; expected an issue or pull request number of 1 or more", in.Number)
	}
	if len(in.Add)+len(in.Remove) == 0 {
		return fmt.Errorf("nothing to change; give labels to add or remove")
	}
	if len(in.Add) > maxLabels || len(in.Remove) > maxLabels {
		return fmt.Errorf("at most %d labels to add and %d to remove in one call", maxLabels, maxLabels)
	}
	for _, l := range append(append([]string(nil), in.Add...), in.Remove...) {
		if strings.TrimSpace(l) == "" || len(l) > 100 {
			return fmt.Errorf("label %q is empty or longer than 100 bytes", clip(l))
		}
	}
	return nil
}

// DescribeEditLabels renders an EditLabels call.
func (b *Backend) DescribeEditLabels(in EditLabelsInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Change the labels of %s#%d on %s\n", repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host)
	if len(in.Add) > 0 {
		fmt.Fprintf(&s, "Add: %s\n", oneLine(strings.Join(in.Add, ", ")))
	}
	if len(in.Remove) > 0 {
		fmt.Fprintf(&s, "Remove: %s\n", oneLine(strings.Join(in.Remove, ", ")))
	}
	return s.String(), nil
}

// EditLabels adds, then removes, labels; a label to remove that is not there is
// no error.
func (b *Backend) EditLabels(ctx context.Context, in EditLabelsInput) (IssueLabels, error) {
	out := IssueLabels{Labels: []string{}}
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("change the labels of %s#%d", repoName(in.Owner, in.Repo), in.Number)
	var now []*gh.Label
	if len(in.Add) > 0 {
		if now, _, err = b.gh.Issues.AddLabelsToIssue(ctx, in.Owner, in.Repo, in.Number, in.Add); err != nil {
			return out, b.fail(err, what)
		}
	}
	for _, l := range in.Remove {
		var er *gh.ErrorResponse
		if _, err := b.gh.Issues.RemoveLabelForIssue(ctx, in.Owner, in.Repo, in.Number, l); err != nil && !(asErrorResponse(err, &er) && er.Response.StatusCode == 404) {
			return out, b.fail(err, what)
		}
	}
	if len(in.Remove) > 0 {
		if now, _, err = b.gh.Issues.ListLabelsByIssue(ctx, in.Owner, in.Repo, in.Number, &gh.ListOptions{PerPage: 100}); err != nil {
			return out, b.fail(err, what)
		}
	}
	if names := labelNames(now); names != nil {
		out.Labels = names
	}
	return out, nil
}

// ReplyInput replies in a pull request's review thread.
type ReplyInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	Number    int    `json:"number" jsonschema:"minimum=1"`
	CommentID int64  `json:"commentId" jsonschema:"minimum=1" jsonschema_description:"A comment of the thread (get_review_threads)"`
	Body      string `json:"body"`
}

func (in ReplyInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 || in.CommentID < 1 {
		return fmt.Errorf("number and commentId must be positive; get_review_threads lists the comment IDs")
	}
	return checkBody("body", in.Body, true)
}

// DescribeReply renders a Reply call.
func (b *Backend) DescribeReply(in ReplyInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Reply to review comment %d on %s#%d on %s\n", in.CommentID, repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host)
	writeText(&s, "Reply", in.Body)
	return s.String(), nil
}

// Reply answers a review comment in its thread.
func (b *Backend) Reply(ctx context.Context, in ReplyInput) (CreatedComment, error) {
	var out CreatedComment
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	c, _, err := b.gh.PullRequests.CreateCommentInReplyTo(ctx, in.Owner, in.Repo, in.Number, in.Body, in.CommentID)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("reply to review comment %d on %s#%d", in.CommentID, repoName(in.Owner, in.Repo), in.Number))
	}
	return CreatedComment{ID: c.GetID(), URL: name(c.GetHTMLURL())}, nil
}

// ResolveThreadInput resolves or unresolves a review thread of a pull request.
type ResolveThreadInput struct {
	Owner    string `json:"owner"`
	Repo     string `json:"repo"`
	Number   int    `json:"number" jsonschema:"minimum=1"`
	ThreadID string `json:"threadId" jsonschema_description:"From get_review_threads"`
	Resolved *bool  `json:"resolved,omitempty" jsonschema:"default=true" jsonschema_description:"false unresolves"`
}

// ThreadState is a review thread after the change.
type ThreadState struct {
	ThreadID string `json:"threadId" jsonschema_description:"Thread node ID"`
	Resolved bool   `json:"resolved" jsonschema_description:"True when resolved"`
}

func (in ResolveThreadInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 {
		return fmt.Errorf("number is %d; expected a pull request number", in.Number)
	}
	if !cursorPattern.MatchString(in.ThreadID) {
		return fmt.Errorf("threadId %q is not a thread ID; get_review_threads lists them", clip(in.ThreadID))
	}
	return nil
}

func (in ResolveThreadInput) resolve() bool { return in.Resolved == nil || *in.Resolved }

// DescribeResolveThread renders a ResolveThread call.
func (b *Backend) DescribeResolveThread(in ResolveThreadInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	verb := "Resolve"
	if !in.resolve() {
		verb = "Unresolve"
	}
	return fmt.Sprintf("%s review thread %s on %s#%d on %s\n", verb, in.ThreadID, repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host), nil
}

const threadOwnerQuery = `query ThreadOwner($id: ID!) {
  node(id: $id) { ... on PullRequestReviewThread { pullRequest { number repository { nameWithOwner } } } }
}`

const resolveThreadMutation = `mutation ResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

const unresolveThreadMutation = `mutation UnresolveThread($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

// ResolveThread resolves (or unresolves) a review thread. A thread ID names no
// repository, so first the thread is read and must belong to the pull request the
// input names (whose repository the allow-list passed); only then is the mutation
// sent, once.
func (b *Backend) ResolveThread(ctx context.Context, in ResolveThreadInput) (ThreadState, error) {
	var out ThreadState
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("resolve review thread %s on %s#%d", in.ThreadID, repoName(in.Owner, in.Repo), in.Number)
	var owner struct {
		Node *struct {
			PullRequest *struct {
				Number     int `json:"number"`
				Repository struct {
					NameWithOwner string `json:"nameWithOwner"`
				} `json:"repository"`
			} `json:"pullRequest"`
		} `json:"node"`
	}
	if err := b.graphQL(ctx, what, threadOwnerQuery, map[string]any{"id": in.ThreadID}, &owner, false); err != nil {
		return out, err
	}
	if owner.Node == nil || owner.Node.PullRequest == nil || owner.Node.PullRequest.Number != in.Number ||
		!strings.EqualFold(owner.Node.PullRequest.Repository.NameWithOwner, repoName(in.Owner, in.Repo)) {
		return out, fmt.Errorf("%s: the thread is not a review thread of %s#%d; nothing was changed", what, repoName(in.Owner, in.Repo), in.Number)
	}
	mutation, field := resolveThreadMutation, "resolveReviewThread"
	if !in.resolve() {
		mutation, field = unresolveThreadMutation, "unresolveReviewThread"
	}
	var res map[string]struct {
		Thread struct {
			ID         string `json:"id"`
			IsResolved bool   `json:"isResolved"`
		} `json:"thread"`
	}
	if err := b.graphQL(ctx, what, mutation, map[string]any{"id": in.ThreadID}, &res, true); err != nil {
		return out, err
	}
	t := res[field].Thread
	return ThreadState{ThreadID: name(t.ID), Resolved: t.IsResolved}, nil
}

// SubmitReviewInput is a review of a pull request.
type SubmitReviewInput struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number" jsonschema:"minimum=1"`
	Event  string `json:"event" jsonschema:"enum=APPROVE,enum=REQUEST_CHANGES,enum=COMMENT"`
	Body   string `json:"body,omitempty"`
}

// SubmittedReview is the review that was submitted.
type SubmittedReview struct {
	ID    int64  `json:"id" jsonschema_description:"Review ID"`
	State string `json:"state" jsonschema_description:"APPROVED or CHANGES_REQUESTED or COMMENTED"`
	URL   string `json:"url" jsonschema_description:"Web page"`
}

func (in SubmitReviewInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 {
		return fmt.Errorf("number is %d; expected a pull request number", in.Number)
	}
	switch in.Event {
	case "APPROVE":
	case "REQUEST_CHANGES", "COMMENT":
		if strings.TrimSpace(in.Body) == "" {
			return fmt.Errorf("body is empty; %s needs the review text", in.Event)
		}
	default:
		return fmt.Errorf("event %q is not APPROVE, REQUEST_CHANGES or COMMENT", clip(in.Event))
	}
	return checkBody("body", in.Body, false)
}

// DescribeSubmitReview renders a SubmitReview call.
func (b *Backend) DescribeSubmitReview(in SubmitReviewInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Submit a review (%s) of %s#%d on %s\n", in.Event, repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host)
	writeText(&s, "Review", in.Body)
	return s.String(), nil
}

// SubmitReview submits a review.
func (b *Backend) SubmitReview(ctx context.Context, in SubmitReviewInput) (SubmittedReview, error) {
	var out SubmittedReview
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	req := &gh.PullRequestReviewRequest{Event: &in.Event}
	if in.Body != "" {
		req.Body = &in.Body
	}
	r, _, err := b.gh.PullRequests.CreateReview(ctx, in.Owner, in.Repo, in.Number, req)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("submit a review of %s#%d", repoName(in.Owner, in.Repo), in.Number))
	}
	return SubmittedReview{ID: r.GetID(), State: name(r.GetState()), URL: name(r.GetHTMLURL())}, nil
}

// MarkReadInput marks notifications read: one repository's, or all.
type MarkReadInput struct {
	Owner string `json:"owner,omitempty" jsonschema_description:"With repo: only this repository's"`
	Repo  string `json:"repo,omitempty"`
}

// MarkedRead says what was marked read.
type MarkedRead struct {
	Scope string `json:"scope" jsonschema_description:"owner/name, or all"`
	Until string `json:"until" jsonschema_description:"Notifications up to this time were marked read (RFC 3339)"`
}

func (b *Backend) checkMarkRead(in MarkReadInput) error {
	switch {
	case (in.Owner == "") != (in.Repo == ""):
		return fmt.Errorf("give owner and repo together (one repository's notifications), or neither (all)")
	case in.Owner == "" && b.allow != nil:
		return fmt.Errorf("marking all notifications read would touch repositories outside this server's allow-list (--repos %s); name one repository", b.allow)
	case in.Owner != "":
		return b.allow.check(in.Owner, in.Repo)
	}
	return nil
}

// DescribeMarkRead renders a MarkRead call.
func (b *Backend) DescribeMarkRead(in MarkReadInput) (string, error) {
	if err := b.checkMarkRead(in); err != nil {
		return "", err
	}
	if in.Owner == "" {
		return fmt.Sprintf("Mark all your notifications read on %s\n", b.endpoint.Host), nil
	}
	return fmt.Sprintf("Mark your notifications of %s read on %s\n", repoName(in.Owner, in.Repo), b.endpoint.Host), nil
}

// MarkRead marks notifications read up to now.
func (b *Backend) MarkRead(ctx context.Context, in MarkReadInput) (MarkedRead, error) {
	var out MarkedRead
	if err := b.checkMarkRead(in); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	now := gh.Timestamp{Time: timeNow().UTC().Truncate(time.Second)}
	out.Scope, out.Until = "all", now.Format(time.RFC3339)
	if in.Owner != "" {
		out.Scope = repoName(in.Owner, in.Repo)
		_, err = b.gh.Activity.MarkRepositoryNotificationsRead(ctx, in.Owner, in.Repo, now)
	} else {
		_, err = b.gh.Activity.MarkNotificationsRead(ctx, now)
	}
	var accepted *gh.AcceptedError
	if err != nil && !errors.As(err, &accepted) { // 202: GitHub marks them in the background
		return out, b.fail(err, "mark notifications read")
	}
	return out, nil
}
