// Package sentryapi is the Sentry REST backend: a backend.Backend over sentry.io, a
// regional host or a self-hosted Sentry, with its configuration, the HTTP client
// (retries and rate limits through pkg/mcpkit/upstream), Link-header pagination and
// the API's types, mapped into event.Event and the backend results.
//
// A new Sentry endpoint goes here: its API type in types.go, the call beside the
// Backend method that needs it. It may import backend, event and internal/lazyregexp,
// nothing else of this module: never the store, the ingest endpoint, the page or the
// tools (TestPackagesImportOneWay).
package sentryapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"
)

// Backend answers the tools from the Sentry REST API.
type Backend struct {
	cfg    Config
	base   *url.URL
	hc     *http.Client
	logger *slog.Logger

	mu       sync.Mutex
	orgs     []apiOrg
	orgsAt   time.Time
	projects map[string]projectCache // by organization
	mappings map[string]mappingCache // by organization/project id
}

type mappingCache struct {
	list []event.CodeMapping
	at   time.Time
}

type projectCache struct {
	list []apiProject
	at   time.Time
}

const (
	cacheTTL      = 5 * time.Minute
	maxListPages  = 10
	maxOrgsListed = 10
)

var _ backend.Backend = (*Backend)(nil)

// New validates the configuration (base URL, token) and returns the backend.
// It makes no request: a bad token is reported by the first call.
func New(cfg Config) (*Backend, error) {
	base, err := parseSentryBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if err := checkToken(cfg.Token); err != nil {
		return nil, err
	}
	if cfg.Organization != "" {
		if err := backend.CheckID("SENTRY_ORG", cfg.Organization); err != nil {
			return nil, fmt.Errorf("%w: %v", backend.ErrConfig, err)
		}
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = DefaultAttemptTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Backend{cfg: cfg, base: base, hc: sentryClient(hc, cfg), logger: cfg.Logger, projects: map[string]projectCache{}, mappings: map[string]mappingCache{}}, nil
}

// BaseURL is the normalised Sentry base URL requests go to.
func (b *Backend) BaseURL() string { return b.base.String() }

// Organization is the configured default organization ("" when none is).
func (b *Backend) Organization() string { return b.cfg.Organization }

var sentryCursorPattern = lazyregexp.New(`^[A-Za-z0-9:._=-]{1,200}$`)

func checkSentryCursor(c string) error {
	if c != "" && !sentryCursorPattern.MatchString(c) {
		return fmt.Errorf("%w: cursor %q is not a Sentry cursor: pass nextCursor from the previous page unchanged", backend.ErrInvalidInput, backend.TruncateForError(c))
	}
	return nil
}

// listOrgs returns the organizations the token sees (cached for a few minutes).
func (b *Backend) listOrgs(ctx context.Context) ([]apiOrg, error) {
	b.mu.Lock()
	if b.orgs != nil && time.Since(b.orgsAt) < cacheTTL {
		defer b.mu.Unlock()
		return b.orgs, nil
	}
	b.mu.Unlock()
	var all []apiOrg
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		q := url.Values{}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var orgs []apiOrg
		p, err := b.get(ctx, "list organizations", []string{"organizations"}, q, &orgs)
		if err != nil {
			return nil, err
		}
		all = append(all, orgs...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	b.mu.Lock()
	b.orgs, b.orgsAt = all, time.Now()
	b.mu.Unlock()
	return all, nil
}

// org resolves the organization for a call: the argument, the configured default, or
// the only organization the token sees.
func (b *Backend) org(ctx context.Context, given string) (string, error) {
	if given != "" {
		return given, backend.CheckID("organization", given)
	}
	if b.cfg.Organization != "" {
		return b.cfg.Organization, nil
	}
	orgs, err := b.listOrgs(ctx)
	if err != nil {
		return "", err
	}
	switch len(orgs) {
	case 0:
		return "", fmt.Errorf("%w: the token sees no organization: check SENTRY_AUTH_TOKEN's scopes (%s)", backend.ErrConfig, SentryScopes)
	case 1:
		return orgs[0].Slug, nil
	}
	var slugs []string
	for _, o := range orgs {
		slugs = append(slugs, o.Slug)
	}
	return "", fmt.Errorf("%w: the token sees several organizations (%s): pass organization or set SENTRY_ORG", backend.ErrInvalidInput, (&backend.Viewer{}).Text(strings.Join(slugs, ", "), 500))
}

// listProjects returns an organization's projects (cached), following up to
// maxListPages pages; truncated reports that more exist.
func (b *Backend) listProjects(ctx context.Context, org string) (list []apiProject, truncated bool, err error) {
	b.mu.Lock()
	if c, ok := b.projects[org]; ok && time.Since(c.at) < cacheTTL {
		b.mu.Unlock()
		return c.list, false, nil
	}
	b.mu.Unlock()
	cursor := ""
	for page := 0; ; page++ {
		if page == maxListPages {
			return list, true, nil
		}
		q := url.Values{}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var ps []apiProject
		p, err := b.get(ctx, "list projects of "+org, []string{"organizations", org, "projects"}, q, &ps)
		if err != nil {
			return nil, false, err
		}
		list = append(list, ps...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	b.mu.Lock()
	b.projects[org] = projectCache{list: list, at: time.Now()}
	b.mu.Unlock()
	return list, false, nil
}

// ListProjects lists the projects of one organization, or of every organization the
// token sees when none is given or configured.
func (b *Backend) ListProjects(ctx context.Context, in backend.ListProjectsInput) (*backend.ProjectList, error) {
	var orgs []apiOrg
	org := in.Organization
	if org == "" {
		org = b.cfg.Organization
	}
	out := &backend.ProjectList{Projects: []backend.Project{}}
	if org != "" {
		if err := backend.CheckID("organization", org); err != nil {
			return nil, err
		}
		orgs = []apiOrg{{Slug: org}}
	} else {
		all, err := b.listOrgs(ctx)
		if err != nil {
			return nil, err
		}
		orgs = all
		if len(orgs) > maxOrgsListed {
			out.Cut(fmt.Sprintf("projects of the first %d of %d organizations listed: pass organization for the others", maxOrgsListed, len(orgs)))
			orgs = orgs[:maxOrgsListed]
		}
	}
	v := &backend.Viewer{}
	for _, o := range orgs {
		out.Organizations = append(out.Organizations, backend.Organization{Slug: v.Text(o.Slug, backend.CapName), Name: v.Text(o.Name, backend.CapName)})
		ps, truncated, err := b.listProjects(ctx, o.Slug)
		if err != nil {
			return nil, err
		}
		if truncated {
			out.Cut(fmt.Sprintf("organization %s has more projects than the %d pages read", o.Slug, maxListPages))
		}
		for _, p := range ps {
			out.Projects = append(out.Projects, backend.Project{
				ID: v.Text(string(p.ID), backend.CapName), Slug: v.Text(p.Slug, backend.CapName), Name: v.Text(p.Name, backend.CapName),
				Platform: v.Text(string(p.Platform), backend.CapName), Organization: v.Text(o.Slug, backend.CapName),
			})
		}
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// projectIDs turns project ids or slugs into the numeric ids the issues API filters by.
func (b *Backend) projectIDs(ctx context.Context, org string, given []string) ([]string, error) {
	var ids []string
	var lookup []apiProject
	for _, p := range given {
		p = strings.TrimSpace(p)
		if _, err := strconv.ParseInt(p, 10, 64); err == nil {
			ids = append(ids, p)
			continue
		}
		if err := backend.CheckID("project", p); err != nil {
			return nil, err
		}
		if lookup == nil {
			ps, _, err := b.listProjects(ctx, org)
			if err != nil {
				return nil, err
			}
			lookup = ps
		}
		found := false
		for _, lp := range lookup {
			if lp.Slug == p {
				ids = append(ids, string(lp.ID))
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: organization %s has no project %q: list_projects shows the slugs and ids", backend.ErrNotFound, org, p)
		}
	}
	return ids, nil
}

// SearchIssues runs an organization issue search.
func (b *Backend) SearchIssues(ctx context.Context, in backend.SearchIssuesInput) (*backend.IssueList, error) {
	win, err := backend.ResolveWindow(in.StatsPeriod, in.Start, in.End, time.Now())
	if err != nil {
		return nil, err
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	order, err := backend.ResolveSort(in.Sort)
	if err != nil {
		return nil, err
	}
	if err := checkSentryCursor(in.Cursor); err != nil {
		return nil, err
	}
	org, err := b.org(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	projects, err := b.projectIDs(ctx, org, in.Project)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if strings.TrimSpace(in.Query) != "" {
		q.Set("query", in.Query)
	}
	if win.Period != "" {
		q.Set("statsPeriod", win.Period)
	} else {
		q.Set("start", win.Start.Format("2006-01-02T15:04:05"))
		q.Set("end", win.End.Format("2006-01-02T15:04:05"))
	}
	q.Set("sort", order)
	q.Set("limit", strconv.Itoa(limit))
	for _, e := range in.Environment {
		q.Add("environment", e)
	}
	for _, p := range projects {
		q.Add("project", p)
	}
	if in.Cursor != "" {
		q.Set("cursor", in.Cursor)
	}
	var issues []apiIssue
	page, err := b.get(ctx, "search issues", []string{"organizations", org, "issues"}, q, &issues)
	if err != nil {
		return nil, err
	}
	out := &backend.IssueList{Issues: []backend.Issue{}, NextCursor: page.NextCursor}
	v := &backend.Viewer{}
	if len(issues) > limit {
		issues = issues[:limit]
	}
	for i := range issues {
		out.Issues = append(out.Issues, issues[i].view(v))
	}
	if out.NextCursor != "" {
		out.Cut("more issues match: call again with cursor set to nextCursor")
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// GetIssue returns issue details with the top values of its tags.
func (b *Backend) GetIssue(ctx context.Context, in backend.GetIssueInput) (*backend.IssueDetail, error) {
	if err := backend.CheckID("issueId", in.IssueID); err != nil {
		return nil, err
	}
	org, err := b.org(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	var issue apiIssue
	if _, err := b.get(ctx, "get issue "+in.IssueID, []string{"organizations", org, "issues", in.IssueID}, nil, &issue); err != nil {
		return nil, err
	}
	v := &backend.Viewer{}
	out := &backend.IssueDetail{Issue: issue.view(v)}
	var tags []apiTag
	q := url.Values{"limit": {strconv.Itoa(backend.TopTagValues)}}
	if _, err := b.get(ctx, "get tags of issue "+in.IssueID, []string{"organizations", org, "issues", in.IssueID, "tags"}, q, &tags); err != nil {
		if errors.Is(err, backend.ErrConfig) {
			return nil, err
		}
		out.Cut("the tag summary could not be read (" + err.Error() + "): get_tag_values reads one key")
	}
	sort.SliceStable(tags, func(i, j int) bool {
		ri, rj := tagRank(tags[i].Key), tagRank(tags[j].Key)
		if ri != rj {
			return ri < rj
		}
		return tags[i].TotalValues > tags[j].TotalValues
	})
	if len(tags) > backend.TopTagKeys {
		out.Cut(fmt.Sprintf("%d of %d tag keys shown: get_tag_values lists the values of any key", backend.TopTagKeys, len(tags)))
		tags = tags[:backend.TopTagKeys]
	}
	for _, t := range tags {
		sum := backend.TagSummary{Key: v.Text(t.Key, backend.CapName), TotalValues: int64(t.TotalValues), UniqueValues: int64(t.UniqueValues), TopValues: []backend.TagValue{}}
		for _, tv := range t.TopValues[:min(backend.TopTagValues, len(t.TopValues))] {
			sum.TopValues = append(sum.TopValues, tv.view(v, t.Key))
		}
		out.Tags = append(out.Tags, sum)
	}
	// Sentry's own counts for the timeline: "24h" is hourly, "30d" daily.
	out.Timeline = backend.MakeTimeline(b.now(), issue.FirstSeen.T, issue.Stats["24h"], issue.Stats["30d"])
	v.Finish(&out.Truncation)
	return out, nil
}

// now is the configured clock.
func (b *Backend) now() time.Time {
	if b.cfg.Now != nil {
		return b.cfg.Now()
	}
	return time.Now()
}

func tagRank(k string) int {
	for i, p := range backend.PriorityTags {
		if p == k {
			return i
		}
	}
	return len(backend.PriorityTags)
}

// GetEvent returns one event of an issue: latest, oldest or by id.
func (b *Backend) GetEvent(ctx context.Context, in backend.GetEventInput) (*backend.Event, error) {
	opts, err := backend.ResolveViewOptions(in)
	if err != nil {
		return nil, err
	}
	ref, err := backend.NormalizeEventRef(in.EventID)
	if err != nil {
		return nil, err
	}
	if err := backend.CheckID("issueId", in.IssueID); err != nil {
		return nil, err
	}
	org, err := b.org(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	var ev apiEvent
	if _, err := b.get(ctx, "get event "+ref+" of issue "+in.IssueID, []string{"organizations", org, "issues", in.IssueID, "events", ref}, nil, &ev); err != nil {
		return nil, err
	}
	d := ev.toEventData()
	if d.IssueID == "" {
		d.IssueID = in.IssueID
	}
	if hasFrames(d) {
		opts.Codes = opts.Codes.WithRepo(b.codeMappings(ctx, org, string(ev.ProjectID)))
	}
	return backend.ViewEvent(d, opts), nil
}

func hasFrames(d *event.Event) bool {
	for _, x := range d.Exceptions {
		if len(x.Frames) > 0 {
			return true
		}
	}
	return len(d.Stacktrace) > 0
}

// codeMappings returns the Sentry project's code mappings (stack root to a path in a
// repository, as set up under Settings > Integrations), cached for a few minutes.
// The endpoint is not in Sentry's published API reference (it serves Sentry's own
// UI) and needs org:read; when it fails the frames simply go without repository
// paths, so a failure is cached too and never fails get_event.
func (b *Backend) codeMappings(ctx context.Context, org, project string) []event.CodeMapping {
	if project == "" || backend.CheckID("project", project) != nil {
		return nil
	}
	key := org + "/" + project
	b.mu.Lock()
	if c, ok := b.mappings[key]; ok && time.Since(c.at) < cacheTTL {
		b.mu.Unlock()
		return c.list
	}
	b.mu.Unlock()
	var list []apiCodeMapping
	var out []event.CodeMapping
	q := url.Values{"project": {project}, "per_page": {"100"}}
	if _, err := b.get(ctx, "list code mappings of "+org, []string{"organizations", org, "code-mappings"}, q, &list); err != nil {
		b.logger.Debug("Sentry code mappings unavailable; frames get no repository paths", "organization", org, "project", project, "error", err.Error())
	}
	for _, m := range list {
		if string(m.ProjectID) != project || m.RepoName == "" {
			continue
		}
		out = append(out, event.CodeMapping{StackRoot: m.StackRoot, SourceRoot: m.RepoName + ":" + m.SourceRoot})
	}
	b.mu.Lock()
	b.mappings[key] = mappingCache{list: out, at: time.Now()}
	b.mu.Unlock()
	return out
}

// ListIssueEvents lists an issue's events, newest first.
func (b *Backend) ListIssueEvents(ctx context.Context, in backend.ListIssueEventsInput) (*backend.EventList, error) {
	if err := backend.CheckID("issueId", in.IssueID); err != nil {
		return nil, err
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if err := checkSentryCursor(in.Cursor); err != nil {
		return nil, err
	}
	org, err := b.org(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	q := url.Values{"per_page": {strconv.Itoa(limit)}}
	if in.Cursor != "" {
		q.Set("cursor", in.Cursor)
	}
	var events []apiEvent
	page, err := b.get(ctx, "list events of issue "+in.IssueID, []string{"organizations", org, "issues", in.IssueID, "events"}, q, &events)
	if err != nil {
		return nil, err
	}
	v := &backend.Viewer{}
	out := &backend.EventList{Events: []backend.EventSummary{}, NextCursor: page.NextCursor}
	if len(events) > limit {
		events = events[:limit]
	}
	for i := range events {
		out.Events = append(out.Events, events[i].summary(v))
	}
	if out.NextCursor != "" {
		out.Cut("more events: call again with cursor set to nextCursor")
	}
	v.Finish(&out.Truncation)
	return out, nil
}

var tagKeyPattern = lazyregexp.New(`^[A-Za-z0-9_.:-]{1,64}$`)

// GetTagValues lists one tag's values for an issue, most frequent first.
func (b *Backend) GetTagValues(ctx context.Context, in backend.GetTagValuesInput) (*backend.TagValueList, error) {
	if err := backend.CheckID("issueId", in.IssueID); err != nil {
		return nil, err
	}
	if !tagKeyPattern.MatchString(in.Key) {
		return nil, fmt.Errorf("%w: key %q is not a tag key: letters, digits, '_', '.', ':' and '-', such as environment or release", backend.ErrInvalidInput, backend.TruncateForError(in.Key))
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if err := checkSentryCursor(in.Cursor); err != nil {
		return nil, err
	}
	org, err := b.org(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	// Sentry's endpoint knows sort=count (times seen, descending), date (last seen) and
	// age (first seen), all descending; it orders any other value, "-count" included,
	// by first seen.
	q := url.Values{"sort": {"count"}, "per_page": {strconv.Itoa(limit)}}
	if in.Cursor != "" {
		q.Set("cursor", in.Cursor)
	}
	var values []apiTagValue
	page, err := b.get(ctx, "list values of tag "+in.Key, []string{"organizations", org, "issues", in.IssueID, "tags", in.Key, "values"}, q, &values)
	if err != nil {
		return nil, err
	}
	v := &backend.Viewer{}
	out := &backend.TagValueList{Key: v.Text(in.Key, backend.CapName), Values: []backend.TagValue{}, NextCursor: page.NextCursor}
	if in.Cursor == "" {
		var details apiTag
		if _, err := b.get(ctx, "get tag "+in.Key, []string{"organizations", org, "issues", in.IssueID, "tags", in.Key}, nil, &details); err == nil {
			out.TotalValues, out.UniqueValues = int64(details.TotalValues), int64(details.UniqueValues)
		}
	}
	if len(values) > limit {
		values = values[:limit]
	}
	for _, tv := range values {
		out.Values = append(out.Values, tv.view(v, in.Key))
	}
	if out.NextCursor != "" {
		out.Cut("more values: call again with cursor set to nextCursor")
	}
	v.Finish(&out.Truncation)
	return out, nil
}
