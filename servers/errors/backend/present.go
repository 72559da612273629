package backend

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
)

// Presenter is the Backend the tools, the resource and the prompt call: it wraps the
// real backend and adds what belongs to the server rather than to a backend: the
// code mappings (handed to the view layer through GetEventInput), the server's
// current time on every result with timestamps, and, over the local store, the DSN
// applications send to.
type Presenter struct {
	Backend
	Codes *event.CodeMap
	Now   func() time.Time
	DSN   string // the local store's DSN; empty for Sentry
}

// NewPresenter wraps b with the server's code mappings and in-app prefixes, the
// local store's DSN (empty for Sentry) and its clock (nil: time.Now).
func NewPresenter(b Backend, mappings []event.CodeMapping, inApp []string, dsn string, now func() time.Time) *Presenter {
	if now == nil {
		now = time.Now
	}
	return &Presenter{Backend: b, Codes: event.NewCodeMap(mappings, inApp), Now: now, DSN: dsn}
}

func (p *Presenter) stamp() string { return FormatTime(p.Now()) }

// projectDSN is the local DSN with project id at its end.
func (p *Presenter) projectDSN(id string) string {
	u, err := url.Parse(p.DSN)
	if err != nil || id == "" {
		return p.DSN
	}
	u.Path = "/" + url.PathEscape(id)
	return u.String()
}

// emptyNotice says how to send events to the empty local store.
func (p *Presenter) emptyNotice() string {
	return fmt.Sprintf("The local store has no events yet. To send some, set an application's Sentry DSN (or SENTRY_DSN) to %s (any project number works at the end); events sent with another DSN key are refused.", p.DSN)
}

// storeEmpty reports whether the local store holds no project at all.
func (p *Presenter) storeEmpty(ctx context.Context) bool {
	if p.DSN == "" {
		return false
	}
	list, err := p.Backend.ListProjects(ctx, ListProjectsInput{})
	return err == nil && len(list.Projects) == 0
}

func addNotice(old, more string) string {
	if old == "" {
		return more
	}
	return old + " " + more
}

func (p *Presenter) ListProjects(ctx context.Context, in ListProjectsInput) (*ProjectList, error) {
	out, err := p.Backend.ListProjects(ctx, in)
	if err != nil || p.DSN == "" {
		return out, err
	}
	for i := range out.Projects {
		out.Projects[i].DSN = p.projectDSN(out.Projects[i].ID)
	}
	if len(out.Projects) == 0 {
		out.Notice = addNotice(out.Notice, p.emptyNotice())
	}
	return out, nil
}

// localCulprit is the culprit of an issue of the local store by the configured
// in-app prefixes, from its latest event; "" when they are not configured or the
// event cannot be read. (The store computes culprits when events arrive, with the
// SDK's in_app; Sentry applies its own in-app rules, so its culprits stay.)
func (p *Presenter) localCulprit(ctx context.Context, issueID string) string {
	if p.DSN == "" || p.Codes == nil || len(p.Codes.InApp) == 0 {
		return ""
	}
	ev, err := p.Backend.GetEvent(ctx, GetEventInput{IssueID: issueID, MaxFrames: 1, MaxBreadcrumbs: 1, Codes: p.Codes})
	if err != nil {
		return ""
	}
	return ev.Culprit
}

func (p *Presenter) SearchIssues(ctx context.Context, in SearchIssuesInput) (*IssueList, error) {
	out, err := p.Backend.SearchIssues(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = p.stamp()
	for i := range out.Issues {
		if c := p.localCulprit(ctx, out.Issues[i].ID); c != "" {
			out.Issues[i].Culprit = c
		}
	}
	if len(out.Issues) == 0 && in.Cursor == "" && p.storeEmpty(ctx) {
		out.Notice = addNotice(out.Notice, p.emptyNotice())
	}
	return out, nil
}

func (p *Presenter) GetIssue(ctx context.Context, in GetIssueInput) (*IssueDetail, error) {
	in.IssueID, _ = IssueLink(in.IssueID)
	out, err := p.Backend.GetIssue(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = p.stamp()
	if c := p.localCulprit(ctx, out.ID); c != "" {
		out.Culprit = c
	}
	compactTagSummary(out)
	return out, nil
}

// compactTagSummary shortens get_issue's tag summary without losing what triage
// reads in it: a tag with one value on every event moves to EveryEvent (key: value,
// instead of a summary that repeats the count twice); the times of values are kept
// for releases only (when a release started or stopped failing), and only where they
// are not the issue's own first and last seen; get_tag_values has the times of any
// key's values.
func compactTagSummary(d *IssueDetail) {
	kept := d.Tags[:0]
	for _, ts := range d.Tags {
		if d.Count > 0 && ts.TotalValues == d.Count && len(ts.TopValues) == 1 && ts.UniqueValues <= 1 && ts.TopValues[0].Count == d.Count {
			if d.EveryEvent == nil {
				d.EveryEvent = map[string]string{}
			}
			d.EveryEvent[ts.Key] = ts.TopValues[0].Value
			continue
		}
		for j := range ts.TopValues {
			tv := &ts.TopValues[j]
			if ts.Key != "release" || tv.FirstSeen == d.FirstSeen {
				tv.FirstSeen = ""
			}
			if ts.Key != "release" || tv.LastSeen == d.LastSeen {
				tv.LastSeen = ""
			}
		}
		kept = append(kept, ts)
	}
	d.Tags = kept
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
}

func (p *Presenter) GetEvent(ctx context.Context, in GetEventInput) (*Event, error) {
	in.Codes = p.Codes
	var linked string
	in.IssueID, linked = IssueLink(in.IssueID)
	if in.EventID == "" {
		in.EventID = linked // an event's link given as the issue picks that event
	} else {
		in.EventID = EventLink(in.EventID)
	}
	out, err := p.Backend.GetEvent(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = p.stamp()
	return out, nil
}

func (p *Presenter) ListIssueEvents(ctx context.Context, in ListIssueEventsInput) (*EventList, error) {
	in.IssueID, _ = IssueLink(in.IssueID)
	out, err := p.Backend.ListIssueEvents(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = p.stamp()
	return out, nil
}

func (p *Presenter) GetTagValues(ctx context.Context, in GetTagValuesInput) (*TagValueList, error) {
	in.IssueID, _ = IssueLink(in.IssueID)
	out, err := p.Backend.GetTagValues(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = p.stamp()
	return out, nil
}
