package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v62/github"
)

// Limits GitHub itself enforces (titles 256 characters, bodies 65536) plus our own
// cap on file writes through the contents API.
const (
	maxWriteTitleRunes = 256
	maxWriteBodyRunes  = 65536
	MaxWriteFileBytes  = 1 << 20
	maxLabels          = 20
	maxAssignees       = 10
)

// CreateIssueInput is a new issue.
type CreateIssueInput struct {
	Owner     string   `json:"owner"`
	Repo      string   `json:"repo"`
	Title     string   `json:"title" jsonschema:"maxLength=256"`
	Body      string   `json:"body,omitempty"`
	Labels    []string `json:"labels,omitempty" jsonschema_description:"Existing label names"`
	Assignees []string `json:"assignees,omitempty" jsonschema_description:"Logins"`
}

// CreatedIssue is the issue that was created.
type CreatedIssue struct {
	Repository string `json:"repository" jsonschema_description:"owner/name"`
	Number     int    `json:"number" jsonschema_description:"New issue number"`
	URL        string `json:"url" jsonschema_description:"Web page of the new issue"`
}

// AddCommentInput is a new comment on an issue or pull request.
type AddCommentInput struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number" jsonschema:"minimum=1"`
	Body   string `json:"body"`
}

// CreatedComment is the comment that was added.
type CreatedComment struct {
	ID  int64  `json:"id" jsonschema_description:"New comment ID"`
	URL string `json:"url" jsonschema_description:"Web page of the new comment"`
}

// CreatePullRequestInput is a new pull request.
type CreatePullRequestInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Title string `json:"title" jsonschema:"maxLength=256"`
	Body  string `json:"body,omitempty"`
	Head  string `json:"head" jsonschema_description:"Branch with the changes, or fork-owner:branch"`
	Base  string `json:"base" jsonschema_description:"Branch to merge into"`
	Draft bool   `json:"draft,omitempty"`
}

// CreatedPullRequest is the pull request that was opened.
type CreatedPullRequest struct {
	Repository string `json:"repository" jsonschema_description:"owner/name"`
	Number     int    `json:"number" jsonschema_description:"New pull request number"`
	URL        string `json:"url" jsonschema_description:"Web page of the new pull request"`
}

// CreateOrUpdateFileInput writes one file as one commit.
type CreateOrUpdateFileInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	Content string `json:"content" jsonschema_description:"Complete new text, at most 1 MiB"`
	Message string `json:"message" jsonschema_description:"Commit message"`
	Branch  string `json:"branch,omitempty"`
	SHA     string `json:"sha,omitempty"`
}

// FileCommit is the commit that wrote the file.
type FileCommit struct {
	Path       string `json:"path" jsonschema_description:"File path"`
	Created    bool   `json:"created" jsonschema_description:"True when the file was new"`
	ContentSHA string `json:"contentSha" jsonschema_description:"Blob SHA of the new content (pass it as sha for the next update)"`
	CommitSHA  string `json:"commitSha" jsonschema_description:"SHA of the new commit"`
	URL        string `json:"url,omitempty" jsonschema_description:"Web page of the new commit"`
}

// ---- validation shared by Describe… and the write itself ----

func (in CreateIssueInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if err := checkTitle(in.Title); err != nil {
		return err
	}
	if err := checkBody("body", in.Body, false); err != nil {
		return err
	}
	if len(in.Labels) > maxLabels {
		return fmt.Errorf("%d labels given; at most %d", len(in.Labels), maxLabels)
	}
	for _, l := range in.Labels {
		if strings.TrimSpace(l) == "" || utf8.RuneCountInString(l) > 50 {
			return fmt.Errorf("label %q is empty or longer than 50 characters", clip(l))
		}
	}
	return checkLogins(in.Assignees)
}

func (in AddCommentInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if in.Number < 1 {
		return fmt.Errorf("number is %d; expected an issue or pull request number of 1 or more", in.Number)
	}
	return checkBody("body", in.Body, true)
}

func (in CreatePullRequestInput) validate() error {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return err
	}
	if err := checkTitle(in.Title); err != nil {
		return err
	}
	if err := checkBody("body", in.Body, false); err != nil {
		return err
	}
	branch := in.Head
	if owner, b, ok := strings.Cut(in.Head, ":"); ok {
		if err := validateOwner(owner); err != nil {
			return fmt.Errorf("head %q: %v", clip(in.Head), err)
		}
		branch = b
	}
	if err := validateRef("head", branch); err != nil {
		return err
	}
	return validateRef("base", in.Base)
}

func (in CreateOrUpdateFileInput) validate() (string, error) {
	if err := validateRepo(in.Owner, in.Repo); err != nil {
		return "", err
	}
	path, err := validatePath(in.Path)
	if err != nil {
		return "", err
	}
	if path == "" {
		return "", fmt.Errorf("path is empty; expected the file to write such as docs/notes.md")
	}
	if len(in.Content) > MaxWriteFileBytes {
		return "", fmt.Errorf("content is %d bytes; at most %d can be written in one call", len(in.Content), MaxWriteFileBytes)
	}
	if !utf8.ValidString(in.Content) {
		return "", fmt.Errorf("content is not valid UTF-8 text; only text files can be written")
	}
	if strings.TrimSpace(in.Message) == "" {
		return "", fmt.Errorf("message is empty; expected a commit message describing the change")
	}
	if err := checkBody("message", in.Message, true); err != nil {
		return "", err
	}
	if in.Branch != "" {
		if err := validateRef("branch", in.Branch); err != nil {
			return "", err
		}
	}
	if in.SHA != "" && !isHexSHA(in.SHA) {
		return "", fmt.Errorf("sha %q is not a blob SHA; expected the 40 (or 64) hex digits get_file_contents returns, or omit it to create a new file", clip(in.SHA))
	}
	return path, nil
}

