// Package backend is what the tools and the page read, and what every backend
// answers: the Backend interface, its inputs and results, the sentinel errors and
// limits both implementations share, the parsing of their arguments (time windows,
// limits, sorts, ids), the view that turns an event.Event into a sanitised Event
// result, and the Presenter that adds what belongs to the server (code mappings, the
// local DSN, the clock).
//
// Every text that comes from an event (messages, exception values, breadcrumbs, frame
// variables, request data) is untrusted: both backends pass it through the one view
// layer here (view.go) that strips invisible and bidirectional control characters,
// caps sizes and redacts values whose keys look like secrets (event/redact.go).
//
// It does no I/O. It may import event and internal/lazyregexp, nothing else of this
// module: the Sentry client and the store implement Backend, and the tools and the
// page call it, so none of them may be imported here (TestPackagesImportOneWay).
package backend

import (
	"context"
	"errors"

	"github.com/mcpkit/reference/servers/errors/event"
)

// Backend is what the tools call. Both implementations take the same inputs, enforce
// the same limits and return the same compact, sanitised results.
type Backend interface {
	// ListProjects lists the projects (and, for Sentry, organizations) visible.
	ListProjects(ctx context.Context, in ListProjectsInput) (*ProjectList, error)
	// SearchIssues finds issues with a Sentry search query in a time window.
	SearchIssues(ctx context.Context, in SearchIssuesInput) (*IssueList, error)
	// GetIssue returns one issue with a summary of its top tag values.
	GetIssue(ctx context.Context, in GetIssueInput) (*IssueDetail, error)
	// GetEvent returns one event of an issue ("latest", "oldest" or an event id) with its
	// exception chain, stack frames, breadcrumbs, request and tags.
	GetEvent(ctx context.Context, in GetEventInput) (*Event, error)
	// ListIssueEvents lists an issue's events, newest first.
	ListIssueEvents(ctx context.Context, in ListIssueEventsInput) (*EventList, error)
	// GetTagValues lists the values of one tag across an issue's events, most frequent first.
	GetTagValues(ctx context.Context, in GetTagValuesInput) (*TagValueList, error)
}

// Sentinel errors; every returned error wraps at most one of them and carries a
// message that says what was wrong and what to do.
var (
	// ErrInvalidInput: an argument is malformed or out of range.
	ErrInvalidInput = errors.New("invalid input")
	// ErrNotFound: the organization, project, issue, event or tag does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConfig: the server is misconfigured (for Sentry: the token was refused).
	ErrConfig = errors.New("configuration error")
	// ErrRateLimited: the backend asked us to slow down for longer than the call may wait.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnavailable: the backend failed, timed out or did not answer in time.
	ErrUnavailable = errors.New("backend unavailable")
)

// Limits shared by both backends.
const (
	DefaultLimit          = 25
	MaxLimit              = 100
	DefaultMaxFrames      = 30
	MaxFrames             = 200
	DefaultMaxBreadcrumbs = 20
	MaxBreadcrumbs        = 100
	// TopTagKeys and topTagValues bound GetIssue's tag summary.
	TopTagKeys   = 20
	TopTagValues = 5
)

// PriorityTags come first in an issue's tag summary: what triage asks first.
var PriorityTags = []string{"environment", "release", "level", "handled", "mechanism", "server_name", "transaction", "url", "user", "os.name", "runtime", "browser"}

// ListProjectsInput selects whose projects to list.
type ListProjectsInput struct {
	Organization string `json:"organization,omitempty"`
}

// SearchIssuesInput is an issue search.
type SearchIssuesInput struct {
	Organization string   `json:"organization,omitempty"`
	Query        string   `json:"query,omitempty" jsonschema_description:"Sentry search syntax: free text (title, culprit, exception, message); key:value filters such as is:unresolved level:error environment:production release:shop@1.2.3 error.type:TypeError user.email:*@example.com or any tag; times_seen:>10; firstSeen:-24h or lastSeen:>2026-12-01; !key:value negates. Empty: is:unresolved."`
	StatsPeriod  string   `json:"statsPeriod,omitempty" jsonschema_description:"Window ending now: numbers with units s/m/h/d/w (90m, 6h30m, 3d). Not with start." jsonschema:"default=14d"`
	Start        string   `json:"start,omitempty" jsonschema_description:"RFC 3339 or a date; without end, until now."`
	End          string   `json:"end,omitempty" jsonschema_description:"Needs start."`
	Sort         string   `json:"sort,omitempty" jsonschema_description:"date: last seen; new: first seen; freq: events; user: users affected" jsonschema:"enum=date,enum=new,enum=freq,enum=user,default=date"`
	Environment  []string `json:"environment,omitempty"`
	Project      []string `json:"project,omitempty" jsonschema_description:"Ids or slugs (list_projects)"`
	Limit        int      `json:"limit,omitempty" jsonschema:"minimum=0,maximum=100,default=25"`
	Cursor       string   `json:"cursor,omitempty"`
	// Page is set by the browser page (package page), never by a client (json:"-":
	// it is not part of the input schema): text is marked for a person rather than
	// cleaned for a model (see Viewer.Page).
	Page bool `json:"-"`
}

// GetIssueInput names one issue.
type GetIssueInput struct {
	Organization string `json:"organization,omitempty"`
	IssueID      string `json:"issueId"`
	// Page is set by the browser page (package page), never by a client (json:"-":
	// it is not part of the input schema): text is marked for a person rather than
	// cleaned for a model (see Viewer.Page).
	Page bool `json:"-"`
}

// GetEventInput names one event of an issue.
type GetEventInput struct {
	Organization   string `json:"organization,omitempty"`
	IssueID        string `json:"issueId"`
	EventID        string `json:"eventId,omitempty" jsonschema_description:"latest, oldest or an event id from list_issue_events" jsonschema:"default=latest"`
	MaxFrames      int    `json:"maxFrames,omitempty" jsonschema_description:"Per exception, in-app first" jsonschema:"minimum=0,maximum=200,default=30"`
	MaxBreadcrumbs int    `json:"maxBreadcrumbs,omitempty" jsonschema_description:"The most recent" jsonschema:"minimum=0,maximum=100,default=20"`

	// Codes are the server's code mappings and in-app prefixes, set by the server
	// (never by a client: the field is not part of the input schema). Backends pass
	// the input to ResolveViewOptions, which hands them to the view layer.
	Codes *event.CodeMap `json:"-"`
	// Page: for the browser page (see SearchIssuesInput.Page).
	Page bool `json:"-"`
}

// ListIssueEventsInput pages through an issue's events.
type ListIssueEventsInput struct {
	Organization string `json:"organization,omitempty"`
	IssueID      string `json:"issueId"`
	Limit        int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=100,default=25"`
	Cursor       string `json:"cursor,omitempty"`
	// Page is set by the browser page (package page), never by a client (json:"-":
	// it is not part of the input schema): text is marked for a person rather than
	// cleaned for a model (see Viewer.Page).
	Page bool `json:"-"`
}

// GetTagValuesInput names one tag of an issue.
type GetTagValuesInput struct {
	Organization string `json:"organization,omitempty"`
	IssueID      string `json:"issueId"`
	Key          string `json:"key"`
	Limit        int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=100,default=25"`
	Cursor       string `json:"cursor,omitempty"`
}
