package backend

import "github.com/mcpkit/reference/pkg/mcpkit"

// Organization is a Sentry organization.
type Organization struct {
	Slug string `json:"slug" jsonschema_description:"Organization slug to pass as organization."`
	Name string `json:"name,omitempty" jsonschema_description:"Display name."`
}

// Project is one project that events are sent to.
type Project struct {
	ID           string   `json:"id" jsonschema_description:"Project id (the number at the end of a DSN)."`
	Slug         string   `json:"slug" jsonschema_description:"Project slug."`
	Name         string   `json:"name,omitempty" jsonschema_description:"Display name."`
	Platform     string   `json:"platform,omitempty" jsonschema_description:"Platform such as go or python or javascript."`
	Organization string   `json:"organization,omitempty" jsonschema_description:"Slug of the organization the project belongs to."`
	Issues       int      `json:"issues,omitempty" jsonschema_description:"Issues stored (local store only)."`
	Events       int64    `json:"events,omitempty" jsonschema_description:"Events stored (local store only)."`
	DSN          string   `json:"dsn,omitempty" jsonschema_description:"The DSN an application sets to send this project's events here (local store only)."`
	Receives     []string `json:"receives,omitempty" jsonschema_description:"Envelope item types this project sends that the store keeps: event, transaction, span, log, otel_log (local store only)."`
	Drops        []string `json:"drops,omitempty" jsonschema_description:"Envelope item types this project sends that the store acknowledges and drops, such as session, profile, replay_event (local store only)."`
}

// ProjectList is ListProjects' result.
type ProjectList struct {
	Organizations []Organization `json:"organizations,omitempty" jsonschema_description:"Organizations whose projects are listed."`
	Projects      []Project      `json:"projects" jsonschema_description:"Projects."`
	Notice        string         `json:"notice,omitempty" jsonschema_description:"Something the reader should know, such as how to send events to an empty local store."`
	mcpkit.Truncation
}

// Issue is one group of events that share a fingerprint.
type Issue struct {
	ID        string `json:"id" jsonschema_description:"Issue id to pass as issueId."`
	ShortID   string `json:"shortId,omitempty" jsonschema_description:"Human short id such as BACKEND-3F."`
	Title     string `json:"title" jsonschema_description:"Title: usually exception type and message."`
	Culprit   string `json:"culprit,omitempty" jsonschema_description:"Where it happened: transaction or function."`
	Type      string `json:"type,omitempty" jsonschema_description:"Exception type of the issue."`
	Value     string `json:"value,omitempty" jsonschema_description:"Exception message of the issue."`
	Level     string `json:"level,omitempty" jsonschema_description:"fatal or error or warning or info or debug."`
	Status    string `json:"status,omitempty" jsonschema_description:"unresolved or resolved or ignored."`
	Project   string `json:"project,omitempty" jsonschema_description:"Project slug."`
	Platform  string `json:"platform,omitempty" jsonschema_description:"Platform of the events."`
	Count     int64  `json:"count" jsonschema_description:"Events in the searched time window (all stored events for get_issue)."`
	UserCount int64  `json:"userCount,omitempty" jsonschema_description:"Distinct users affected."`
	FirstSeen string `json:"firstSeen,omitempty" jsonschema_description:"First event (RFC 3339)."`
	LastSeen  string `json:"lastSeen,omitempty" jsonschema_description:"Latest event (RFC 3339)."`
	Permalink string `json:"permalink,omitempty" jsonschema_description:"Link to the issue in Sentry's web UI."`
}

