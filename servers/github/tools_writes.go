package github

import (
	"context"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// writeTools exist only with --allow-writes, and every call asks the user first
// unless confirm is false (--no-confirm).
func writeTools(b *Backend, confirm bool) []toolEntry {
	asks := " The user confirms first."
	if !confirm {
		asks = " Runs without asking the user (--no-confirm: the host confirms each call)."
	}
	return []toolEntry{
		write(b, "issues", "create_issue", "Open an issue."+asks, false,
			(*Backend).DescribeCreateIssue, (*Backend).CreateIssue),
		write(b, "issues", "add_comment", "Comment on an issue or pull request."+asks, false,
			(*Backend).DescribeAddComment, (*Backend).AddComment),
		write(b, "pull_requests", "create_pull_request", "Open a pull request."+asks, false,
			(*Backend).DescribeCreatePullRequest, (*Backend).CreatePullRequest),
		write(b, "repos", "create_or_update_file",
			"Write one file as one commit; pass sha (from get_file_contents) to replace an existing file."+asks, true,
			(*Backend).DescribeCreateOrUpdateFile, (*Backend).CreateOrUpdateFile),
	}
}

// write makes the catalog row of a write tool: describe validates the input and the
// allow-list and renders what will happen; the user confirms that text (req.Confirm,
// the one confirmation of every server here: accept, decline, a client without
// elicitation and the no-confirm mode are handled there); only then does op run.
//
// On 2026-07-28 the handler runs twice (input_required, then the retry with the
// answer), so everything before the confirmation is free of side effects. The retry's
// requestState is good once: a confirmed write sent again is refused.
func write[In, Out any](b *Backend, toolset, name, description string, destructive bool,
	describe func(*Backend, In) (string, error), op func(*Backend, context.Context, In) (Out, error)) toolEntry {
	annotations := &mcpkit.ToolAnnotations{DestructiveHint: destructive, OpenWorldHint: true}
	return toolEntry{toolset: toolset, ServerTool: mcpkit.NewServerTool(&mcpkit.Tool{Name: name, Description: description, Annotations: annotations},
		func(ctx context.Context, req *mcpkit.Request, in In) (any, error) {
			if !b.HasToken() {
				return nil, errNoToken
			}
			what, err := describe(b, in)
			if err != nil {
				return nil, err
			}
			if err := req.Confirm(ctx, "confirm", what+"\nConfirm to write this to GitHub, or decline to cancel."); err != nil {
				return nil, err
			}
			return op(b, ctx, in)
		})}
}