func checkTitle(t string) error {
	if strings.TrimSpace(t) == "" {
		return fmt.Errorf("title is empty; expected a short summary")
	}
	if n := utf8.RuneCountInString(t); n > maxWriteTitleRunes {
		return fmt.Errorf("title is %d characters; GitHub accepts at most %d", n, maxWriteTitleRunes)
	}
	return nil
}

func checkBody(field, s string, required bool) error {
	if required && strings.TrimSpace(s) == "" {
		return fmt.Errorf("%s is empty; expected the text to write", field)
	}
	if n := utf8.RuneCountInString(s); n > maxWriteBodyRunes {
		return fmt.Errorf("%s is %d characters; GitHub accepts at most %d", field, n, maxWriteBodyRunes)
	}
	return nil
}

func checkLogins(ls []string) error {
	if len(ls) > maxAssignees {
		return fmt.Errorf("%d assignees given; at most %d", len(ls), maxAssignees)
	}
	for _, l := range ls {
		if err := validateOwner(l); err != nil {
			return fmt.Errorf("assignee: %v", err)
		}
	}
	return nil
}

func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ---- the writes ----

// CreateIssue opens an issue. The MCP layer confirms DescribeCreateIssue first.
func (b *Backend) CreateIssue(ctx context.Context, in CreateIssueInput) (CreatedIssue, error) {
	var out CreatedIssue
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	req := &gh.IssueRequest{Title: &in.Title}
	if in.Body != "" {
		req.Body = &in.Body
	}
	if len(in.Labels) > 0 {
		req.Labels = &in.Labels
	}
	if len(in.Assignees) > 0 {
		req.Assignees = &in.Assignees
	}
	is, _, err := b.gh.Issues.Create(ctx, in.Owner, in.Repo, req)
	if err != nil {
		return out, b.fail(err, "create issue in "+repoName(in.Owner, in.Repo))
	}
	return CreatedIssue{Repository: repoName(in.Owner, in.Repo), Number: is.GetNumber(), URL: name(is.GetHTMLURL())}, nil
}

// AddComment comments on an issue or pull request (they share one conversation).
func (b *Backend) AddComment(ctx context.Context, in AddCommentInput) (CreatedComment, error) {
	var out CreatedComment
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	c, _, err := b.gh.Issues.CreateComment(ctx, in.Owner, in.Repo, in.Number, &gh.IssueComment{Body: &in.Body})
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("comment on %s#%d", repoName(in.Owner, in.Repo), in.Number))
	}
	return CreatedComment{ID: c.GetID(), URL: name(c.GetHTMLURL())}, nil
}

// CreatePullRequest opens a pull request from head into base.
func (b *Backend) CreatePullRequest(ctx context.Context, in CreatePullRequestInput) (CreatedPullRequest, error) {
	var out CreatedPullRequest
	if err := in.validate(); err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	np := &gh.NewPullRequest{Title: &in.Title, Head: &in.Head, Base: &in.Base, Draft: &in.Draft}
	if in.Body != "" {
		np.Body = &in.Body
	}
	pr, _, err := b.gh.PullRequests.Create(ctx, in.Owner, in.Repo, np)
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("create pull request %s -> %s in %s", in.Head, in.Base, repoName(in.Owner, in.Repo)))
	}
	return CreatedPullRequest{Repository: repoName(in.Owner, in.Repo), Number: pr.GetNumber(), URL: name(pr.GetHTMLURL())}, nil
}

// CreateOrUpdateFile writes one file as one commit: a new file without sha, a
// replacement of the version with that blob SHA otherwise.
func (b *Backend) CreateOrUpdateFile(ctx context.Context, in CreateOrUpdateFileInput) (FileCommit, error) {
	var out FileCommit
	path, err := in.validate()
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.RepositoryContentFileOptions{Message: &in.Message, Content: []byte(in.Content)}
	if in.Branch != "" {
		opts.Branch = &in.Branch
	}
	if in.SHA != "" {
		opts.SHA = &in.SHA
	}
	res, _, err := b.gh.Repositories.CreateFile(ctx, in.Owner, in.Repo, escapePath(path), opts)
	if err != nil {
		var er *gh.ErrorResponse
		if in.SHA == "" && errors.As(err, &er) && er.Response.StatusCode == 422 && strings.Contains(strings.ToLower(er.Message), "sha") {
			return out, fmt.Errorf("write %s in %s: the file already exists; pass sha (the blob SHA get_file_contents returns) to replace it", path, repoName(in.Owner, in.Repo))
		}
		if in.SHA != "" && errors.As(err, &er) && er.Response.StatusCode == 409 {
			return out, fmt.Errorf("write %s in %s: the file changed since sha %s was read; read it again and redo the edit", path, repoName(in.Owner, in.Repo), in.SHA)
		}
		return out, b.fail(err, fmt.Sprintf("write %s in %s", path, repoName(in.Owner, in.Repo)))
	}
	return FileCommit{
		Path:       path,
		Created:    in.SHA == "",
		ContentSHA: name(res.GetContent().GetSHA()),
		CommitSHA:  name(res.Commit.GetSHA()),
		URL:        name(res.Commit.GetHTMLURL()),
	}, nil
}
