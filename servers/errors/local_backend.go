package errorserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpkit/reference/servers/errors/internal/eventlog"
)

// LocalOrganization is the one organization of the local store.
const LocalOrganization = "local"

func checkLocalOrg(org string) error {
	if org != "" && org != LocalOrganization {
		return fmt.Errorf("%w: organization %q: the local store has one organization, %q (or leave organization out)", ErrNotFound, truncateForError(org), LocalOrganization)
	}
	return nil
}

// ListProjects lists every project that has sent events.
func (s *LocalStore) ListProjects(ctx context.Context, in ListProjectsInput) (*ProjectList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	v := &viewer{}
	byID := map[string]*Project{}
	s.mu.RLock()
	for _, is := range s.idx.issues {
		p := byID[is.project]
		if p == nil {
			p = &Project{ID: v.text(is.project, capName), Slug: v.text(is.project, capName), Name: v.text(is.project, capName), Organization: LocalOrganization}
			byID[is.project] = p
		}
		p.Issues++
		p.Events += int64(len(is.events))
		if p.Platform == "" {
			p.Platform = v.text(is.platform, capName)
		}
	}
	s.mu.RUnlock()
	out := &ProjectList{Organizations: []Organization{{Slug: LocalOrganization, Name: "Local event store"}}, Projects: []Project{}}
	for _, p := range byID {
		out.Projects = append(out.Projects, *p)
	}
	sort.Slice(out.Projects, func(i, j int) bool { return out.Projects[i].ID < out.Projects[j].ID })
	if len(out.Projects) > 500 {
		out.Projects = out.Projects[:500]
		out.Cut("more than 500 projects: only the first 500 by id are listed")
	}
	v.finish(&out.Truncation)
	return out, nil
}

