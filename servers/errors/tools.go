package errorserver

import (
	"context"

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
	descListProjects = "List the projects that report errors (and for Sentry the organizations). " +
		"Use it to learn project slugs or ids for search_issues' project filter and organization slugs; on the local store it also counts each project's issues and events."

	descSearchIssues = "Find error issues (events grouped by cause) with Sentry search syntax. Start here for questions such as 'what is failing in production since this morning'. " +
		`Query examples: is:unresolved level:error; environment:production release:shop@1.2.3; "card declined"; error.type:TypeError; !browser.name:Chrome; user.email:*@example.com; times_seen:>10 firstSeen:-24h. ` +
		"Time window: statsPeriod such as 24h or 6h30m (default 14d), or start (until now, or until end). Sort: date (last seen) or new or freq or user. " +
		"Then call get_issue or get_event with an issue's id."

	descGetIssue = "Get one issue: title, culprit, level, status, event and user counts, first and last seen, and the top values of its tags (environment, release, user, server_name...). " +
		"Use after search_issues to see what and who is affected; get_event shows the stack trace."

	descGetEvent = "Get one event of an issue with what is needed to debug it: the exception chain (reported exception first, then its causes), stack frames with in-app frames first, their local file path (path) and the source lines around them, breadcrumbs, request, user, tags, release and environment. " +
		"eventId: latest (default) or oldest or an id from list_issue_events. Lower maxFrames or maxBreadcrumbs for a shorter answer."

	descListIssueEvents = "List an issue's events newest first (id, time, message, environment, release, user) to compare occurrences or pick one for get_event. Page with cursor."

	descGetTagValues = "Count the values of one tag across an issue's events, most frequent first, to see which releases, environments, browsers, servers or users are affected. " +
		"Use the keys get_issue shows, such as release or environment or browser.name or server_name or user. Page with cursor."
)

// tools is the server's tool table: the six read-only tools in tools/list order.
// Tools that reach Sentry (remote) are marked open world; over the local store they
// only read the server's own data.
func tools(b Backend, remote bool) []mcpkit.ServerTool {
	ann := mcpkit.ReadOnly()
	if remote {
		ann.OpenWorldHint = true
	}
	return []mcpkit.ServerTool{
		readTool(ToolListProjects, descListProjects, ann, b.ListProjects),
		readTool(ToolSearchIssues, descSearchIssues, ann, b.SearchIssues),
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
// objects whose fields are documented on the result types (results.go). A backend
// error becomes an isError result with the backend's message, which says what was
// wrong and what to do.
func readTool[In, Out any](name, description string, ann *mcpkit.ToolAnnotations, op func(context.Context, In) (Out, error)) mcpkit.ServerTool {
	return mcpkit.NewServerTool(&mcpkit.Tool{Name: name, Description: description, Annotations: ann},
		func(ctx context.Context, _ *mcpkit.Request, in In) (any, error) {
			return op(ctx, in)
		})
}
