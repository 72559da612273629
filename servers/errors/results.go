package errorserver

import "github.com/mcpkit/reference/pkg/mcpkit"

// Organization is a Sentry organization.
type Organization struct {
	Slug string `json:"slug" jsonschema:"description=Organization slug to pass as organization."`
	Name string `json:"name,omitempty" jsonschema:"description=Display name."`
}

// Project is one project that events are sent to.
type Project struct {
	ID           string `json:"id" jsonschema:"description=Project id (the number at the end of a DSN)."`
	Slug         string `json:"slug" jsonschema:"description=Project slug."`
	Name         string `json:"name,omitempty" jsonschema:"description=Display name."`
	Platform     string `json:"platform,omitempty" jsonschema:"description=Platform such as go or python or javascript."`
	Organization string `json:"organization,omitempty" jsonschema:"description=Slug of the organization the project belongs to."`
	Issues       int    `json:"issues,omitempty" jsonschema:"description=Issues stored (local store only)."`
	Events       int64  `json:"events,omitempty" jsonschema:"description=Events stored (local store only)."`
}

// ProjectList is ListProjects' result.
type ProjectList struct {
	Organizations []Organization `json:"organizations,omitempty" jsonschema:"description=Organizations whose projects are listed."`
	Projects      []Project      `json:"projects" jsonschema:"description=Projects."`
	mcpkit.Truncation
}

// Issue is one group of events that share a fingerprint.
type Issue struct {
	ID        string `json:"id" jsonschema:"description=Issue id to pass as issueId."`
	ShortID   string `json:"shortId,omitempty" jsonschema:"description=Human short id such as BACKEND-3F."`
	Title     string `json:"title" jsonschema:"description=Title: usually exception type and message."`
	Culprit   string `json:"culprit,omitempty" jsonschema:"description=Where it happened: transaction or function."`
	Type      string `json:"type,omitempty" jsonschema:"description=Exception type of the issue."`
	Value     string `json:"value,omitempty" jsonschema:"description=Exception message of the issue."`
	Level     string `json:"level,omitempty" jsonschema:"description=fatal or error or warning or info or debug."`
	Status    string `json:"status,omitempty" jsonschema:"description=unresolved or resolved or ignored."`
	Project   string `json:"project,omitempty" jsonschema:"description=Project slug."`
	Platform  string `json:"platform,omitempty" jsonschema:"description=Platform of the events."`
	Count     int64  `json:"count" jsonschema:"description=Events in the searched time window (all stored events for get_issue)."`
	UserCount int64  `json:"userCount,omitempty" jsonschema:"description=Distinct users affected."`
	FirstSeen string `json:"firstSeen,omitempty" jsonschema:"description=First event (RFC 3339)."`
	LastSeen  string `json:"lastSeen,omitempty" jsonschema:"description=Latest event (RFC 3339)."`
	Permalink string `json:"permalink,omitempty" jsonschema:"description=Link to the issue in Sentry's web UI."`
}