// SearchIssues filters issues with the local query subset (local_query.go).
func (s *LocalStore) SearchIssues(ctx context.Context, in SearchIssuesInput) (*IssueList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	now := s.now()
	win, err := resolveWindow(in.StatsPeriod, in.Start, in.End, now)
	if err != nil {
		return nil, err
	}
	limit, err := resolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	order, err := resolveSort(in.Sort)
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

	type hit struct {
		is    *issueState
		count int64
		users int64
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var hits []hit
	for _, is := range s.idx.issues {
		if is.lastSeen.Before(win.Start) || is.firstSeen.After(win.End) {
			continue
		}
		ok := true
		for i := range terms {
			if !terms[i].matches(is) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if c := is.countIn(win.Start, win.End); c > 0 {
			hits = append(hits, hit{is: is, count: c, users: is.userCount()})
		}
	}
	less := map[string]func(a, b hit) int{
		"date": func(a, b hit) int { return b.is.lastSeen.Compare(a.is.lastSeen) },
		"new":  func(a, b hit) int { return b.is.firstSeen.Compare(a.is.firstSeen) },
		"freq": func(a, b hit) int { return cmpInt(b.count, a.count) },
		"user": func(a, b hit) int { return cmpInt(b.users, a.users) },
	}[order]
	sort.Slice(hits, func(i, j int) bool {
		if c := less(hits[i], hits[j]); c != 0 {
			return c < 0
		}
		return hits[i].is.id < hits[j].is.id
	})
	out := &IssueList{Issues: []Issue{}, Notice: s.noticeLocked()}
	if cur.Offset > len(hits) {
		cur.Offset = len(hits)
	}
	end := min(cur.Offset+limit, len(hits))
	v := &viewer{}
	for _, h := range hits[cur.Offset:end] {
		out.Issues = append(out.Issues, viewLocalIssue(v, h.is, h.count))
	}
	if end < len(hits) {
		out.NextCursor = encodeCursor(localCursor{Scope: scope, Offset: end})
		out.Cut(fmt.Sprintf("%d more issues match: call again with cursor set to nextCursor", len(hits)-end))
	}
	v.finish(&out.Truncation)
	return out, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func viewLocalIssue(v *viewer, is *issueState, count int64) Issue {
	return Issue{
		ID:        is.id,
		ShortID:   v.text(is.shortID, capName),
		Title:     v.secretText(is.title, capTitle),
		Culprit:   v.text(is.culprit, capName),
		Type:      v.text(is.typ, capName),
		Value:     v.secretText(is.value, capTitle),
		Level:     v.text(is.level, capName),
		Status:    "unresolved",
		Project:   v.text(is.project, capName),
		Platform:  v.text(is.platform, capName),
		Count:     count,
		UserCount: is.userCount(),
		FirstSeen: fmtTime(is.firstSeen),
		LastSeen:  fmtTime(is.lastSeen),
	}
}

// findIssueLocked resolves an issue id or short id.
func (s *LocalStore) findIssueLocked(id string) (*issueState, error) {
	if err := checkID("issueId", id); err != nil {
		return nil, err
	}
	if is := s.idx.issues[strings.ToLower(id)]; is != nil {
		return is, nil
	}
	for _, is := range s.idx.issues {
		if strings.EqualFold(is.shortID, id) {
			return is, nil
		}
	}
	return nil, fmt.Errorf("%w: no issue %q in the local store: take an id from search_issues (its events may have been dropped by retention)", ErrNotFound, id)
}

// priorityTags come first in an issue's tag summary: what triage asks first.
var priorityTags = []string{"environment", "release", "level", "handled", "mechanism", "server_name", "transaction", "url", "user", "os.name", "runtime", "browser"}

// GetIssue returns an issue with the top values of its tags.
func (s *LocalStore) GetIssue(ctx context.Context, in GetIssueInput) (*IssueDetail, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	is, err := s.findIssueLocked(in.IssueID)
	if err != nil {
		return nil, err
	}
	v := &viewer{}
	out := &IssueDetail{Issue: viewLocalIssue(v, is, int64(len(is.events))), Notice: s.noticeLocked()}
	keys := make([]string, 0, len(is.tags))
	for k := range is.tags {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		for i, p := range priorityTags {
			if p == k {
				return i
			}
		}
		return len(priorityTags)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		if ti, tj := is.tags[keys[i]].total, is.tags[keys[j]].total; ti != tj {
			return ti > tj
		}
		return keys[i] < keys[j]
	})
	if len(keys) > topTagKeys {
		out.Cut(fmt.Sprintf("%d of %d tag keys shown: get_tag_values lists the values of any key", topTagKeys, len(keys)))
		keys = keys[:topTagKeys]
	}
	for _, k := range keys {
		ts := is.tags[k]
		vals := sortedValues(ts)
		sum := TagSummary{Key: v.text(k, capName), TotalValues: ts.total, UniqueValues: int64(len(ts.values)), TopValues: []TagValue{}}
		for _, tv := range vals[:min(topTagValues, len(vals))] {
			sum.TopValues = append(sum.TopValues, v.countedTagValue(k, tv.value, tv.count, tv.first, tv.last))
		}
		out.Tags = append(out.Tags, sum)
	}
	v.finish(&out.Truncation)
	return out, nil
}

type namedValue struct {
	value string
	*valueStats
}

func sortedValues(ts *tagStats) []namedValue {
	out := make([]namedValue, 0, len(ts.values))
	for val, vs := range ts.values {
		out = append(out, namedValue{val, vs})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].value < out[j].value
	})
	return out
}

