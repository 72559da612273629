package errorserver

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/google/go-cmp/cmp"
)

// TestLocalCountsShareTheWindow: an issue's events and users are counted over the
// same window (as Sentry counts them) in search_issues and on the page's list, and
// over the same events (every stored one) in get_issue and on the issue's page. The
// events are spread over three days; one user is seen before, inside and after an
// explicit window, another before and after it only; some events are not counted
// into the tags yet (a reader sees them through the events).
func TestLocalCountsShareTheWindow(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	w := openTestStore(t, dir, func(c *LocalConfig) { c.Now = clock; c.countTagsAfter = time.Hour })
	defer w.Close()
	ctx := context.Background()
	n := 0
	send := func(ago time.Duration, user string) {
		t.Helper()
		n++
		ev := map[string]any{"event_id": hexID(n), "level": "error", "platform": "go", "timestamp": now.Add(-ago).Format(time.RFC3339Nano),
			"user":      map[string]any{"id": user},
			"exception": []any{map[string]any{"type": "E", "value": "rates", "stacktrace": map[string]any{"frames": []any{map[string]any{"function": "convert", "module": "shop", "in_app": true}}}}}}
		b, _ := json.Marshal(ev)
		e, err := ingest.ParseEvent(b, "42", now, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Ingest(ctx, []*event.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	// Before both windows: u1, u2, u5 (2.5 to 3 days ago).
	send(72*time.Hour, "u1")
	send(71*time.Hour, "u2")
	send(70*time.Hour, "u5")
	// Inside [-48h, -24h]: u1 only (u5 skips it).
	send(30*time.Hour, "u1")
	// The last 24 hours: u3 twice, u4, u1 and u5.
	send(20*time.Hour, "u3")
	send(10*time.Hour, "u3")
	send(5*time.Hour, "u4")
	send(2*time.Hour, "u1")
	w.syncTags(ctx) // counted so far; the rest waits (countTagsAfter)
	send(1*time.Hour, "u5")
	send(30*time.Minute, "u6")

	reader, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, s := range []*LocalStore{w, reader} {
		for _, c := range []struct {
			name          string
			in            backend.SearchIssuesInput
			events, users int64
		}{
			{"last 24h", backend.SearchIssuesInput{StatsPeriod: "24h"}, 6, 5},                                                // u3 u4 u1 u5 u6
			{"explicit window", backend.SearchIssuesInput{Start: "2026-04-30T12:00:00Z", End: "2026-05-01T12:00:00Z"}, 1, 1}, // u1 (u5 spans it without an event)
			{"14 days", backend.SearchIssuesInput{}, 10, 6},
		} {
			list, err := s.SearchIssues(ctx, c.in)
			if err != nil || len(list.Issues) != 1 {
				t.Fatalf("%s: %+v, %v", c.name, list, err)
			}
			if is := list.Issues[0]; is.Count != c.events || is.UserCount != c.users {
				t.Errorf("search_issues %s (reader %v): %d events, %d users; want %d and %d", c.name, s == reader, is.Count, is.UserCount, c.events, c.users)
			}
		}
	}
	list, err := reader.SearchIssues(ctx, backend.SearchIssuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := reader.GetIssue(ctx, backend.GetIssueInput{IssueID: list.Issues[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 10 || d.UserCount != 6 {
		t.Errorf("get_issue: %d events, %d users; want every stored event and its users, 10 and 6", d.Count, d.UserCount)
	}
	// The timeline: per hour from 13:00 yesterday, per day from the first event's day.
	hours := make([]int64, 24)
	hours[3], hours[13], hours[18], hours[21], hours[22] = 1, 1, 1, 1, 2
	want := &backend.Timeline{
		Hours: &backend.Series{Start: "2026-05-01T13:00:00.000Z", Counts: hours},
		Days:  &backend.Series{Start: "2026-04-29T00:00:00.000Z", Counts: []int64{3, 0, 2, 5}},
	}
	if diff := cmp.Diff(want, d.Timeline); diff != "" {
		t.Errorf("get_issue timeline (-want +got):\n%s", diff)
	}

	// The page, served by the process that ingests: the list over the last 24 hours
	// and the issue over every stored event.
	base, _ := startPage(t, w, PageConfig{})
	_, body := getPage(t, "GET", base+"/?period=24h", "")
	if m := regexp.MustCompile(`class="num count">(\d+)</td>\s*<td class="num users">(\d+)</td>`).FindStringSubmatch(body); m == nil || m[1] != "6" || m[2] != "5" {
		t.Errorf("page list, last 24h: events and users %q; want 6 and 5", m)
	}
	_, body = getPage(t, "GET", base+"/issues/"+d.ID, "")
	cnt := regexp.MustCompile(`id="issue-count">(\d+)<`).FindStringSubmatch(body)
	users := regexp.MustCompile(`id="issue-users">(\d+)<`).FindStringSubmatch(body)
	if cnt == nil || users == nil || cnt[1] != "10" || users[1] != "6" {
		t.Errorf("issue page: events %q, users %q; want 10 and 6", cnt, users)
	}
	// The issue's chart (24 hours, and the days since its first) and the list's trend
	// column, drawn as inline SVG from the same counts as get_issue's timeline.
	rects := regexp.MustCompile(`<rect x="\d+" y="\d+" width="3" height="(\d+)"><title>([^<]*)</title></rect>`)
	figure := func(class string) [][]string {
		m := regexp.MustCompile(`(?s)<figure class="` + class + `">.*?</figure>`).FindString(body)
		return rects.FindAllStringSubmatch(m, -1)
	}
	hourBars, dayBars := figure("hours"), figure("days")
	if len(hourBars) != 24 || hourBars[22][2] != "2026-05-02 11:00: 2" || hourBars[22][1] != "32" || hourBars[21][1] != "16" || hourBars[0][1] != "0" {
		t.Errorf("issue page, hours chart: %q; want 24 bars, 11:00 the tallest with 2 events", hourBars)
	}
	if len(dayBars) != 4 || dayBars[0][2] != "2026-04-29: 3" || dayBars[3][2] != "2026-05-02: 5" {
		t.Errorf("issue page, days chart: %q; want 4 bars from 2026-04-29 (3) to 2026-05-02 (5)", dayBars)
	}
	_, list24 := getPage(t, "GET", base+"/?period=24h", "")
	trend := rects.FindAllStringSubmatch(regexp.MustCompile(`(?s)<td class="trend">.*?</td>`).FindString(list24), -1)
	if len(trend) != 24 || trend[22][2] != "2026-05-02 11:00: 2" || trend[13][2] != "2026-05-02 02:00: 1" {
		t.Errorf("page list, trend column: %q; want 24 hourly bars", trend)
	}
}
