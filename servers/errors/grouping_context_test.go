package errorserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGroupingBySourceLine(t *testing.T) {
	frame := func(mod, file, fn string, line int, code string, inApp bool) frameData {
		f := frameData{Module: mod, Filename: file, Function: fn, Line: line, InApp: inApp}
		if code != "" {
			f.Context = []contextLine{{Line: line - 1, Code: "if x {"}, {Line: line, Code: code}, {Line: line + 1, Code: "}"}}
		}
		return f
	}
	exc := func(platform string, frames ...frameData) *eventData {
		return &eventData{Platform: platform, Exceptions: []exceptionData{{Type: "AddressError", Value: "v", Frames: frames}}}
	}
	zip := `raise AddressError("address has no zip code")`
	city := `raise AddressError("address has no city")`
	long := "x = " + strings.Repeat("a", 130)
	cases := []struct {
		name  string
		a, b  *eventData
		equal bool
	}{
		{"python: two raise sites in one function", exc("python", frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("shop.address", "", "validate", 9, city, true)), false},
		{"python: the same line moved and reindented", exc("python", frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("shop.address", "", "validate", 30, "\t  "+strings.ReplaceAll(zip, " ", "  ")+" ", true)), true},
		{"python: no source lines, Sentry's fallback to module and function", exc("python", frame("shop.address", "", "validate", 7, "", true)),
			exc("python", frame("shop.address", "", "validate", 9, "", true)), true},
		{"node: two raise sites", exc("node", frame("shop:address", "/app/shop/address.js", "validate", 3, `throw new Error("address has no zip code");`, true)),
			exc("node", frame("shop:address", "/app/shop/address.js", "validate", 6, `throw new Error("address has no city");`, true)), false},
		{"javascript: lines over 120 characters do not group", exc("javascript", frame("", "app.min.js", "a", 1, long+"1", true)),
			exc("javascript", frame("", "app.min.js", "a", 1, long+"2", true)), true},
		{"go: source lines do not group (not among Sentry's context-line platforms)", exc("go", frame("example.com/shop", "", "validate", 12, `return errors.New("address has no zip code")`, true)),
			exc("go", frame("example.com/shop", "", "validate", 15, `return errors.New("address has no city")`, true)), true},
		{"python: library frames' lines do not count when there are in-app ones", exc("python", frame("lib", "", "call", 5, "a()", false), frame("shop.address", "", "validate", 7, zip, true)),
			exc("python", frame("lib", "", "call", 5, "b()", false), frame("shop.address", "", "validate", 7, zip, true)), true},
		{"no module: the file stands in for it", exc("go", frame("", "a/pay.go", "charge", 5, "", true)),
			exc("go", frame("", "b/pay.go", "charge", 5, "", true)), false},
	}
	for _, tc := range cases {
		a, b := issueIDFor("1", groupingParts(tc.a)), issueIDFor("1", groupingParts(tc.b))
		if (a == b) != tc.equal {
			t.Errorf("%s: same issue = %v, want %v (%q vs %q)", tc.name, a == b, tc.equal, groupingParts(tc.a), groupingParts(tc.b))
		}
	}
}

// issueTitles returns the titles of every issue of the store, sorted.
func issueTitles(t *testing.T, s *LocalStore) []string {
	t.Helper()
	res, err := s.SearchIssues(context.Background(), SearchIssuesInput{StatsPeriod: "90d", Limit: 100})
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
	event := func(n, line int, value, code string) *eventData {
		b, _ := json.Marshal(map[string]any{"event_id": hexID(n), "platform": "python", "timestamp": now.Add(-time.Hour).Format(time.RFC3339),
			"exception": []any{map[string]any{"type": "AddressError", "value": value, "stacktrace": map[string]any{"frames": []any{
				map[string]any{"module": "shop.address", "function": "validate", "lineno": line, "context_line": code, "in_app": true}}}}}})
		e, err := parseSDKEvent(b, "7", now, "")
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	zip := func(n int) *eventData {
		return event(n, 7, "address has no zip code", `raise AddressError("address has no zip code")`)
	}
	city := func(n int) *eventData {
		return event(n, 9, "address has no city", `raise AddressError("address has no city")`)
	}
	open := func() *LocalStore {
		return openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now } })
	}

	old := open()
	defer old.Close()
	for _, e := range []*eventData{zip(1), city(2)} { // as version 1 filed them
		deriveIssueFields(e)
		e.IssueID = issueIDFor(e.Project, groupingPartsBy(e, frameKeyV1))
		if err := old.ingest(context.Background(), []*eventData{e}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.ingest(context.Background(), []*eventData{zip(3), city(4)}); err != nil {
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
	if err := fresh.ingest(context.Background(), []*eventData{zip(1), city(2), zip(3)}); err != nil {
		t.Fatal(err)
	}
	if a, b, c := fresh.issueOfEvent(t, hexID(1)), fresh.issueOfEvent(t, hexID(2)), fresh.issueOfEvent(t, hexID(3)); a == b || a != c {
		t.Errorf("a new store: zip %s and %s, city %s; want zip's two events in one issue, city's in another", a, c, b)
	}
}
