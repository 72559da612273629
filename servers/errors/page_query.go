package errorserver

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// The page's data. It is read through the same Backend methods the tools call (the
// search syntax of search_issues, the tag counts of get_issue, the events of
// list_issue_events, get_event's view of an event with its code mappings), with the
// view layer in page mode (viewer.page): the same redaction, hidden characters
// marked instead of dropped.

const (
	// pagePeriod is the list's window when none is chosen: the last hours.
	pagePeriod = "24h"
	// pageIssues and pageEvents are the rows of one page of issues and of events.
	pageIssues = 50
	pageEvents = 50
)

// pagePeriods are the windows the list offers.
var pagePeriods = []string{"1h", "6h", "24h", "7d", "14d", "30d"}

var pageSorts = []struct{ Value, Label string }{{"date", "last seen"}, {"new", "first seen"}, {"freq", "events"}, {"user", "users"}}

// listFilter is the list's form, as the query string gives it.
type listFilter struct {
	Query, Period, Project, Environment, Sort string
}

func readListFilter(q url.Values) listFilter {
	f := listFilter{Query: q.Get("q"), Period: q.Get("period"), Project: q.Get("project"), Environment: q.Get("environment"), Sort: q.Get("sort")}
	if f.Period == "" {
		f.Period = pagePeriod
	}
	if f.Sort == "" {
		f.Sort = "date"
	}
	return f
}

// values are the filter as a query string (empty fields left out).
func (f listFilter) values() url.Values {
	v := url.Values{}
	for k, x := range map[string]string{"q": f.Query, "project": f.Project, "environment": f.Environment} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if f.Period != pagePeriod {
		v.Set("period", f.Period)
	}
	if f.Sort != "date" {
		v.Set("sort", f.Sort)
	}
	return v
}

type pageIssue struct {
	backend.Issue
	Release string // of its latest event
	URI     string // its MCP resource
	Link    string
	Trend   *backend.Series // events per hour over the last 24 hours
}

type option struct {
	Value, Label string
	Selected     bool
}

type listPage struct {
	pageBase
	Filter       listFilter
	Periods      []option
	Sorts        []option
	Projects     []option
	Environments []option
	Issues       []pageIssue
	Next, First  string
	Error        string
	Notice       string
	Empty        bool // the store has no event at all
	DSN          string
}

func (p *page) serveList(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := readListFilter(r.URL.Query())
	data := listPage{pageBase: p.base("Issues"), Filter: listFilter{
		Query: backend.MarkHidden(f.Query), Period: backend.MarkHidden(f.Period), Project: backend.MarkHidden(f.Project), Environment: backend.MarkHidden(f.Environment), Sort: f.Sort}}
	data.Periods = options(pagePeriods, f.Period)
	for _, s := range pageSorts {
		data.Sorts = append(data.Sorts, option{Value: s.Value, Label: s.Label, Selected: s.Value == f.Sort})
	}
	projects, envs := p.filterValues(ctx)
	data.Projects = options(append([]string{""}, projects...), f.Project)
	data.Environments = options(append([]string{""}, envs...), f.Environment)
	in := backend.SearchIssuesInput{Query: f.Query, StatsPeriod: f.Period, Sort: f.Sort, Limit: pageIssues, Cursor: r.URL.Query().Get("cursor"), Page: true}
	if f.Project != "" {
		in.Project = []string{f.Project}
	}
	if f.Environment != "" {
		in.Environment = []string{f.Environment}
	}
	status := http.StatusOK
	list, err := p.store.SearchIssues(ctx, in)
	switch {
	case errors.Is(err, backend.ErrInvalidInput):
		status, data.Error = http.StatusBadRequest, backend.MarkHidden(err.Error())
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable, err.Error())
		return
	default:
		data.Notice = list.Notice
		releases := p.latestReleases(ctx, list.Issues)
		trends := p.trends(ctx, list.Issues)
		for _, is := range list.Issues {
			if c := p.culprit(ctx, is.ID); c != "" {
				is.Culprit = c
			}
			data.Issues = append(data.Issues, pageIssue{Issue: is, Release: releases[is.ID], URI: IssueURI(is.ID), Link: "/issues/" + url.PathEscape(is.ID), Trend: trends[is.ID]})
		}
		if list.NextCursor != "" {
			v := f.values()
			v.Set("cursor", list.NextCursor)
			data.Next = "/?" + v.Encode()
		}
		if in.Cursor != "" {
			data.First = "/?" + f.values().Encode()
		}
	}
	if len(data.Issues) == 0 && len(projects) == 0 {
		data.Empty, data.DSN = true, p.cfg.DSN
	}
	p.render(w, status, "list", data)
}

