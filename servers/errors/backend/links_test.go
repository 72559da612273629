package backend

import "testing"

// TestIssueLink: the links a person pastes for an issue or an event give the ids
// the tools take; anything else passes through unchanged to the id checks.
func TestIssueLink(t *testing.T) {
	const ev = "0123456789abcdef0123456789abcdef"
	for _, c := range []struct{ in, issue, event string }{
		{"https://acme.sentry.io/issues/4509123/", "4509123", ""},
		{"https://acme.sentry.io/issues/4509123/?project=1&query=is%3Aunresolved", "4509123", ""},
		{"https://sentry.io/organizations/acme/issues/4509123/events/" + ev + "/", "4509123", ev},
		{"https://acme.sentry.io/issues/4509123/events/latest/?project=1", "4509123", "latest"},
		{"https://sentry.example.com/sentry/organizations/acme/issues/77/", "77", ""},
		{"http://127.0.0.1:8970/issues/3f2a9c?event=" + ev + "#event", "3f2a9c", ev},
		{"/issues/3f2a9c", "3f2a9c", ""},
		{"errors://issues/3f2a9c", "3f2a9c", ""},
		{"  https://acme.sentry.io/issues/12/  ", "12", ""},
		// Not links: unchanged.
		{"SHOP-1A", "SHOP-1A", ""},
		{"4509123", "4509123", ""},
		{"https://acme.sentry.io/projects/shop/", "https://acme.sentry.io/projects/shop/", ""},
		{"https://acme.sentry.io/issues/", "https://acme.sentry.io/issues/", ""},
	} {
		issue, event := IssueLink(c.in)
		if issue != c.issue || event != c.event {
			t.Errorf("IssueLink(%q) = %q, %q; want %q, %q", c.in, issue, event, c.issue, c.event)
		}
	}
	if got := EventLink("https://acme.sentry.io/issues/1/events/" + ev + "/"); got != ev {
		t.Errorf("EventLink of an event URL = %q", got)
	}
	if got := EventLink("latest"); got != "latest" {
		t.Errorf("EventLink(latest) = %q", got)
	}
	// What comes out of a link is still checked before it is sent anywhere.
	issue, _ := IssueLink("https://acme.sentry.io/issues/..%2F..%2Fadmin/")
	if CheckID("issueId", issue) == nil {
		t.Errorf("IssueLink let %q through CheckID", issue)
	}
}
