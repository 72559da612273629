// Package errorserver is the error-monitoring MCP server: one Backend interface that
// the tools call, answered either by the Sentry REST API (sentry.io, a regional host or
// a self-hosted Sentry) or by a local event store that any Sentry SDK can send to.
//
// The package is named errorserver, not errors, so that it never shadows the standard
// library's errors package in the files that use both.
//
// Every text that comes from an event (messages, exception values, breadcrumbs, frame
// variables, request data) is untrusted: both backends pass it through one view layer
// (view.go) that strips invisible and bidirectional control characters, caps sizes and
// redacts values whose keys look like secrets (redact.go).
package errorserver

import (
	"context"
	"errors"
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
	// topTagKeys and topTagValues bound GetIssue's tag summary.
	topTagKeys   = 20
	topTagValues = 5
)

// ListProjectsInput selects whose projects to list.
type ListProjectsInput struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization; with none configured every organization the token sees is listed. The local store has one organization named local."`
}

// SearchIssuesInput is an issue search.
type SearchIssuesInput struct {
	Organization string   `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization."`
	Query        string   `json:"query,omitempty" jsonschema_description:"Sentry search syntax. Free text matches title, culprit, exception and message; key:value filters such as is:unresolved or level:error or environment:production or release:1.2.3 or any tag (browser:Chrome); firstSeen:-6h or firstSeen:>2026-12-01 (or lastSeen); !key:value negates. Empty means Sentry's default (is:unresolved)."`
	StatsPeriod  string   `json:"statsPeriod,omitempty" jsonschema_description:"Time window ending now: numbers with units s/m/h/d/w such as 90m, 6h30m, 24h or 3d. Default 14d. Not with start."`
	Start        string   `json:"start,omitempty" jsonschema_description:"Window start (RFC 3339 such as 2026-05-01T00:00:00Z, or a date); without end the window runs until now."`
	End          string   `json:"end,omitempty" jsonschema_description:"Window end (RFC 3339); needs start."`
	Sort         string   `json:"sort,omitempty" jsonschema_description:"Order: date (last seen; the default) or new (first seen) or freq (event count) or user (users affected)." jsonschema:"enum=date,enum=new,enum=freq,enum=user"`
	Environment  []string `json:"environment,omitempty" jsonschema_description:"Only events from these environments (such as production)."`
	Project      []string `json:"project,omitempty" jsonschema_description:"Only these projects: ids or slugs as list_projects shows them."`
	Limit        int      `json:"limit,omitempty" jsonschema_description:"Issues per page: 1 to 100. Default 25." jsonschema:"minimum=0,maximum=100"`
	Cursor       string   `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page to get the next one. Keep the other arguments unchanged."`
}

// GetIssueInput names one issue.
type GetIssueInput struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization."`
	IssueID      string `json:"issueId" jsonschema_description:"The issue id (numeric for Sentry) or short id such as BACKEND-3F."`
}

// GetEventInput names one event of an issue.
type GetEventInput struct {
	Organization   string `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization."`
	IssueID        string `json:"issueId" jsonschema_description:"The issue the event belongs to."`
	EventID        string `json:"eventId,omitempty" jsonschema_description:"latest (the default) or oldest or a 32-character event id from list_issue_events."`
	MaxFrames      int    `json:"maxFrames,omitempty" jsonschema_description:"Stack frames kept per exception (in-app frames first): 1 to 200. Default 30." jsonschema:"minimum=0,maximum=200"`
	MaxBreadcrumbs int    `json:"maxBreadcrumbs,omitempty" jsonschema_description:"Most recent breadcrumbs kept: 0 to 100. Default 20." jsonschema:"minimum=0,maximum=100"`

	// codes are the server's code mappings and in-app prefixes, set by the server
	// (never by a client: the field is not part of the input schema). Backends pass
	// the input to resolveViewOptions, which hands them to the view layer.
	codes *codeMap
}

// ListIssueEventsInput pages through an issue's events.
type ListIssueEventsInput struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization."`
	IssueID      string `json:"issueId" jsonschema_description:"The issue whose events to list."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Events per page: 1 to 100. Default 25." jsonschema:"minimum=0,maximum=100"`
	Cursor       string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page."`
}

// GetTagValuesInput names one tag of an issue.
type GetTagValuesInput struct {
	Organization string `json:"organization,omitempty" jsonschema_description:"Organization slug. Defaults to the configured organization."`
	IssueID      string `json:"issueId" jsonschema_description:"The issue whose events to count."`
	Key          string `json:"key" jsonschema_description:"Tag key such as environment or release or browser or server_name or user."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Values per page: 1 to 100. Default 25." jsonschema:"minimum=0,maximum=100"`
	Cursor       string `json:"cursor,omitempty" jsonschema_description:"The nextCursor of the previous page."`
}
