package github

import (
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// The Describe… functions render what a write will do, for the confirmation the
// user sees before it happens. They validate exactly as the write does (input and
// allow-list), so a write that would be refused is refused before anyone is asked.
// Text the model wrote is shown with invisible and direction-changing characters made
// visible (\u{202E}, as mcpkit.ShowHidden writes them for every confirmation): a
// confirmation that hides part of what it confirms is worthless.

const previewBytes = 2000

// DescribeCreateIssue renders a CreateIssue call.
func (b *Backend) DescribeCreateIssue(in CreateIssueInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Create an issue in %s on %s\n", repoName(in.Owner, in.Repo), b.endpoint.Host)
	fmt.Fprintf(&s, "Title: %s\n", oneLine(in.Title))
	if len(in.Labels) > 0 {
		fmt.Fprintf(&s, "Labels: %s\n", oneLine(strings.Join(in.Labels, ", ")))
	}
	if len(in.Assignees) > 0 {
		fmt.Fprintf(&s, "Assignees: %s\n", strings.Join(in.Assignees, ", "))
	}
	writeText(&s, "Body", in.Body)
	return s.String(), nil
}

// DescribeAddComment renders an AddComment call.
func (b *Backend) DescribeAddComment(in AddCommentInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Comment on %s#%d on %s\n", repoName(in.Owner, in.Repo), in.Number, b.endpoint.Host)
	writeText(&s, "Comment", in.Body)
	return s.String(), nil
}

// DescribeCreatePullRequest renders a CreatePullRequest call.
func (b *Backend) DescribeCreatePullRequest(in CreatePullRequestInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	kind := "pull request"
	if in.Draft {
		kind = "draft pull request"
	}
	fmt.Fprintf(&s, "Open a %s in %s on %s: merge %s into %s\n", kind, repoName(in.Owner, in.Repo), b.endpoint.Host, in.Head, in.Base)
	fmt.Fprintf(&s, "Title: %s\n", oneLine(in.Title))
	writeText(&s, "Description", in.Body)
	return s.String(), nil
}

// DescribeCreateOrUpdateFile renders a CreateOrUpdateFile call.
func (b *Backend) DescribeCreateOrUpdateFile(in CreateOrUpdateFileInput) (string, error) {
	path, err := in.validate()
	if err != nil {
		return "", err
	}
	if err := b.allow.check(in.Owner, in.Repo); err != nil {
		return "", err
	}
	var s strings.Builder
	verb := "Create the new file"
	if in.SHA != "" {
		verb = fmt.Sprintf("Replace the file (current blob %s) at", shortSHA(in.SHA))
	}
	branch := in.Branch
	if branch == "" {
		branch = "the default branch"
	}
	fmt.Fprintf(&s, "%s %s in %s on %s, committing to %s\n", verb, oneLine(path), repoName(in.Owner, in.Repo), b.endpoint.Host, branch)
	fmt.Fprintf(&s, "Commit message: %s\n", oneLine(firstLine(in.Message)))
	writeText(&s, fmt.Sprintf("New content, %d lines", strings.Count(in.Content, "\n")+1), in.Content)
	return s.String(), nil
}

// writeText appends a labelled preview of model-written text.
func writeText(s *strings.Builder, label, text string) {
	if text == "" {
		fmt.Fprintf(s, "%s: (empty)\n", label)
		return
	}
	shown, cut := mcpkit.TruncateText(text, previewBytes)
	revealed, hidden := mcpkit.ShowHidden(shown) // the escapes req.Confirm shows too
	// Every line of the text is prefixed with "| ", so nothing in it can pass for a
	// line of the confirmation itself.
	fmt.Fprintf(s, "%s (%d bytes):\n| %s\n", label, len(text), strings.ReplaceAll(revealed, "\n", "\n| "))
	if cut {
		fmt.Fprintf(s, "(the last %d bytes are not shown)\n", len(text)-len(shown))
	}
	if hidden > 0 {
		fmt.Fprintf(s, "Warning: the text contains %d invisible or direction-changing character(s), shown above as \\u{…}.\n", hidden)
	}
}

// oneLine shows a single-line value with hidden characters revealed and newlines
// escaped, so a title cannot fake extra lines of the confirmation.
func oneLine(s string) string {
	r, _ := mcpkit.ShowHidden(s)
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(r)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