// GetEvent reads one event of an issue from disk.
func (s *LocalStore) GetEvent(ctx context.Context, in GetEventInput) (*Event, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	opts, err := resolveViewOptions(in)
	if err != nil {
		return nil, err
	}
	ref, err := normalizeEventRef(in.EventID)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	is, err := s.findIssueLocked(in.IssueID)
	if err != nil {
		s.mu.RUnlock()
		return nil, err
	}
	var ev *indexedEvent
	switch ref {
	case "latest":
		ev = is.events[len(is.events)-1]
	case "oldest":
		ev = is.events[0]
	default:
		ev = s.idx.events[ref]
		if ev == nil || ev.issue != is {
			s.mu.RUnlock()
			return nil, fmt.Errorf("%w: issue %s has no event %s: take an id from list_issue_events", ErrNotFound, in.IssueID, ref)
		}
	}
	pos, issueID := ev.pos, is.id
	s.mu.RUnlock()
	b, err := s.log.Read(pos)
	if errors.Is(err, eventlog.ErrDropped) {
		return nil, fmt.Errorf("%w: event %s was dropped by retention just now: ask for latest", ErrNotFound, ev.id)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading the stored event: %v", ErrUnavailable, err)
	}
	e, err := decodeStoredDetail(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	e.IssueID = issueID
	return viewEvent(e, opts), nil
}

// ListIssueEvents lists an issue's events newest first, keyset-paged.
func (s *LocalStore) ListIssueEvents(ctx context.Context, in ListIssueEventsInput) (*EventList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	limit, err := resolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	is, err := s.findIssueLocked(in.IssueID)
	if err != nil {
		return nil, err
	}
	scope := cursorScope("events", is.id)
	cur, err := decodeCursor(in.Cursor, scope)
	if err != nil {
		return nil, err
	}
	end := len(is.events) // events[:end] are older than the cursor
	if cur.Segment > 0 {
		end = sort.Search(len(is.events), func(i int) bool {
			p := is.events[i].pos
			return p.Segment > cur.Segment || (p.Segment == cur.Segment && p.Offset >= cur.At)
		})
	}
	v := &viewer{}
	out := &EventList{Events: []EventSummary{}, Notice: s.noticeLocked()}
	i := end - 1
	for ; i >= 0 && len(out.Events) < limit; i-- {
		ev := is.events[i]
		out.Events = append(out.Events, EventSummary{
			ID:          ev.id,
			Timestamp:   fmtTime(ev.timestamp),
			Title:       v.secretText(is.title, capTitle),
			Message:     v.secretText(ev.message, capTitle),
			Level:       v.text(ev.level, capName),
			Environment: v.tagValue("environment", pairValue(ev.tags, "environment")),
			Release:     v.tagValue("release", pairValue(ev.tags, "release")),
			User:        v.tagValue("user", pairValue(ev.tags, "user")),
		})
	}
	if i >= 0 {
		last := is.events[i+1].pos
		out.NextCursor = encodeCursor(localCursor{Scope: scope, Segment: last.Segment, At: last.Offset})
		out.Cut(fmt.Sprintf("%d older events: call again with cursor set to nextCursor", i+1))
	}
	v.finish(&out.Truncation)
	return out, nil
}

func pairValue(p []tagPair, key string) string {
	for _, t := range p {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// GetTagValues lists one tag's values across an issue's stored events.
func (s *LocalStore) GetTagValues(ctx context.Context, in GetTagValuesInput) (*TagValueList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Key) == "" || len(in.Key) > ingestMaxTagKey {
		return nil, fmt.Errorf("%w: key is required: a tag key such as environment or release (get_issue lists an issue's keys)", ErrInvalidInput)
	}
	limit, err := resolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	is, err := s.findIssueLocked(in.IssueID)
	if err != nil {
		return nil, err
	}
	ts := is.tags[in.Key]
	if ts == nil {
		keys := make([]string, 0, len(is.tags))
		for k := range is.tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		list := (&viewer{}).text(strings.Join(keys, ", "), 2000)
		return nil, fmt.Errorf("%w: issue %s has no tag %q; its tags are: %s", ErrNotFound, in.IssueID, truncateForError(in.Key), list)
	}
	scope := cursorScope("tagvalues", is.id, in.Key)
	cur, err := decodeCursor(in.Cursor, scope)
	if err != nil {
		return nil, err
	}
	v := &viewer{}
	vals := sortedValues(ts)
	out := &TagValueList{Key: v.text(in.Key, capName), TotalValues: ts.total, UniqueValues: int64(len(ts.values)), Values: []TagValue{}}
	start := min(cur.Offset, len(vals))
	end := min(start+limit, len(vals))
	for _, nv := range vals[start:end] {
		out.Values = append(out.Values, v.countedTagValue(in.Key, nv.value, nv.count, nv.first, nv.last))
	}
	if end < len(vals) {
		out.NextCursor = encodeCursor(localCursor{Scope: scope, Offset: end})
		out.Cut(fmt.Sprintf("%d more values: call again with cursor set to nextCursor", len(vals)-end))
	}
	if ts.overflow > 0 {
		out.Cut(fmt.Sprintf("%d events had values beyond the first %d distinct values counted for this issue", ts.overflow, maxTagValuesPerIssue))
	}
	v.finish(&out.Truncation)
	return out, nil
}
