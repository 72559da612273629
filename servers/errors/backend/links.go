package backend

import (
	"net/url"
	"strings"
)

// IssueLink reads an issue id, and the event id it names if any, out of a link a
// person pastes where an id is expected: a Sentry issue or event URL
// (https://ORG.sentry.io/issues/123/, https://sentry.example.com/organizations/ORG/issues/123/events/ID/,
// with any query), the page's own /issues/{id}?event=ID, or the issue's resource URI
// errors://issues/{id}. Anything that is not such a link comes back unchanged, so an
// id, a short id or a mistyped link reaches CheckID and its error. The id is read, not
// trusted: CheckID and NormalizeEventRef still hold what is sent on.
func IssueLink(ref string) (issue, event string) {
	s := strings.TrimSpace(ref)
	if !strings.Contains(s, "://") && !strings.HasPrefix(s, "/issues/") {
		return ref, ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return ref, ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if u.Scheme == "errors" && u.Host == "issues" {
		segs = append([]string{"issues"}, segs...)
	}
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] != "issues" || segs[i+1] == "" {
			continue
		}
		issue = segs[i+1]
		if i+3 < len(segs) && segs[i+2] == "events" {
			event = segs[i+3]
		}
		if e := u.Query().Get("event"); e != "" && event == "" {
			event = e
		}
		return issue, event
	}
	return ref, ""
}

// EventLink reads the event id out of an event link (see IssueLink), or returns ref.
func EventLink(ref string) string {
	if _, e := IssueLink(ref); e != "" {
		return e
	}
	return ref
}
