package errorserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
)

// issueTitles returns the titles of every issue of the store, sorted.
func issueTitles(t *testing.T, s *LocalStore) []string {
	t.Helper()
	res, err := s.SearchIssues(context.Background(), backend.SearchIssuesInput{StatsPeriod: "90d", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, is := range res.Issues {
		titles = append(titles, is.Title)
	}
	slices.Sort(titles)
	return titles
}

// TestGroupingTwoRaiseSitesOfRecordedSDKs: the events sentry-sdk 2.68.0 (Python) and
// @sentry/node 10.78.0 sent for two raise sites of one function, each with its source
// line, are two issues each, titled after their own message.
func TestGroupingTwoRaiseSitesOfRecordedSDKs(t *testing.T) {
	for _, sdk := range []struct{ dir, typ string }{{"python-2.68.0", "AddressError"}, {"node-10.78.0", "Error"}} {
		t.Run(sdk.dir, func(t *testing.T) {
			store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.PublicKeys = []string{recordedPythonKey} })
			defer store.Close()
			srv, _ := startIngest(t, store)
			postRecorded(t, srv.URL+"/api/7/envelope/", sdk.dir, recordedPythonKey)
			want := []string{sdk.typ + ": address has no city", sdk.typ + ": address has no zip code"}
			if got := issueTitles(t, store); !slices.Equal(got, want) {
				t.Errorf("issues %q, want %q", got, want)
			}
		})
	}
}

// TestGroupingKeepsTheIssuesOfVersion1: a store whose issues were grouped by module
// and function only (grouping version 1) keeps them: new events of either raise site
// join the issue they were filed under, while a new store has two issues.
func TestGroupingKeepsTheIssuesOfVersion1(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	mk := func(n, line int, value, code string) *event.Event {
		b, _ := json.Marshal(map[string]any{"event_id": hexID(n), "platform": "python", "timestamp": now.Add(-time.Hour).Format(time.RFC3339),
			"exception": []any{map[string]any{"type": "AddressError", "value": value, "stacktrace": map[string]any{"frames": []any{
				map[string]any{"module": "shop.address", "function": "validate", "lineno": line, "context_line": code, "in_app": true}}}}}})
		e, err := ingest.ParseEvent(b, "7", now, "")
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	zip := func(n int) *event.Event {
		return mk(n, 7, "address has no zip code", `raise AddressError("address has no zip code")`)
	}
	city := func(n int) *event.Event {
		return mk(n, 9, "address has no city", `raise AddressError("address has no city")`)
	}
	open := func() *LocalStore {
		return openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now } })
	}

	old := open()
	defer old.Close()
	for _, e := range []*event.Event{zip(1), city(2)} { // as version 1 filed them
		event.DeriveIssueFields(e)
		e.IssueID = event.IssueIDFor(e.Project, event.GroupingParts(e))
		if v1 := event.LegacyIssueID(e); v1 != "" {
			e.IssueID = v1
		}
		if err := old.Ingest(context.Background(), []*event.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Ingest(context.Background(), []*event.Event{zip(3), city(4)}); err != nil {
		t.Fatal(err)
	}
	issue := old.issueOfEvent(t, hexID(1))
	for n := 2; n <= 4; n++ {
		if got := old.issueOfEvent(t, hexID(n)); got != issue {
			t.Errorf("event %d of a version-1 store is in issue %s, want the issue it was filed under, %s", n, got, issue)
		}
	}

	fresh := open()
	defer fresh.Close()
	if err := fresh.Ingest(context.Background(), []*event.Event{zip(1), city(2), zip(3)}); err != nil {
		t.Fatal(err)
	}
	if a, b, c := fresh.issueOfEvent(t, hexID(1)), fresh.issueOfEvent(t, hexID(2)), fresh.issueOfEvent(t, hexID(3)); a == b || a != c {
		t.Errorf("a new store: zip %s and %s, city %s; want zip's two events in one issue, city's in another", a, c, b)
	}
}