func options(values []string, selected string) []option {
	out := make([]option, 0, len(values)+1)
	found := false
	for _, v := range values {
		label := v
		if v == "" {
			label = "all"
		}
		out = append(out, option{Value: v, Label: label, Selected: v == selected})
		found = found || v == selected
	}
	if !found { // a value typed into the address bar stays selected
		out = append(out, option{Value: selected, Label: backend.MarkHidden(selected), Selected: true})
	}
	return out
}

// filterValues lists the projects and environments the filter offers (at most 100
// each, from the counted tags; a value arriving this second shows on the next load).
func (p *page) filterValues(ctx context.Context) (projects, envs []string) {
	read := func(q string) []string {
		var out []string
		rows, err := p.store.db.QueryContext(ctx, q)
		if err != nil {
			return nil
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if rows.Scan(&s) == nil {
				out = append(out, backend.MarkHidden(s))
			}
		}
		return out
	}
	projects = read(`SELECT DISTINCT project FROM issues ORDER BY project LIMIT 100`)
	envs = read(`SELECT DISTINCT value FROM issue_tags WHERE key = 'environment' ORDER BY value LIMIT 100`)
	return projects, envs
}

// trends reads each listed issue's events per hour over the last 24 hours (the
// hours of get_issue's timeline) in one query: a primary-key lookup per issue and
// hour. An issue whose counts cannot be read has no trend drawn.
func (p *page) trends(ctx context.Context, issues []backend.Issue) map[string]*backend.Series {
	out := map[string]*backend.Series{}
	if len(issues) == 0 {
		return out
	}
	first, _ := backend.TimelineBuckets(p.store.now())
	args := []any{spanHour}
	b0 := first.Unix() / spanHour
	for i := range backend.TimelineHours {
		args = append(args, b0+int64(i))
	}
	for _, is := range issues {
		args = append(args, is.ID)
		out[is.ID] = &backend.Series{Start: backend.FormatTime(first), Counts: make([]int64, backend.TimelineHours)}
	}
	rows, err := p.store.db.QueryContext(ctx, `SELECT i.id, c.bucket, c.n FROM issues i JOIN issue_counts c ON c.span = ? AND c.bucket IN (`+placeholders(backend.TimelineHours)+`) AND c.issue = i.n
		WHERE i.id IN (`+placeholders(len(issues))+`)`, args...)
	if err != nil {
		return map[string]*backend.Series{}
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var bucket, n int64
		if rows.Scan(&id, &bucket, &n) == nil {
			if s, i := out[id], bucket-b0; s != nil && i >= 0 && i < int64(len(s.Counts)) {
				s.Counts[i] = n
			}
		}
	}
	if rows.Err() != nil {
		return map[string]*backend.Series{}
	}
	return out
}

