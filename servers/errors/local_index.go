package errorserver

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/eventlog"
)

// Bounds on what the index counts per issue; values past them are counted as "other"
// (and reported as truncated) instead of growing memory with every unique request id.
const (
	maxTagKeysPerIssue   = 100
	maxTagValuesPerIssue = 1000
)

// indexedEvent is what stays in memory per stored event: enough to list, filter and
// count, plus where the full event is on disk.
type indexedEvent struct {
	id        string
	issue     *issueState
	pos       eventlog.Pos
	received  time.Time // never earlier than the issue's previous event (see add)
	timestamp time.Time
	level     string
	message   string
	tags      []tagPair
}

type valueStats struct {
	count       int64
	first, last time.Time
}

type tagStats struct {
	values   map[string]*valueStats
	total    int64
	overflow int64 // events whose value was not counted individually
}

// issueState is one issue: its events in log order and its tag counts.
type issueState struct {
	id, shortID, project                        string
	title, culprit, typ, value, level, platform string
	message                                     string
	searchText                                  string // lower-cased text fields, for free-text search
	firstSeen, lastSeen                         time.Time
	events                                      []*indexedEvent
	tags                                        map[string]*tagStats
	tagKeysCut                                  bool
}

// index is the in-memory view of the store, rebuilt by replay on open.
type index struct {
	issues map[string]*issueState
	events map[string]*indexedEvent
	intern map[string]string
	// tagValues maps a stored tag (key, value) to its value as the index keeps it.
	tagValues map[tagPair]string
}

func newIndex() *index {
	return &index{issues: map[string]*issueState{}, events: map[string]*indexedEvent{}, intern: map[string]string{}, tagValues: map[tagPair]string{}}
}

// tagValue is the value of a stored tag as the index counts and searches it: redacted
// by redactValue like every view of it. Ingest redacts tags before they are stored,
// but events stored by an earlier version, or under a rule that has grown since, are
// redacted here too, so a search cannot probe a value the tools hide
// (session_id:*abc*). The result is cached per distinct stored tag, so replay pays
// one map lookup per tag value in place of the interning lookup it replaces.
func (x *index) tagValue(key, stored string) string {
	k := tagPair{Key: key, Value: stored}
	if v, ok := x.tagValues[k]; ok {
		return v
	}
	v := x.str(redactValue(key, stored))
	if len(x.tagValues) < 1<<20 {
		x.tagValues[k] = v
	}
	return v
}

// str shares one copy of repeated strings (tag keys and values, levels, projects).
func (x *index) str(s string) string {
	if v, ok := x.intern[s]; ok {
		return v
	}
	if len(x.intern) < 1<<20 {
		x.intern[s] = s
	}
	return s
}

func (x *index) has(id string) bool { _, ok := x.events[id]; return ok }

// add indexes one stored event. A second event with a known id (an SDK retrying a
// request whose answer it lost) is ignored, so counts stay right.
func (x *index) add(s *storedSummary, pos eventlog.Pos, received time.Time) bool {
	if x.has(s.ID) {
		return false
	}
	is := x.issues[s.Issue]
	if is == nil {
		is = &issueState{id: s.Issue, shortID: shortIDFor(s.Project, s.Issue), project: x.str(s.Project), firstSeen: received, tags: map[string]*tagStats{}}
		x.issues[s.Issue] = is
	}
	if n := len(is.events); n > 0 && received.Before(is.events[n-1].received) {
		// Concurrent requests can commit in a different order than their clocks were
		// read; keeping per-issue times monotonic lets window counts binary-search.
		received = is.events[n-1].received
	}
	tags := make([]tagPair, len(s.Tags)/2)
	for i := range tags {
		key := x.str(s.Tags[2*i])
		tags[i] = tagPair{Key: key, Value: x.tagValue(key, s.Tags[2*i+1])}
	}
	ev := &indexedEvent{
		id: s.ID, issue: is, pos: pos, received: received, timestamp: s.Timestamp,
		level: x.str(s.Level), message: s.Message, tags: tags,
	}
	is.events = append(is.events, ev)
	is.lastSeen = received
	if is.title != s.Title || is.culprit != s.Culprit || is.typ != s.Type || is.value != s.Value || is.message != s.Message {
		is.setText(s.Title, s.Culprit, s.Type, s.Value, s.Message)
	}
	is.level, is.platform = ev.level, x.str(s.Platform)
	for _, t := range tags {
		is.countTag(t, received)
	}
	x.events[s.ID] = ev
	return true
}

// setText sets the issue's text fields (from its latest event) and their search form.
func (is *issueState) setText(title, culprit, typ, value, message string) {
	is.title, is.culprit, is.typ, is.value, is.message = title, culprit, typ, value, message
	is.searchText = strings.ToLower(strings.Join([]string{title, culprit, typ, value, message}, "\x00"))
}

func (is *issueState) countTag(t tagPair, at time.Time) {
	ts := is.tags[t.Key]
	if ts == nil {
		if len(is.tags) >= maxTagKeysPerIssue {
			is.tagKeysCut = true
			return
		}
		ts = &tagStats{values: map[string]*valueStats{}}
		is.tags[t.Key] = ts
	}
	ts.total++
	vs := ts.values[t.Value]
	if vs == nil {
		if len(ts.values) >= maxTagValuesPerIssue {
			ts.overflow++
			return
		}
		vs = &valueStats{first: at}
		ts.values[t.Value] = vs
	}
	vs.count++
	vs.last = at
}

// dropThrough removes every event stored in segments up to seg (retention dropped
// them) and returns how many. Events of an issue are in log order, so they go from
// the front; an issue left with none goes too.
func (x *index) dropThrough(seg uint64) int {
	removed := 0
	for id, is := range x.issues {
		k := sort.Search(len(is.events), func(i int) bool { return is.events[i].pos.Segment > seg })
		if k == 0 {
			continue
		}
		for _, ev := range is.events[:k] {
			delete(x.events, ev.id)
		}
		removed += k
		if k == len(is.events) {
			delete(x.issues, id)
			continue
		}
		is.events = slices.Clone(is.events[k:])
		is.firstSeen = is.events[0].received
		is.tags, is.tagKeysCut = map[string]*tagStats{}, false
		for _, ev := range is.events {
			for _, t := range ev.tags {
				is.countTag(t, ev.received)
			}
		}
	}
	return removed
}

// countIn returns how many of the issue's events were received in [start, end].
func (is *issueState) countIn(start, end time.Time) int64 {
	lo := sort.Search(len(is.events), func(i int) bool { return !is.events[i].received.Before(start) })
	hi := sort.Search(len(is.events), func(i int) bool { return is.events[i].received.After(end) })
	if hi < lo {
		return 0
	}
	return int64(hi - lo)
}

func (is *issueState) userCount() int64 {
	if ts := is.tags["user"]; ts != nil {
		return int64(len(ts.values))
	}
	return 0
}

func (is *issueState) hasAnyTagValue(key string, values []string) bool {
	ts := is.tags[key]
	if ts == nil {
		return false
	}
	for _, v := range values {
		if vs := ts.values[v]; vs != nil && vs.count > 0 {
			return true
		}
	}
	return false
}

func (is *issueState) hasTagValue(key string, match func(string) bool) bool {
	ts := is.tags[key]
	if ts == nil {
		return false
	}
	for v, vs := range ts.values {
		if vs.count > 0 && match(v) {
			return true
		}
	}
	return false
}
