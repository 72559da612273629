package github

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// writeTools exist only with --allow-writes, and every call asks the user first.
func writeTools(b *Backend) []toolEntry {
	return []toolEntry{
		write(b, "issues", "create_issue", "Open an issue. The user confirms first.", false,
			(*Backend).DescribeCreateIssue, (*Backend).CreateIssue),
		write(b, "issues", "add_comment", "Comment on an issue or pull request. The user confirms first.", false,
			(*Backend).DescribeAddComment, (*Backend).AddComment),
		write(b, "pull_requests", "create_pull_request", "Open a pull request. The user confirms first.", false,
			(*Backend).DescribeCreatePullRequest, (*Backend).CreatePullRequest),
		write(b, "repos", "create_or_update_file",
			"Write one file as one commit; pass sha (from get_file_contents) to replace an existing file. The user confirms first.", true,
			(*Backend).DescribeCreateOrUpdateFile, (*Backend).CreateOrUpdateFile),
	}
}

// confirmSchema is the form the user answers: one required yes/no.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Write this to GitHub?", "description": "Check to write exactly what is shown"},
	},
	"required": []string{"confirm"},
}

// errNotConfirmed is returned when the user did not accept: nothing was written.
var errNotConfirmed = errors.New("nothing was written")

// write makes the catalog row of a write tool: describe validates the input and the
// allow-list and renders what will happen; the user confirms that text through
// elicitation; only then does op run.
//
// On 2026-07-28 the handler runs twice (input_required, then the retry with the
// answer), so everything before the confirmation is free of side effects.
func write[In, Out any](b *Backend, toolset, name, description string, destructive bool,
	describe func(*Backend, In) (string, error), op func(*Backend, context.Context, In) (Out, error)) toolEntry {
	annotations := &mcpkit.ToolAnnotations{DestructiveHint: destructive, OpenWorldHint: true}
	return toolEntry{toolset, mcpkit.NewServerTool(&mcpkit.Tool{Name: name, Description: description, Annotations: annotations},
		func(ctx context.Context, req *mcpkit.Request, in In) (any, error) {
			if !b.HasToken() {
				return nil, errNoToken
			}
			what, err := describe(b, in)
			if err != nil {
				return nil, err
			}
			res, err := req.Elicit(ctx, "confirm", mcpkit.ElicitParams{
				Message:         what + "\nConfirm to write this to GitHub, or decline to cancel.",
				RequestedSchema: confirmSchema,
			})
			if err != nil {
				return nil, err // input_required, a missing capability: mcpkit answers those
			}
			if err := accepted(res); err != nil {
				return nil, err
			}
			return op(b, ctx, in)
		})}
}

// accepted checks the user's answer: accept with confirm set to true, nothing else.
func accepted(res *mcpkit.ElicitResult) error {
	switch {
	case res == nil:
		return fmt.Errorf("%w: the client returned no answer to the confirmation", errNotConfirmed)
	case res.Action == "decline":
		return fmt.Errorf("%w: the user declined", errNotConfirmed)
	case res.Action == "cancel":
		return fmt.Errorf("%w: the user dismissed the confirmation", errNotConfirmed)
	case res.Action != "accept":
		return fmt.Errorf("%w: the confirmation answer %q is not accept", errNotConfirmed, clip(res.Action))
	}
	if ok, _ := res.Content["confirm"].(bool); !ok {
		return fmt.Errorf("%w: the user did not check confirm", errNotConfirmed)
	}
	return nil
}