// latestReleases reads the release of each issue's latest event, in one query.
func (p *page) latestReleases(ctx context.Context, issues []backend.Issue) map[string]string {
	out := map[string]string{}
	if len(issues) == 0 {
		return out
	}
	args := make([]any, len(issues))
	for i, is := range issues {
		args[i] = is.ID
	}
	rows, err := p.store.db.QueryContext(ctx, `SELECT i.id, coalesce((SELECT release FROM events WHERE issue = i.n ORDER BY ts DESC, n DESC LIMIT 1), '')
		FROM issues i WHERE i.id IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return out
	}
	defer rows.Close()
	v := &backend.Viewer{Page: true}
	for rows.Next() {
		var id, rel string
		if rows.Scan(&id, &rel) == nil {
			out[id] = v.TagValue("release", rel)
		}
	}
	return out
}

// culprit is the issue's culprit by the configured in-app prefixes, as the tools
// show it (presenter.localCulprit); "" to keep the stored one.
func (p *page) culprit(ctx context.Context, issueID string) string {
	if p.codes == nil || len(p.codes.InApp) == 0 {
		return ""
	}
	ev, err := p.store.GetEvent(ctx, backend.GetEventInput{IssueID: issueID, MaxFrames: 1, MaxBreadcrumbs: 1, Codes: p.codes, Page: true})
	if err != nil {
		return ""
	}
	return ev.Culprit
}

// pageFrame is a frame with the source lines the page shows: the SDK's, or read
// from the local file the code mappings give (Source then names it).
type pageFrame struct {
	backend.Frame
	Lines      []backend.ContextLine
	LocalLines bool // the lines were read from Path on this machine, not sent
}

type pageException struct {
	backend.Exception
	Frames []pageFrame
}

type issuePage struct {
	pageBase
	Issue      backend.IssueDetail
	Release    string
	URI        string
	Event      *backend.Event
	EventError string
	Exceptions []pageException
	Stack      []pageFrame
	Events     []pageEventRow
	EventsNote string
	Next       string
	First      string
	Selected   string
}

type pageEventRow struct {
	backend.EventSummary
	Link     string
	Selected bool
}

func (p *page) serveIssue(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	q := r.URL.Query()
	detail, err := p.store.GetIssue(ctx, backend.GetIssueInput{IssueID: id, Page: true})
	switch {
	case errors.Is(err, backend.ErrNotFound), errors.Is(err, backend.ErrInvalidInput):
		p.fail(w, http.StatusNotFound, err.Error())
		return
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if c := p.culprit(ctx, detail.ID); c != "" {
		detail.Culprit = c
	}
	self := "/issues/" + url.PathEscape(detail.ID)
	data := issuePage{pageBase: p.base(detail.Title), Issue: *detail, URI: IssueURI(detail.ID)}
	data.Release = p.latestReleases(ctx, []backend.Issue{detail.Issue})[detail.ID]
	eventRef := q.Get("event")
	if eventRef == "" {
		eventRef = "latest"
	}
	ev, err := p.store.GetEvent(ctx, backend.GetEventInput{IssueID: detail.ID, EventID: eventRef, MaxFrames: backend.MaxFrames, MaxBreadcrumbs: backend.MaxBreadcrumbs, Codes: p.codes, Page: true})
	if err != nil {
		data.EventError = backend.MarkHidden(err.Error())
	} else {
		data.Event, data.Selected = ev, ev.ID
		src := &sourceReader{codes: p.codes}
		for _, x := range ev.Exceptions {
			data.Exceptions = append(data.Exceptions, pageException{Exception: x, Frames: src.frames(x.Frames)})
		}
		data.Stack = src.frames(ev.Stacktrace)
	}
	cursor := q.Get("cursor")
	events, err := p.store.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: detail.ID, Limit: pageEvents, Cursor: cursor, Page: true})
	if err != nil {
		data.EventsNote = backend.MarkHidden(err.Error())
	} else {
		for _, e := range events.Events {
			v := url.Values{"event": {e.ID}}
			if cursor != "" {
				v.Set("cursor", cursor)
			}
			data.Events = append(data.Events, pageEventRow{EventSummary: e, Link: self + "?" + v.Encode(), Selected: e.ID == data.Selected})
		}
		if events.NextCursor != "" {
			data.Next = self + "?" + url.Values{"cursor": {events.NextCursor}}.Encode()
			data.EventsNote = events.Hint
		}
		if cursor != "" {
			data.First = self
		}
	}
	p.render(w, http.StatusOK, "issue", data)
}

// frames attaches source lines to the frames of an event.
func (s *sourceReader) frames(in []backend.Frame) []pageFrame {
	out := make([]pageFrame, 0, len(in))
	for _, f := range in {
		pf := pageFrame{Frame: f, Lines: f.Context}
		if len(pf.Lines) == 0 && f.InApp && f.Path != "" && f.Line > 0 {
			if lines := s.read(f.Path, f.Line); len(lines) > 0 {
				pf.Lines, pf.LocalLines = lines, true
			}
		}
		out = append(out, pf)
	}
	return out
}

type setupProject struct {
	ID, DSN string
	Issues  int
	Events  int64
}

type setupPage struct {
	pageBase
	DSN          string
	SpotlightURL string
	Projects     []setupProject
}

func (p *page) serveSetup(w http.ResponseWriter, r *http.Request) {
	data := setupPage{pageBase: p.base("Send errors here"), DSN: p.cfg.DSN, SpotlightURL: p.cfg.SpotlightURL}
	pr := &backend.Presenter{Backend: p.store, DSN: p.cfg.DSN, Now: p.now}
	if list, err := pr.ListProjects(r.Context(), backend.ListProjectsInput{}); err == nil {
		for _, x := range list.Projects {
			data.Projects = append(data.Projects, setupProject{ID: backend.MarkHidden(x.ID), DSN: x.DSN, Issues: x.Issues, Events: x.Events})
		}
	}
	slices.SortFunc(data.Projects, func(a, b setupProject) int { return strings.Compare(a.ID, b.ID) })
	p.render(w, http.StatusOK, "setup", data)
}

// ago renders how long before now an RFC 3339 time was, for a person: 5m, 3h, 2d.
func ago(now, ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	n, err2 := time.Parse(time.RFC3339Nano, now)
	if err != nil || err2 != nil {
		return ""
	}
	d := n.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return "<1m ago"
	case d < time.Hour:
		return itoa(int64(d/time.Minute)) + "m ago"
	case d < 48*time.Hour:
		return itoa(int64(d/time.Hour)) + "h ago"
	}
	return itoa(int64(d/(24*time.Hour))) + "d ago"
}
