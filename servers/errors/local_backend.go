package errorserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
)

// LocalOrganization is the one organization of the local store.
const LocalOrganization = "local"

func checkLocalOrg(org string) error {
	if org != "" && org != LocalOrganization {
		return fmt.Errorf("%w: organization %q: the local store has one organization, %q (or leave organization out)", backend.ErrNotFound, backend.TruncateForError(org), LocalOrganization)
	}
	return nil
}

// queryFailed reports a database error as the backend being unavailable.
func queryFailed(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s: %v", backend.ErrUnavailable, what, err)
	}
	return fmt.Errorf("%w: %s: the store's database answered %v", backend.ErrUnavailable, what, err)
}

func nsTime(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// ListProjects lists every project that has sent events.
func (s *LocalStore) ListProjects(ctx context.Context, in backend.ListProjectsInput) (*backend.ProjectList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	// A project's platform is the one most of its events have (each issue's events
	// counted under the issue's platform; ties go to the first by name), not the
	// latest event's: a Go service with one stray Python event is a Go project.
	rows, err := s.db.QueryContext(ctx, `SELECT project, count(*), sum(times_seen),
		(SELECT p.platform FROM issues p WHERE p.project = issues.project GROUP BY p.platform ORDER BY sum(p.times_seen) DESC, p.platform LIMIT 1)
		FROM issues GROUP BY project ORDER BY project LIMIT 501`)
	if err != nil {
		return nil, queryFailed("list projects", err)
	}
	defer rows.Close()
	v := &backend.Viewer{}
	out := &backend.ProjectList{Organizations: []backend.Organization{{Slug: LocalOrganization, Name: "Local event store"}}, Projects: []backend.Project{}}
	for rows.Next() {
		var project, platform string
		var issues int
		var events int64
		if err := rows.Scan(&project, &issues, &events, &platform); err != nil {
			return nil, queryFailed("list projects", err)
		}
		name := v.Text(project, backend.CapName)
		out.Projects = append(out.Projects, backend.Project{ID: name, Slug: name, Name: name, Organization: LocalOrganization, Platform: v.Text(platform, backend.CapName), Issues: issues, Events: events})
	}
	if err := rows.Err(); err != nil {
		return nil, queryFailed("list projects", err)
	}
	if err := s.addItemKinds(ctx, v, out); err != nil {
		return nil, queryFailed("list projects", err)
	}
	if len(out.Projects) > 500 {
		out.Projects = out.Projects[:500]
		out.Cut("more than 500 projects: only the first 500 by id are listed")
	}
	v.Finish(&out.Truncation)
	return out, nil
}

const (
	hourNs = spanHour * int64(time.Second)
	dayNs  = spanDay * int64(time.Second)
)

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// windowSQL is a query of (issue, cnt): the events of each issue whose event time is
// in [start, end]. Whole days and hours inside the window are read from the count
// buckets; only the ragged edges (less than an hour at each end) count events.
func windowSQL(start, end time.Time) (string, []any) {
	from, to := start.UnixNano(), end.UnixNano()+1 // [from, to)
	var parts []string
	var args []any
	exact := func(a, b int64) {
		if a < b {
			parts = append(parts, `SELECT issue, 1 AS c FROM events WHERE ts >= ? AND ts < ?`)
			args = append(args, a, b)
		}
	}
	buckets := func(span, lo, hi int64) {
		if lo < hi {
			parts = append(parts, `SELECT issue, n AS c FROM issue_counts WHERE span = ? AND bucket >= ? AND bucket < ?`)
			args = append(args, span, lo, hi)
		}
	}
	hours := func(a, b int64) {
		h0, h1 := ceilDiv(a, hourNs), floorDiv(b, hourNs)
		if h0 >= h1 {
			exact(a, b)
			return
		}
		exact(a, h0*hourNs)
		buckets(spanHour, h0, h1)
		exact(h1*hourNs, b)
	}
	d0, d1 := ceilDiv(from, dayNs), floorDiv(to, dayNs)
	if d0 < d1 {
		hours(from, d0*dayNs)
		buckets(spanDay, d0, d1)
		hours(d1*dayNs, to)
	} else {
		hours(from, to)
	}
	return `SELECT issue, sum(c) AS cnt FROM (` + strings.Join(parts, ` UNION ALL `) + `) GROUP BY issue`, args
}

var searchOrder = map[string]string{
	"date": "i.last_seen DESC",
	"new":  "i.first_seen DESC",
	"freq": "w.cnt DESC",
	"user": "users DESC",
}

// SearchIssues filters issues with the local query subset (local_query.go), in SQL.
func (s *LocalStore) SearchIssues(ctx context.Context, in backend.SearchIssuesInput) (*backend.IssueList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	now := s.now()
	win, err := backend.ResolveWindow(in.StatsPeriod, in.Start, in.End, now)
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
	terms, err := parseQuery(in.Query, now)
	if err != nil {
		return nil, err
	}
	if len(in.Environment) > 0 {
		p, exact := tagMatchers(in.Environment)
		terms = append(terms, queryTerm{kind: termTag, key: "environment", patterns: p, exact: exact})
	}
	if len(in.Project) > 0 {
		terms = append(terms, queryTerm{kind: termProject, patterns: globs(in.Project)})
	}
	scope := cursorScope("search", in.Query, win.Period, in.Start, in.End, order, strings.Join(in.Environment, ","), strings.Join(in.Project, ","))
	cur, err := decodeCursor(in.Cursor, scope)
	if err != nil {
		return nil, err
	}
	wq, args := windowSQL(win.Start, win.End)
	usersSQL, userArgs := windowUsersSQL(win.Start, win.End)
	args = append(args, userArgs...)
	conds := []string{"1"}
	for i := range terms {
		c, a := terms[i].sql()
		conds = append(conds, c)
		args = append(args, a...)
	}
	q := `WITH w AS MATERIALIZED (` + wq + `)
SELECT i.id, i.short_id, i.title, i.culprit, i.type, i.value, i.level, i.project, i.platform, i.first_seen, i.last_seen, w.cnt,
	` + usersSQL + ` AS users, count(*) OVER () AS total
FROM w JOIN issues i ON i.n = w.issue
WHERE ` + strings.Join(conds, " AND ") + `
ORDER BY ` + searchOrder[order] + `, i.id
LIMIT ? OFFSET ?`
	args = append(args, limit, cur.Offset)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, queryFailed("search issues", err)
	}
	defer rows.Close()
	out := &backend.IssueList{Issues: []backend.Issue{}, Notice: s.notice(ctx)}
	v := &backend.Viewer{Page: in.Page}
	total := 0
	for rows.Next() {
		var r issueRow
		if err := rows.Scan(&r.id, &r.shortID, &r.title, &r.culprit, &r.typ, &r.value, &r.level, &r.project, &r.platform, &r.firstSeen, &r.lastSeen, &r.count, &r.users, &total); err != nil {
			return nil, queryFailed("search issues", err)
		}
		out.Issues = append(out.Issues, viewLocalIssue(v, &r))
	}
	if err := rows.Err(); err != nil {
		return nil, queryFailed("search issues", err)
	}
	if end := cur.Offset + len(out.Issues); end < total {
		out.NextCursor = encodeCursor(localCursor{Scope: scope, Offset: end})
		out.Cut(fmt.Sprintf("%d more issues match: call again with cursor set to nextCursor", total-end))
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// windowUsersSQL counts the users of issue i with an event in [start, end], the
// window its events are counted over, so that "3 events, 4 users" cannot happen (as
// Sentry counts both). A counted user (issue_tags) is in the window when its first or
// last event is; only a user seen both before and after the window needs a look at
// the issue's events in it. Users of events not counted yet (another process writes:
// see pendingTags) are added by the UNION, which keeps each user once; +e.issue and
// +e.ts: the few events past tags_through are read by their rowid (an index on the
// window's times would read every event in it, for every issue). Users past the per-issue
// value cap are not counted, as in get_issue.
func windowUsersSQL(start, end time.Time) (string, []any) {
	from, to := start.UnixNano(), end.UnixNano()+1 // [from, to), as windowSQL
	return `(SELECT count(*) FROM (
	SELECT t.value FROM issue_tags t WHERE t.issue = i.n AND t.key = 'user' AND t.first_seen < ? AND t.last_seen >= ?
		AND (t.first_seen >= ? OR t.last_seen < ?
			OR EXISTS (SELECT 1 FROM events e WHERE e.issue = i.n AND e.ts >= ? AND e.ts < ? AND e.user = t.value))
	UNION
	SELECT j.value FROM events e, json_each(e.tags) j
		WHERE e.n > ` + tagsThroughSQL + ` AND +e.issue = i.n AND j.key = 'user' AND +e.ts >= ? AND +e.ts < ?))`, []any{to, from, from, to, from, to, from, to}
}

// issueRow is an issue as the queries read it.
type issueRow struct {
	n                                       int64
	id, shortID, title, culprit, typ, value string
	level, project, platform                string
	firstSeen, lastSeen, count, users       int64
}

func viewLocalIssue(v *backend.Viewer, r *issueRow) backend.Issue {
	return backend.Issue{
		ID:        r.id,
		ShortID:   v.Text(r.shortID, backend.CapName),
		Title:     v.SecretText(r.title, backend.CapTitle),
		Culprit:   v.Text(r.culprit, backend.CapName),
		Type:      v.Text(r.typ, backend.CapName),
		Value:     v.SecretText(r.value, backend.CapTitle),
		Level:     v.Text(r.level, backend.CapName),
		Status:    "unresolved",
		Project:   v.Text(r.project, backend.CapName),
		Platform:  v.Text(r.platform, backend.CapName),
		Count:     r.count,
		UserCount: r.users,
		FirstSeen: backend.FormatTime(nsTime(r.firstSeen)),
		LastSeen:  backend.FormatTime(nsTime(r.lastSeen)),
	}
}

// findIssue resolves an issue id or short id.
func (s *LocalStore) findIssue(ctx context.Context, id string) (*issueRow, error) {
	if err := backend.CheckID("issueId", id); err != nil {
		return nil, err
	}
	var r issueRow
	err := s.db.QueryRowContext(ctx, `SELECT i.n, i.id, i.short_id, i.title, i.culprit, i.type, i.value, i.level, i.project, i.platform, i.first_seen, i.last_seen, i.times_seen,
		coalesce((SELECT uniq FROM issue_tag_keys WHERE issue = i.n AND key = 'user'), 0)
		FROM issues i WHERE i.id = ? OR i.short_id = ? COLLATE NOCASE ORDER BY i.id = ? DESC LIMIT 1`, strings.ToLower(id), id, strings.ToLower(id)).
		Scan(&r.n, &r.id, &r.shortID, &r.title, &r.culprit, &r.typ, &r.value, &r.level, &r.project, &r.platform, &r.firstSeen, &r.lastSeen, &r.count, &r.users)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no issue %q in the local store: take an id from search_issues (its events may have been dropped by retention)", backend.ErrNotFound, id)
	}
	if err != nil {
		return nil, queryFailed("find issue", err)
	}
	return &r, nil
}

type tagKeyRow struct {
	key                   string
	total, uniq, overflow int64
}

// issueTags reads an issue's tag counts in one snapshot: the counted ones
// (issue_tag_keys, issue_tags) plus the tags of its events committed since they were
// last counted. The process that writes counts them a moment after the commit (see
// pendingTags), and a reader in another process must not show the counts of only a
// part of the events (a tag on 13 of 30 events when it is on all 30).
type issueTags struct {
	tx    *sql.Tx
	issue int64
	keys  []tagKeyRow
	// pending are the uncounted tag values by key, within the per-issue caps as the
	// writer will count them.
	pending map[string][]pendingTagRow
}

type pendingTagRow struct {
	value          string
	n, first, last int64
	counted        bool // the value has a row in issue_tags
}

func (s *LocalStore) openIssueTags(ctx context.Context, issue int64) (*issueTags, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	t := &issueTags{tx: tx, issue: issue, pending: map[string][]pendingTagRow{}}
	if err := t.load(ctx); err != nil {
		tx.Rollback()
		return nil, err
	}
	return t, nil
}

func (t *issueTags) close() { t.tx.Rollback() }

func (t *issueTags) load(ctx context.Context) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT key, total, uniq, overflow FROM issue_tag_keys WHERE issue = ?`, t.issue)
	if err != nil {
		return err
	}
	defer rows.Close()
	byKey := map[string]int{}
	for rows.Next() {
		var k tagKeyRow
		if err := rows.Scan(&k.key, &k.total, &k.uniq, &k.overflow); err != nil {
			return err
		}
		byKey[k.key] = len(t.keys)
		t.keys = append(t.keys, k)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	prows, err := t.tx.QueryContext(ctx, `SELECT j.key, j.value, count(*), min(e.ts), max(e.ts),
		EXISTS (SELECT 1 FROM issue_tags t WHERE t.issue = ? AND t.key = j.key AND t.value = j.value)
		FROM events e, json_each(e.tags) j WHERE +e.issue = ? AND e.n > `+tagsThroughSQL+`
		GROUP BY j.key, j.value ORDER BY j.key, j.value`, t.issue, t.issue)
	if err != nil {
		return err
	}
	defer prows.Close()
	for prows.Next() {
		var key string
		var r pendingTagRow
		if err := prows.Scan(&key, &r.value, &r.n, &r.first, &r.last, &r.counted); err != nil {
			return err
		}
		i, ok := byKey[key]
		if !ok {
			if len(t.keys) >= maxTagKeysPerIssue {
				continue // past the per-issue key cap: not counted
			}
			i = len(t.keys)
			byKey[key] = i
			t.keys = append(t.keys, tagKeyRow{key: key})
		}
		k := &t.keys[i]
		k.total += r.n
		if !r.counted {
			if k.uniq >= maxTagValuesPerIssue {
				k.overflow += r.n
				continue
			}
			k.uniq++
		}
		t.pending[key] = append(t.pending[key], r)
	}
	return prows.Err()
}

// key returns one key's counts (ok false: the issue has no such tag).
func (t *issueTags) key(key string) (tagKeyRow, bool) {
	for _, k := range t.keys {
		if k.key == key {
			return k, true
		}
	}
	return tagKeyRow{}, false
}

// values reads one page of the issue's values of key, most frequent first.
func (t *issueTags) values(ctx context.Context, key string, limit, offset int) ([]tagValueRow, error) {
	pending := t.pending[key]
	q, args := `SELECT value, n, first_seen, last_seen FROM issue_tags WHERE issue = ? AND key = ? ORDER BY n DESC, value LIMIT ? OFFSET ?`, []any{t.issue, key, limit, offset}
	if len(pending) > 0 {
		q, args = `SELECT value, n, first_seen, last_seen FROM issue_tags WHERE issue = ? AND key = ?`, []any{t.issue, key}
	}
	rows, err := t.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tagValueRow
	for rows.Next() {
		var r tagValueRow
		if err := rows.Scan(&r.value, &r.n, &r.first, &r.last); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil || len(pending) == 0 {
		return out, err
	}
	at := make(map[string]int, len(out))
	for i, r := range out {
		at[r.value] = i
	}
	for _, p := range pending {
		if i, ok := at[p.value]; ok {
			r := &out[i]
			r.n += p.n
			r.first, r.last = min(r.first, p.first), max(r.last, p.last)
			continue
		}
		at[p.value] = len(out)
		out = append(out, tagValueRow{value: p.value, n: p.n, first: p.first, last: p.last})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].value < out[j].value
	})
	if offset >= len(out) {
		return nil, nil
	}
	return out[offset:min(len(out), offset+limit)], nil
}

// GetIssue returns an issue with the top values of its tags.
func (s *LocalStore) GetIssue(ctx context.Context, in backend.GetIssueInput) (*backend.IssueDetail, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	is, err := s.findIssue(ctx, in.IssueID)
	if err != nil {
		return nil, err
	}
	tags, err := s.openIssueTags(ctx, is.n)
	if err != nil {
		return nil, queryFailed("get issue", err)
	}
	defer tags.close()
	// The issue's count and users as of the tags' snapshot.
	if err := tags.tx.QueryRowContext(ctx, `SELECT times_seen, first_seen, last_seen FROM issues WHERE n = ?`, is.n).Scan(&is.count, &is.firstSeen, &is.lastSeen); err != nil {
		return nil, queryFailed("get issue", err)
	}
	users, _ := tags.key("user")
	is.users = users.uniq
	keys := tags.keys
	v := &backend.Viewer{Page: in.Page}
	out := &backend.IssueDetail{Issue: viewLocalIssue(v, is), Notice: s.notice(ctx)}
	rank := func(k string) int {
		for i, p := range backend.PriorityTags {
			if p == k {
				return i
			}
		}
		return len(backend.PriorityTags)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i].key), rank(keys[j].key)
		if ri != rj {
			return ri < rj
		}
		if keys[i].total != keys[j].total {
			return keys[i].total > keys[j].total
		}
		return keys[i].key < keys[j].key
	})
	if len(keys) > backend.TopTagKeys {
		out.Cut(fmt.Sprintf("%d of %d tag keys shown: get_tag_values lists the values of any key", backend.TopTagKeys, len(keys)))
		keys = keys[:backend.TopTagKeys]
	}
	for _, k := range keys {
		vals, err := tags.values(ctx, k.key, backend.TopTagValues, 0)
		if err != nil {
			return nil, queryFailed("get issue", err)
		}
		sum := backend.TagSummary{Key: v.Text(k.key, backend.CapName), TotalValues: k.total, UniqueValues: k.uniq, TopValues: []backend.TagValue{}}
		for _, tv := range vals {
			sum.TopValues = append(sum.TopValues, v.CountedTagValue(k.key, tv.value, tv.n, nsTime(tv.first), nsTime(tv.last)))
		}
		out.Tags = append(out.Tags, sum)
	}
	if out.Timeline, err = s.timeline(ctx, is.n, nsTime(is.firstSeen)); err != nil {
		return nil, queryFailed("get issue", err)
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// timeline reads an issue's hourly and daily counts for get_issue's timeline: one
// primary-key lookup per bucket (span, bucket, issue), 54 in all, however many events
// or issues the store holds.
func (s *LocalStore) timeline(ctx context.Context, issue int64, firstSeen time.Time) (*backend.Timeline, error) {
	now := s.now()
	h0, d0 := backend.TimelineBuckets(now)
	var args []any
	list := func(span int64, first time.Time, n int) string {
		args = append(args, span)
		b := first.Unix() / span
		for i := range n {
			args = append(args, b+int64(i))
		}
		args = append(args, issue)
		return `SELECT span, bucket, n FROM issue_counts WHERE span = ? AND bucket IN (` + placeholders(n) + `) AND issue = ?`
	}
	q := list(spanHour, h0, backend.TimelineHours) + ` UNION ALL ` + list(spanDay, d0, backend.TimelineDays)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hours, days []backend.Point
	for rows.Next() {
		var span, bucket, n int64
		if err := rows.Scan(&span, &bucket, &n); err != nil {
			return nil, err
		}
		p := backend.Point{At: time.Unix(bucket*span, 0).UTC(), N: n}
		if span == spanHour {
			hours = append(hours, p)
		} else {
			days = append(days, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return backend.MakeTimeline(now, firstSeen, hours, days), nil
}

type tagValueRow struct {
	value          string
	n, first, last int64
}

// GetEvent reads one event of an issue.
func (s *LocalStore) GetEvent(ctx context.Context, in backend.GetEventInput) (*backend.Event, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	opts, err := backend.ResolveViewOptions(in)
	if err != nil {
		return nil, err
	}
	ref, err := backend.NormalizeEventRef(in.EventID)
	if err != nil {
		return nil, err
	}
	is, err := s.findIssue(ctx, in.IssueID)
	if err != nil {
		return nil, err
	}
	var body []byte
	switch ref {
	case "latest":
		err = s.db.QueryRowContext(ctx, `SELECT body FROM events WHERE issue = ? ORDER BY ts DESC, n DESC LIMIT 1`, is.n).Scan(&body)
	case "oldest":
		err = s.db.QueryRowContext(ctx, `SELECT body FROM events WHERE issue = ? ORDER BY ts, n LIMIT 1`, is.n).Scan(&body)
	default:
		err = s.db.QueryRowContext(ctx, `SELECT body FROM events WHERE event_id = ? AND issue = ?`, ref, is.n).Scan(&body)
	}
	if errors.Is(err, sql.ErrNoRows) {
		if ref == "latest" || ref == "oldest" {
			return nil, fmt.Errorf("%w: the events of issue %s were dropped by retention just now", backend.ErrNotFound, in.IssueID)
		}
		return nil, fmt.Errorf("%w: issue %s has no event %s: take an id from list_issue_events", backend.ErrNotFound, in.IssueID, ref)
	}
	if err != nil {
		return nil, queryFailed("get event", err)
	}
	var e event.Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: the stored event is unreadable: %v", backend.ErrUnavailable, err)
	}
	e.IssueID = is.id
	ev := backend.ViewEvent(&e, opts)
	if ev.Trace != "" {
		ev.TraceSpans = s.traceSpans(ctx, ev.Trace)
	}
	return ev, nil
}

// ListIssueEvents lists an issue's events newest first (by event time), keyset-paged.
func (s *LocalStore) ListIssueEvents(ctx context.Context, in backend.ListIssueEventsInput) (*backend.EventList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	is, err := s.findIssue(ctx, in.IssueID)
	if err != nil {
		return nil, err
	}
	scope := cursorScope("events", is.id)
	cur, err := decodeCursor(in.Cursor, scope)
	if err != nil {
		return nil, err
	}
	after, args := "", []any{is.n}
	if cur.Row > 0 {
		after = ` AND (ts < ? OR (ts = ? AND n < ?))`
		args = append(args, cur.TS, cur.TS, cur.Row)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT n, event_id, ts, level, message, environment, release, user FROM events WHERE issue = ?`+after+` ORDER BY ts DESC, n DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, queryFailed("list issue events", err)
	}
	defer rows.Close()
	v := &backend.Viewer{Page: in.Page}
	out := &backend.EventList{Events: []backend.EventSummary{}, Notice: s.notice(ctx)}
	var lastTS, lastRow int64
	more := false
	for rows.Next() {
		if len(out.Events) == limit {
			more = true
			break
		}
		var n, ts int64
		var id, level, message, env, release, user string
		if err := rows.Scan(&n, &id, &ts, &level, &message, &env, &release, &user); err != nil {
			return nil, queryFailed("list issue events", err)
		}
		lastTS, lastRow = ts, n
		out.Events = append(out.Events, backend.EventSummary{
			ID:          id,
			Timestamp:   backend.FormatTime(nsTime(ts)),
			Title:       v.SecretText(is.title, backend.CapTitle),
			Message:     v.SecretText(message, backend.CapTitle),
			Level:       v.Text(level, backend.CapName),
			Environment: v.TagValue("environment", env),
			Release:     v.TagValue("release", release),
			User:        v.TagValue("user", user),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, queryFailed("list issue events", err)
	}
	rows.Close()
	if more {
		var older int64
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE issue = ? AND (ts < ? OR (ts = ? AND n < ?))`, is.n, lastTS, lastTS, lastRow).Scan(&older); err != nil {
			return nil, queryFailed("list issue events", err)
		}
		out.NextCursor = encodeCursor(localCursor{Scope: scope, TS: lastTS, Row: lastRow})
		out.Cut(fmt.Sprintf("%d older events: call again with cursor set to nextCursor", older))
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// GetTagValues lists one tag's values across an issue's stored events.
func (s *LocalStore) GetTagValues(ctx context.Context, in backend.GetTagValuesInput) (*backend.TagValueList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Key) == "" || len(in.Key) > event.MaxTagKey {
		return nil, fmt.Errorf("%w: key is required: a tag key such as environment or release (get_issue lists an issue's keys)", backend.ErrInvalidInput)
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	is, err := s.findIssue(ctx, in.IssueID)
	if err != nil {
		return nil, err
	}
	tags, err := s.openIssueTags(ctx, is.n)
	if err != nil {
		return nil, queryFailed("get tag values", err)
	}
	defer tags.close()
	k, ok := tags.key(in.Key)
	if !ok {
		keys := make([]string, 0, len(tags.keys))
		for _, k := range tags.keys {
			keys = append(keys, k.key)
		}
		sort.Strings(keys)
		list := (&backend.Viewer{}).Text(strings.Join(keys, ", "), 2000)
		return nil, fmt.Errorf("%w: issue %s has no tag %q; its tags are: %s", backend.ErrNotFound, in.IssueID, backend.TruncateForError(in.Key), list)
	}
	scope := cursorScope("tagvalues", is.id, in.Key)
	cur, err := decodeCursor(in.Cursor, scope)
	if err != nil {
		return nil, err
	}
	vals, err := tags.values(ctx, in.Key, limit, cur.Offset)
	if err != nil {
		return nil, queryFailed("get tag values", err)
	}
	v := &backend.Viewer{}
	out := &backend.TagValueList{Key: v.Text(in.Key, backend.CapName), TotalValues: k.total, UniqueValues: k.uniq, Values: []backend.TagValue{}}
	for _, tv := range vals {
		out.Values = append(out.Values, v.CountedTagValue(in.Key, tv.value, tv.n, nsTime(tv.first), nsTime(tv.last)))
	}
	if end := cur.Offset + len(vals); int64(end) < k.uniq {
		out.NextCursor = encodeCursor(localCursor{Scope: scope, Offset: end})
		out.Cut(fmt.Sprintf("%d more values: call again with cursor set to nextCursor", k.uniq-int64(end)))
	}
	if k.overflow > 0 {
		out.Cut(fmt.Sprintf("%d events had values beyond the first %d distinct values counted for this issue", k.overflow, maxTagValuesPerIssue))
	}
	v.Finish(&out.Truncation)
	return out, nil
}