// IssueList is SearchIssues' result.
type IssueList struct {
	Issues     []Issue `json:"issues" jsonschema:"description=Matching issues in the requested order."`
	NextCursor string  `json:"nextCursor,omitempty" jsonschema:"description=Pass as cursor (with the same other arguments) for the next page; absent on the last page."`
	Notice     string  `json:"notice,omitempty" jsonschema:"description=Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// TagValue is one value of a tag and how often it was seen.
type TagValue struct {
	Value     string `json:"value" jsonschema:"description=Tag value."`
	Count     int64  `json:"count" jsonschema:"description=Events with this value."`
	FirstSeen string `json:"firstSeen,omitempty" jsonschema:"description=First event with this value (RFC 3339)."`
	LastSeen  string `json:"lastSeen,omitempty" jsonschema:"description=Latest event with this value (RFC 3339)."`
}

// TagSummary is a tag key with its most frequent values.
type TagSummary struct {
	Key          string     `json:"key" jsonschema:"description=Tag key."`
	TotalValues  int64      `json:"totalValues" jsonschema:"description=Events that carry this tag."`
	UniqueValues int64      `json:"uniqueValues,omitempty" jsonschema:"description=Distinct values."`
	TopValues    []TagValue `json:"topValues" jsonschema:"description=Most frequent values first."`
}

// IssueDetail is GetIssue's result.
type IssueDetail struct {
	Issue
	Tags   []TagSummary `json:"tags,omitempty" jsonschema:"description=Top values of the issue's tags; get_tag_values lists all values of one key."`
	Notice string       `json:"notice,omitempty" jsonschema:"description=Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// Tag is a key/value pair of an event.
type Tag struct {
	Key   string `json:"key" jsonschema:"description=Tag key."`
	Value string `json:"value" jsonschema:"description=Tag value."`
}

// ContextLine is one line of source code around a frame.
type ContextLine struct {
	Line    int    `json:"line" jsonschema:"description=Line number."`
	Code    string `json:"code" jsonschema:"description=Source text of the line."`
	Current bool   `json:"current,omitempty" jsonschema:"description=True for the line the frame points at."`
}

// Frame is one stack frame.
type Frame struct {
	Function string            `json:"function,omitempty" jsonschema:"description=Function name."`
	Module   string            `json:"module,omitempty" jsonschema:"description=Module or package."`
	File     string            `json:"file,omitempty" jsonschema:"description=File path as the SDK reported it."`
	Line     int               `json:"line,omitempty" jsonschema:"description=Line number."`
	Column   int               `json:"column,omitempty" jsonschema:"description=Column number."`
	InApp    bool              `json:"inApp" jsonschema:"description=True for the application's own code; false for libraries and the runtime."`
	Context  []ContextLine     `json:"context,omitempty" jsonschema:"description=Source lines around the frame (in-app frames only)."`
	Vars     map[string]string `json:"vars,omitempty" jsonschema:"description=Local variables as JSON text; secret-looking names redacted."`
}

// Exception is one exception of an event's chain.
type Exception struct {
	Type          string  `json:"type,omitempty" jsonschema:"description=Exception type or class."`
	Value         string  `json:"value,omitempty" jsonschema:"description=Exception message."`
	Module        string  `json:"module,omitempty" jsonschema:"description=Module the type is defined in."`
	Mechanism     string  `json:"mechanism,omitempty" jsonschema:"description=How it was captured such as generic or chained or panic."`
	Handled       *bool   `json:"handled,omitempty" jsonschema:"description=False when the exception was not handled by the application."`
	Frames        []Frame `json:"frames,omitempty" jsonschema:"description=Stack frames: in-app frames first; within each group the innermost call (where it was raised) first."`
	FramesOmitted int     `json:"framesOmitted,omitempty" jsonschema:"description=Frames left out by maxFrames."`
}

// Breadcrumb is one step the application recorded before the event.
type Breadcrumb struct {
	Timestamp string            `json:"timestamp,omitempty" jsonschema:"description=When (RFC 3339)."`
	Type      string            `json:"type,omitempty" jsonschema:"description=Breadcrumb type such as http or navigation or default."`
	Category  string            `json:"category,omitempty" jsonschema:"description=Category such as http or query or ui.click."`
	Level     string            `json:"level,omitempty" jsonschema:"description=Level."`
	Message   string            `json:"message,omitempty" jsonschema:"description=Message."`
	Data      map[string]string `json:"data,omitempty" jsonschema:"description=Data as JSON text; secret-looking keys redacted."`
}

// Request is the HTTP request an event happened in.
type Request struct {
	Method  string            `json:"method,omitempty" jsonschema:"description=HTTP method."`
	URL     string            `json:"url,omitempty" jsonschema:"description=URL without query string or credentials."`
	Query   map[string]string `json:"query,omitempty" jsonschema:"description=Query parameters; secret-looking ones redacted."`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"description=Headers; Authorization and Cookie and other secret-looking ones redacted."`
	Data    string            `json:"data,omitempty" jsonschema:"description=Request body as the SDK sent it; secret-looking fields redacted."`
}

// User is the user an event happened for.
type User struct {
	ID       string `json:"id,omitempty" jsonschema:"description=User id."`
	Username string `json:"username,omitempty" jsonschema:"description=User name."`
	Email    string `json:"email,omitempty" jsonschema:"description=E-mail address."`
	IP       string `json:"ip,omitempty" jsonschema:"description=IP address."`
}

// Event is GetEvent's result: one occurrence of an issue.
type Event struct {
	ID                 string                       `json:"id" jsonschema:"description=Event id."`
	IssueID            string                       `json:"issueId,omitempty" jsonschema:"description=Issue the event belongs to."`
	Project            string                       `json:"project,omitempty" jsonschema:"description=Project id or slug."`
	Timestamp          string                       `json:"timestamp,omitempty" jsonschema:"description=When it happened (RFC 3339)."`
	Title              string                       `json:"title,omitempty" jsonschema:"description=Title."`
	Message            string                       `json:"message,omitempty" jsonschema:"description=Log message of the event if any."`
	Level              string                       `json:"level,omitempty" jsonschema:"description=Level."`
	Platform           string                       `json:"platform,omitempty" jsonschema:"description=Platform."`
	Culprit            string                       `json:"culprit,omitempty" jsonschema:"description=Where it happened."`
	Transaction        string                       `json:"transaction,omitempty" jsonschema:"description=Transaction (route or task) name."`
	Release            string                       `json:"release,omitempty" jsonschema:"description=Release version."`
	Environment        string                       `json:"environment,omitempty" jsonschema:"description=Environment."`
	Exceptions         []Exception                  `json:"exceptions,omitempty" jsonschema:"description=Exception chain: the outermost (reported) exception first then its causes."`
	Stacktrace         []Frame                      `json:"stacktrace,omitempty" jsonschema:"description=Stack of a message event (no exception) when the SDK attached one."`
	FramesOmitted      int                          `json:"framesOmitted,omitempty" jsonschema:"description=Frames of stacktrace left out by maxFrames."`
	Breadcrumbs        []Breadcrumb                 `json:"breadcrumbs,omitempty" jsonschema:"description=Most recent breadcrumbs; oldest first."`
	BreadcrumbsOmitted int                          `json:"breadcrumbsOmitted,omitempty" jsonschema:"description=Older breadcrumbs left out by maxBreadcrumbs."`
	Request            *Request                     `json:"request,omitempty" jsonschema:"description=HTTP request."`
	User               *User                        `json:"user,omitempty" jsonschema:"description=User."`
	Tags               []Tag                        `json:"tags,omitempty" jsonschema:"description=Tags sorted by key."`
	Contexts           map[string]map[string]string `json:"contexts,omitempty" jsonschema:"description=Contexts such as os and runtime and device."`
	Extra              map[string]string            `json:"extra,omitempty" jsonschema:"description=Extra data as JSON text; secret-looking keys redacted."`
	mcpkit.Truncation
}

// EventSummary is one row of ListIssueEvents.
type EventSummary struct {
	ID          string `json:"id" jsonschema:"description=Event id to pass as eventId."`
	Timestamp   string `json:"timestamp,omitempty" jsonschema:"description=When it happened (RFC 3339)."`
	Title       string `json:"title,omitempty" jsonschema:"description=Title."`
	Message     string `json:"message,omitempty" jsonschema:"description=Message or exception value."`
	Level       string `json:"level,omitempty" jsonschema:"description=Level."`
	Environment string `json:"environment,omitempty" jsonschema:"description=Environment."`
	Release     string `json:"release,omitempty" jsonschema:"description=Release."`
	User        string `json:"user,omitempty" jsonschema:"description=User (id or e-mail or name or ip)."`
}

// EventList is ListIssueEvents' result.
type EventList struct {
	Events     []EventSummary `json:"events" jsonschema:"description=Events newest first."`
	NextCursor string         `json:"nextCursor,omitempty" jsonschema:"description=Pass as cursor for the next (older) page; absent on the last page."`
	Notice     string         `json:"notice,omitempty" jsonschema:"description=Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// TagValueList is GetTagValues' result.
type TagValueList struct {
	Key          string     `json:"key" jsonschema:"description=Tag key."`
	TotalValues  int64      `json:"totalValues,omitempty" jsonschema:"description=Events that carry this tag."`
	UniqueValues int64      `json:"uniqueValues,omitempty" jsonschema:"description=Distinct values."`
	Values       []TagValue `json:"values" jsonschema:"description=Values most frequent first."`
	NextCursor   string     `json:"nextCursor,omitempty" jsonschema:"description=Pass as cursor for the next page; absent on the last page."`
	mcpkit.Truncation
}
