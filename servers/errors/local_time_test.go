package errorserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
)

// TestEventTimeFilesAndClamps: events are filed and filtered by their own timestamp,
// with the received time kept; a timestamp in the future (after arrival), older than
// the age limit, or missing is replaced by the received time (the SDK's own kept
// as clientTimestamp). The latest event of an issue, and the text the issue shows, are
// by event time, whatever order the events arrived in.
func TestEventTimeFilesAndClamps(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now }; c.MaxAge = 30 * 24 * time.Hour })
	defer store.Close()
	ctx := context.Background()
	send := func(id int, fn string, ts time.Time, value string) {
		t.Helper()
		ev := map[string]any{"event_id": hexID(id), "level": "error", "platform": "go",
			"exception": []any{map[string]any{"type": "E", "value": value, "stacktrace": map[string]any{"frames": []any{map[string]any{"function": fn, "module": "shop", "in_app": true}}}}}}
		if !ts.IsZero() {
			ev["timestamp"] = ts.Format(time.RFC3339Nano)
		}
		b, _ := json.Marshal(ev)
		e, err := ingest.ParseEvent(b, "42", now, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Ingest(ctx, []*event.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	twoDaysAgo := now.Add(-48 * time.Hour)
	send(1, "night", twoDaysAgo, "from the night")
	send(2, "future", now.Add(2*time.Hour), "clock ahead")
	send(3, "ancient", now.Add(-60*24*time.Hour), "clock behind")
	send(4, "undated", time.Time{}, "no timestamp")
	send(5, "skew", now.Add(30*time.Second), "slightly ahead")
	send(8, "skew", now.Add(-time.Second), "just before arrival")
	// Out of order: the newer event arrives first.
	send(6, "order", now.Add(-10*time.Minute), "newer")
	send(7, "order", now.Add(-20*time.Minute), "older")

	filed := map[string]string{}
	for _, id := range []int{1, 2, 3, 4, 5, 6, 7} {
		var ts, received int64
		var body []byte
		if err := store.db.QueryRow(`SELECT ts, received, body FROM events WHERE event_id = ?`, hexID(id)).Scan(&ts, &received, &body); err != nil {
			t.Fatal(err)
		}
		var e event.Event
		json.Unmarshal(body, &e)
		if received != now.UnixNano() || !e.Received.Equal(now) {
			t.Errorf("event %d received %v (body %v), want %v", id, nsTime(received), e.Received, now)
		}
		filed[hexID(id)] = backend.FormatTime(nsTime(ts))
		if !nsTime(ts).Equal(e.Timestamp) {
			t.Errorf("event %d filed at %v but its body says %v", id, nsTime(ts), e.Timestamp)
		}
		if clamped := id == 2 || id == 3 || id == 5; clamped != !e.ClientTimestamp.IsZero() {
			t.Errorf("event %d clientTimestamp %v; want it kept only when the timestamp was replaced", id, e.ClientTimestamp)
		}
	}
	want := map[string]string{
		hexID(1): backend.FormatTime(twoDaysAgo), hexID(2): backend.FormatTime(now), hexID(3): backend.FormatTime(now), hexID(4): backend.FormatTime(now),
		hexID(5): backend.FormatTime(now), hexID(6): backend.FormatTime(now.Add(-10 * time.Minute)), hexID(7): backend.FormatTime(now.Add(-20 * time.Minute)),
	}
	for id, w := range want {
		if filed[id] != w {
			t.Errorf("event %s filed at %s, want %s", id, filed[id], w)
		}
	}
	titles := func(period string) map[string]bool {
		res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{StatsPeriod: period, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, is := range res.Issues {
			out[is.Value] = true
		}
		return out
	}
	if got := titles("1h"); got["from the night"] || !got["clock ahead"] || !got["clock behind"] || !got["no timestamp"] {
		t.Errorf("statsPeriod 1h: %v; want the clamped events and not the one from two days ago", got)
	}
	if got := titles("3d"); !got["from the night"] {
		t.Errorf("statsPeriod 3d: %v; want the event from two days ago", got)
	}
	res, _ := store.SearchIssues(ctx, backend.SearchIssuesInput{Query: "night"})
	if len(res.Issues) != 1 || res.Issues[0].LastSeen != backend.FormatTime(twoDaysAgo) || res.Issues[0].FirstSeen != backend.FormatTime(twoDaysAgo) {
		t.Errorf("the night's issue: %+v; want first and last seen two days ago", res.Issues)
	}
	res, _ = store.SearchIssues(ctx, backend.SearchIssuesInput{Query: "error.value:newer"})
	if len(res.Issues) != 1 || res.Issues[0].Count != 2 || res.Issues[0].LastSeen != backend.FormatTime(now.Add(-10*time.Minute)) {
		t.Fatalf("out-of-order issue: %+v; want it titled by its newer event, last seen 10 minutes ago", res.Issues)
	}
	latest, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: res.Issues[0].ID})
	if err != nil || latest.ID != hexID(6) {
		t.Errorf("latest event %v, %v; want %s, the newer by event time though it arrived first", latest, err, hexID(6))
	}
	if res, _ := store.SearchIssues(ctx, backend.SearchIssuesInput{Query: "firstSeen:-1d"}); len(res.Issues) != 5 {
		t.Errorf("firstSeen:-1d matched %+v, want 5 issues (all but the night's)", res.Issues)
	}
}

// TestWindowCountsMatchEvents checks the counts of search_issues, read from the hour
// and day buckets plus the ragged edges, against a count of the events themselves,
// for windows of every shape over events spread across a week.
func TestWindowCountsMatchEvents(t *testing.T) {
	now := time.Date(2026, 5, 9, 10, 17, 23, 0, time.UTC)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now } })
	defer store.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	type ev struct {
		fn string
		ts time.Time
	}
	var evs []ev
	var batch []*event.Event
	for i := range 3000 {
		fn := fmt.Sprintf("fn%d", rng.IntN(7))
		ts := now.Add(-time.Duration(rng.Int64N(int64(7 * 24 * time.Hour))))
		evs = append(evs, ev{fn, ts})
		e, err := ingest.ParseEvent([]byte(testEvent(hexID(i+1), "E", "v", fn, nil)), "42", now, "")
		if err != nil {
			t.Fatal(err)
		}
		e.Timestamp = ts
		batch = append(batch, e)
	}
	if err := store.Ingest(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	windows := [][2]time.Time{
		{now.Add(-7 * 24 * time.Hour), now},
		{now.Add(-90 * time.Minute), now},
		{now.Add(-3*24*time.Hour - 5*time.Minute), now.Add(-26*time.Hour - 7*time.Second)},
		{now.Truncate(24 * time.Hour).Add(-48 * time.Hour), now.Truncate(24 * time.Hour)},
		{now.Truncate(time.Hour).Add(-5 * time.Hour), now.Truncate(time.Hour).Add(-3*time.Hour - time.Nanosecond)},
	}
	for range 20 {
		a := now.Add(-time.Duration(rng.Int64N(int64(8 * 24 * time.Hour))))
		windows = append(windows, [2]time.Time{a, a.Add(time.Duration(rng.Int64N(int64(3*24*time.Hour))) + time.Second)})
	}
	for _, w := range windows {
		want := map[string]int64{}
		for _, e := range evs {
			if !e.ts.Before(w[0]) && !e.ts.After(w[1]) {
				want["shop/checkout in "+e.fn]++
			}
		}
		res, err := store.SearchIssues(context.Background(), backend.SearchIssuesInput{Start: w[0].Format(time.RFC3339Nano), End: w[1].Format(time.RFC3339Nano), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, is := range res.Issues {
			got[is.Culprit] = is.Count
		}
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("window %s .. %s: counts %v, want %v", w[0], w[1], got, want)
		}
	}
}