// IssueList is SearchIssues' result.
type IssueList struct {
	Now        string  `json:"now,omitempty" jsonschema_description:"The server's current time (RFC 3339), to read the timestamps against."`
	Issues     []Issue `json:"issues" jsonschema_description:"Matching issues in the requested order."`
	NextCursor string  `json:"nextCursor,omitempty" jsonschema_description:"Pass as cursor (with the same other arguments) for the next page; absent on the last page."`
	Notice     string  `json:"notice,omitempty" jsonschema_description:"Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// TagValue is one value of a tag and how often it was seen.
type TagValue struct {
	Value     string `json:"value" jsonschema_description:"Tag value."`
	Count     int64  `json:"count" jsonschema_description:"Events with this value."`
	FirstSeen string `json:"firstSeen,omitempty" jsonschema_description:"First event with this value (RFC 3339); get_issue shows it for release values only, when it is not the issue's firstSeen."`
	LastSeen  string `json:"lastSeen,omitempty" jsonschema_description:"Latest event with this value (RFC 3339); get_issue shows it for release values only, when it is not the issue's lastSeen."`
}

// TagSummary is a tag key with its most frequent values.
type TagSummary struct {
	Key          string     `json:"key" jsonschema_description:"Tag key."`
	TotalValues  int64      `json:"totalValues" jsonschema_description:"Events that carry this tag."`
	UniqueValues int64      `json:"uniqueValues,omitempty" jsonschema_description:"Distinct values."`
	TopValues    []TagValue `json:"topValues" jsonschema_description:"Most frequent values first."`
}

// IssueDetail is GetIssue's result.
type IssueDetail struct {
	Now string `json:"now,omitempty" jsonschema_description:"The server's current time (RFC 3339), to read the timestamps against."`
	Issue
	EveryEvent map[string]string `json:"everyEvent,omitempty" jsonschema_description:"Tags with one value on every event of the issue (key: value), such as the environment or release when only one is affected."`
	Tags       []TagSummary      `json:"tags,omitempty" jsonschema_description:"Top values of the issue's other tags; get_tag_values lists all values of one key with their times."`
	Timeline   *Timeline         `json:"timeline,omitempty" jsonschema_description:"Events per hour over the last day and per day over the last month."`
	Notice     string            `json:"notice,omitempty" jsonschema_description:"Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// Tag is a key/value pair of an event.
type Tag struct {
	Key   string `json:"key" jsonschema_description:"Tag key."`
	Value string `json:"value" jsonschema_description:"Tag value."`
}

// ContextLine is one line of source code around a frame.
type ContextLine struct {
	Line    int    `json:"line" jsonschema_description:"Line number."`
	Code    string `json:"code" jsonschema_description:"Source text of the line."`
	Current bool   `json:"current,omitempty" jsonschema_description:"True for the line the frame points at."`
}

// Frame is one stack frame.
type Frame struct {
	Function string            `json:"function,omitempty" jsonschema_description:"Function name."`
	Module   string            `json:"module,omitempty" jsonschema_description:"Module or package (absent when it is the file's directory)."`
	File     string            `json:"file,omitempty" jsonschema_description:"File path as the SDK reported it (absent when path is given)."`
	Path     string            `json:"path,omitempty" jsonschema_description:"The file on this machine, from the server's code mappings (--code-mapping): open it as it is."`
	Repo     string            `json:"repo,omitempty" jsonschema_description:"repository:path of the file, from the Sentry project's code mappings, when no local code mapping covers it."`
	Line     int               `json:"line,omitempty" jsonschema_description:"Line number (1-based)."`
	Column   int               `json:"column,omitempty" jsonschema_description:"Column number."`
	InApp    bool              `json:"inApp,omitempty" jsonschema_description:"True for the application's own code (by the server's --in-app prefixes or code mappings when set, else by the SDK); absent for libraries and the runtime."`
	Context  []ContextLine     `json:"context,omitempty" jsonschema_description:"Source lines around the frame (in-app frames only)."`
	Vars     map[string]string `json:"vars,omitempty" jsonschema_description:"Local variables as JSON text; secret-looking names redacted."`
}

// Exception is one exception of an event's chain.
type Exception struct {
	Type          string  `json:"type,omitempty" jsonschema_description:"Exception type or class."`
	Value         string  `json:"value,omitempty" jsonschema_description:"Exception message."`
	Module        string  `json:"module,omitempty" jsonschema_description:"Module the type is defined in."`
	Mechanism     string  `json:"mechanism,omitempty" jsonschema_description:"How it was captured such as generic or chained or panic."`
	Handled       *bool   `json:"handled,omitempty" jsonschema_description:"False when the exception was not handled by the application."`
	Frames        []Frame `json:"frames,omitempty" jsonschema_description:"Stack frames: in-app frames first; within each group the innermost call (where it was raised) first."`
	FramesOmitted int     `json:"framesOmitted,omitempty" jsonschema_description:"Frames left out by maxFrames."`
}

// Breadcrumb is one step the application recorded before the event.
type Breadcrumb struct {
	Timestamp string            `json:"timestamp,omitempty" jsonschema_description:"When (RFC 3339)."`
	Type      string            `json:"type,omitempty" jsonschema_description:"Breadcrumb type such as http or navigation or default."`
	Category  string            `json:"category,omitempty" jsonschema_description:"Category such as http or query or ui.click."`
	Level     string            `json:"level,omitempty" jsonschema_description:"Level."`
	Message   string            `json:"message,omitempty" jsonschema_description:"Message."`
	Data      map[string]string `json:"data,omitempty" jsonschema_description:"Data as JSON text; secret-looking keys redacted."`
}

// Request is the HTTP request an event happened in.
type Request struct {
	Method  string            `json:"method,omitempty" jsonschema_description:"HTTP method."`
	URL     string            `json:"url,omitempty" jsonschema_description:"URL without query string or credentials."`
	Query   map[string]string `json:"query,omitempty" jsonschema_description:"Query parameters; secret-looking ones redacted."`
	Headers map[string]string `json:"headers,omitempty" jsonschema_description:"Headers; Authorization and Cookie and other secret-looking ones redacted."`
	Data    string            `json:"data,omitempty" jsonschema_description:"Request body as the SDK sent it; secret-looking fields redacted."`
}

// User is the user an event happened for.
type User struct {
	ID       string `json:"id,omitempty" jsonschema_description:"User id."`
	Username string `json:"username,omitempty" jsonschema_description:"User name."`
	Email    string `json:"email,omitempty" jsonschema_description:"E-mail address."`
	IP       string `json:"ip,omitempty" jsonschema_description:"IP address."`
}

// Event is GetEvent's result: one occurrence of an issue.
type Event struct {
	Now                string                       `json:"now,omitempty" jsonschema_description:"The server's current time (RFC 3339), to read the timestamps against."`
	ID                 string                       `json:"id" jsonschema_description:"Event id."`
	IssueID            string                       `json:"issueId,omitempty" jsonschema_description:"Issue the event belongs to."`
	Project            string                       `json:"project,omitempty" jsonschema_description:"Project id or slug."`
	Timestamp          string                       `json:"timestamp,omitempty" jsonschema_description:"When it happened (RFC 3339)."`
	Title              string                       `json:"title,omitempty" jsonschema_description:"Title."`
	Message            string                       `json:"message,omitempty" jsonschema_description:"Log message of the event if any."`
	Level              string                       `json:"level,omitempty" jsonschema_description:"Level."`
	Platform           string                       `json:"platform,omitempty" jsonschema_description:"Platform."`
	Culprit            string                       `json:"culprit,omitempty" jsonschema_description:"Where it happened."`
	Transaction        string                       `json:"transaction,omitempty" jsonschema_description:"Transaction (route or task) name."`
	Release            string                       `json:"release,omitempty" jsonschema_description:"Release version."`
	Environment        string                       `json:"environment,omitempty" jsonschema_description:"Environment."`
	Trace              string                       `json:"trace,omitempty" jsonschema_description:"Trace id of the request the event happened in."`
	TraceSpans         int                          `json:"traceSpans,omitempty" jsonschema_description:"Spans of the trace the local store holds: get_trace with traceId shows them, with the trace's logs."`
	Exceptions         []Exception                  `json:"exceptions,omitempty" jsonschema_description:"Exception chain: the outermost (reported) exception first then its causes."`
	Stacktrace         []Frame                      `json:"stacktrace,omitempty" jsonschema_description:"Stack of a message event (no exception) when the SDK attached one."`
	FramesOmitted      int                          `json:"framesOmitted,omitempty" jsonschema_description:"Frames of stacktrace left out by maxFrames."`
	Breadcrumbs        []Breadcrumb                 `json:"breadcrumbs,omitempty" jsonschema_description:"Most recent breadcrumbs; oldest first."`
	BreadcrumbsOmitted int                          `json:"breadcrumbsOmitted,omitempty" jsonschema_description:"Older breadcrumbs left out by maxBreadcrumbs."`
	Request            *Request                     `json:"request,omitempty" jsonschema_description:"HTTP request."`
	User               *User                        `json:"user,omitempty" jsonschema_description:"User."`
	Tags               []Tag                        `json:"tags,omitempty" jsonschema_description:"Tags sorted by key, without those whose value a field above shows (environment, release, level, transaction, user, url)."`
	Contexts           map[string]map[string]string `json:"contexts,omitempty" jsonschema_description:"Contexts such as os and runtime and device."`
	Extra              map[string]string            `json:"extra,omitempty" jsonschema_description:"Extra data as JSON text; secret-looking keys redacted."`
	Notice             string                       `json:"notice,omitempty" jsonschema_description:"Something the reader should know, such as how to map the frames' files to local paths."`
	mcpkit.Truncation
}

// EventSummary is one row of ListIssueEvents.
type EventSummary struct {
	ID          string `json:"id" jsonschema_description:"Event id to pass as eventId."`
	Timestamp   string `json:"timestamp,omitempty" jsonschema_description:"When it happened (RFC 3339)."`
	Title       string `json:"title,omitempty" jsonschema_description:"Title."`
	Message     string `json:"message,omitempty" jsonschema_description:"Message or exception value."`
	Level       string `json:"level,omitempty" jsonschema_description:"Level."`
	Environment string `json:"environment,omitempty" jsonschema_description:"Environment."`
	Release     string `json:"release,omitempty" jsonschema_description:"Release."`
	User        string `json:"user,omitempty" jsonschema_description:"User (id or e-mail or name or ip)."`
}

// EventList is ListIssueEvents' result.
type EventList struct {
	Now        string         `json:"now,omitempty" jsonschema_description:"The server's current time (RFC 3339), to read the timestamps against."`
	Events     []EventSummary `json:"events" jsonschema_description:"Events newest first."`
	NextCursor string         `json:"nextCursor,omitempty" jsonschema_description:"Pass as cursor for the next (older) page; absent on the last page."`
	Notice     string         `json:"notice,omitempty" jsonschema_description:"Something the reader should know about the data such as events dropped by retention."`
	mcpkit.Truncation
}

// TagValueList is GetTagValues' result.
type TagValueList struct {
	Now          string     `json:"now,omitempty" jsonschema_description:"The server's current time (RFC 3339), to read the timestamps against."`
	Key          string     `json:"key" jsonschema_description:"Tag key."`
	TotalValues  int64      `json:"totalValues,omitempty" jsonschema_description:"Events that carry this tag."`
	UniqueValues int64      `json:"uniqueValues,omitempty" jsonschema_description:"Distinct values."`
	Values       []TagValue `json:"values" jsonschema_description:"Values most frequent first."`
	NextCursor   string     `json:"nextCursor,omitempty" jsonschema_description:"Pass as cursor for the next page; absent on the last page."`
	mcpkit.Truncation
}
