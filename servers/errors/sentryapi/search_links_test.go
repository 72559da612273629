package sentryapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/google/go-cmp/cmp"
)

// TestSentryStackTermsAndLinks: stack.filename:, stack.function: and stack.module:
// reach Sentry as typed (it answers them itself), and an issue pasted as its Sentry
// URL is asked for by its id.
func TestSentryStackTermsAndLinks(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	p := backend.NewPresenter(sentrytest.NewBackend(t, srv.URL), nil, nil, "", time.Now)
	ctx := context.Background()
	const q = "stack.filename:payment.go stack.function:convert stack.module:shop/*"
	if _, err := p.SearchIssues(ctx, backend.SearchIssuesInput{Query: q}); err != nil {
		t.Fatal(err)
	}
	var sent string
	for _, u := range fake.Seen() {
		if u.Path == "/api/0/organizations/acme/issues/" {
			sent = u.Query().Get("query")
		}
	}
	if sent != q {
		t.Errorf("query sent to Sentry %q; want %q", sent, q)
	}
	d, err := p.GetIssue(ctx, backend.GetIssueInput{IssueID: "https://acme.sentry.io/issues/1001/?project=11&query=is%3Aunresolved"})
	if err != nil || d.ID != "1001" {
		t.Fatalf("get_issue by its Sentry URL: %+v, %v", d, err)
	}
	asked := false
	for _, u := range fake.Seen() {
		asked = asked || u.Path == "/api/0/organizations/acme/issues/1001/"
	}
	if !asked {
		t.Errorf("the issue was not asked for by its id: %v", fake.Seen())
	}
}

// TestSentryIssueTimeline: get_issue's timeline comes from the issue's own "stats"
// (24h hourly, 30d daily), read against the server's clock.
func TestSentryIssueTimeline(t *testing.T) {
	_, srv := sentrytest.New(t, "")
	now := time.Date(2026, 5, 2, 14, 30, 0, 0, time.UTC)
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.Now = func() time.Time { return now } })
	d, err := b.GetIssue(context.Background(), backend.GetIssueInput{IssueID: "1001"})
	if err != nil {
		t.Fatal(err)
	}
	hours := make([]int64, 24)
	hours[9], hours[10] = 3, 5 // 00:00 and 01:00 of May 2, from 15:00 of May 1
	want := &backend.Timeline{
		Hours: &backend.Series{Start: "2026-05-01T15:00:00.000Z", Counts: hours},
		Days:  &backend.Series{Start: "2026-05-01T00:00:00.000Z", Counts: []int64{700, 820}}, // from the first seen day
	}
	if diff := cmp.Diff(want, d.Timeline); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}
