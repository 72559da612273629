package errorserver

import (
	"context"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Tool names, in the order tools/list shows them.
const (
	ToolListProjects    = "list_projects"
	ToolSearchIssues    = "search_issues"
	ToolGetIssue        = "get_issue"
	ToolGetEvent        = "get_event"
	ToolListIssueEvents = "list_issue_events"
	ToolGetTagValues    = "get_tag_values"
)

// ToolNames lists every tool this server registers.
var ToolNames = []string{ToolListProjects, ToolSearchIssues, ToolGetIssue, ToolGetEvent, ToolListIssueEvents, ToolGetTagValues}

// Tool descriptions say when to use each tool; what the arguments mean is in the input
// schemas. Examples use syntax both backends accept.
const (
	descListProjects = "List the projects that report errors (with Sentry, also the organizations): the ids or slugs search_issues' project takes; on the local store with each project's issue and event counts."

	descSearchIssues = "Find error issues (events grouped by cause) with Sentry search syntax; start here for questions such as 'what is failing in production since this morning'. " +
		"Window: statsPeriod, or start (and end). Then call get_issue or get_event with an issue's id."

	descGetIssue = "Get one issue: title, culprit, level, status, event and user counts, first and last seen, the top values of its tags (environment, release, user, server_name...), and its events per hour over the last day and per day over the last month (timeline). " +
		"Use it after search_issues to see what and who is affected; get_event shows the stack trace."

	descGetEvent = "Get one event of an issue with what is needed to debug it: the exception chain (reported exception first, then its causes), stack frames in-app first with their local file path (path) and source lines, breadcrumbs, request, user, tags, release and environment. " +
		"Lower maxFrames or maxBreadcrumbs for a shorter answer."

	descListIssueEvents = "List an issue's events newest first (id, time, message, environment, release, user) to compare occurrences or pick one for get_event."

	descGetTagValues = "Count the values of one tag (key) across an issue's events, most frequent first: which releases, environments, browsers, servers or users are affected. " +
		"Keys are those get_issue shows, such as release, environment, browser.name, server_name or user."
)

// tools is the server's tool table: the six read-only tools in tools/list order.
// Tools that reach Sentry (remote) are marked open world; over the local store they
// only read the server's own data.
func tools(b backend.Backend, remote bool) []mcpkit.ServerTool {
	ann := mcpkit.ReadOnly()
	if remote {
		ann.OpenWorldHint = true
	}
	return []mcpkit.ServerTool{
		readTool(ToolListProjects, descListProjects, ann, b.ListProjects),
		searchTool(remote, ann, b.SearchIssues),
		readTool(ToolGetIssue, descGetIssue, ann, b.GetIssue),
		readTool(ToolGetEvent, descGetEvent, ann, b.GetEvent),
		readTool(ToolListIssueEvents, descListIssueEvents, ann, b.ListIssueEvents),
		readTool(ToolGetTagValues, descGetTagValues, ann, b.GetTagValues),
	}
}

// readTool is the row of a tool that runs one backend call and returns its result as
// compact JSON, both as structuredContent and as text.
//
// The tools carry no output schema (their Out is any) and no title: the result types'
// schemas would add about 14 KB to tools/list (four times the input schemas) that
// hosts do not show the model, and the names read well. The results are still JSON
// objects whose fields are documented on the result types (backend/results.go). A backend
// error becomes an isError result with the backend's message, which says what was
// wrong and what to do.
func readTool[In, Out any](name, description string, ann *mcpkit.ToolAnnotations, op func(context.Context, In) (Out, error)) mcpkit.ServerTool {
	return mcpkit.NewServerTool(&mcpkit.Tool{Name: name, Description: description, Annotations: ann},
		func(ctx context.Context, _ *mcpkit.Request, in In) (any, error) {
			return op(ctx, in)
		})
}

// searchTool is the row of search_issues. Over Sentry a search can take seconds (a
// wide window, a busy organization, a rate limit to wait out): it then reports how
// long it has run to a client that asked for progress, and runs as a task
// (TaskOptional) for a client with the Tasks extension once it outlasts mcpkit's
// budget. The local store answers from its database in milliseconds and does neither.
func searchTool[In, Out any](remote bool, ann *mcpkit.ToolAnnotations, op func(context.Context, In) (Out, error)) mcpkit.ServerTool {
	if !remote {
		return readTool(ToolSearchIssues, descSearchIssues, ann, op)
	}
	return mcpkit.NewServerTool(&mcpkit.Tool{Name: ToolSearchIssues, Description: descSearchIssues, Annotations: ann, TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in In) (any, error) {
			defer mcpkit.ReportElapsed(ctx, req, 0, "the Sentry search")()
			return op(ctx, in)
		})
}
