package sentryapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"
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
