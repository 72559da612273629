package errorserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
)

// TestSearchUserFields: user.email:, user.username:, user.ip: and user.id: match
// that field of an event's user whatever else the user has (issue 26: an e-mail of
// a user with an id was never found, the "user" tag holding id:...), before and
// after the writer counts the tags, and negated.
func TestSearchUserFields(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	s := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now } })
	defer s.Close()
	users := map[string]map[string]string{ // exception type: its event's user
		"Everything": {"id": "u-chain-1", "email": "chain1@example.com", "username": "chain1", "ip_address": "10.0.0.1"},
		"EmailOnly":  {"email": "b@example.com"},
		"NameAndIP":  {"username": "solo", "ip_address": "10.9.9.9"},
		"NoUser":     nil,
	}
	var batch []*event.Event
	n := 0
	for typ, u := range users {
		n++
		ev := map[string]any{"event_id": hexID(n), "timestamp": now.Add(-time.Hour).Format(time.RFC3339), "exception": []any{map[string]any{"type": typ, "value": "v"}}}
		if u != nil {
			ev["user"] = u
		}
		b, _ := json.Marshal(ev)
		e, err := ingest.ParseEvent(b, "42", now, "")
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, e)
	}
	if err := s.Ingest(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"user.email:chain1@example.com", []string{"Everything"}},
		{"user.email:*@example.com", []string{"EmailOnly", "Everything"}},
		{"user.email:[b@example.com,chain1@example.com]", []string{"EmailOnly", "Everything"}},
		{"!user.email:chain1@example.com", []string{"EmailOnly", "NameAndIP", "NoUser"}},
		{"user.username:chain1", []string{"Everything"}},
		{"user.username:solo", []string{"NameAndIP"}},
		{"user.ip:10.0.0.1", []string{"Everything"}},
		{"user.ip:10.*", []string{"Everything", "NameAndIP"}},
		{"user.id:u-chain-1", []string{"Everything"}},
		{"user.id:chain1@example.com", nil},
		{"user.email:u-chain-1", nil},
		{"user:id:u-chain-1", []string{"Everything"}},
	}
	for _, counted := range []bool{false, true} {
		if counted {
			s.syncTags(context.Background())
		}
		for _, c := range cases {
			res, err := s.SearchIssues(context.Background(), backend.SearchIssuesInput{Query: c.query})
			if err != nil {
				t.Fatalf("%s: %v", c.query, err)
			}
			var got []string
			for _, is := range res.Issues {
				got = append(got, is.Type)
			}
			slices.Sort(got)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (tags counted: %v): issues (-want +got):\n%s", c.query, counted, diff)
			}
		}
	}
}

// TestSearchUserEmailOfRecordedPythonEvents: the events sentry-sdk 2.68.0 sent (user
// with an id and an e-mail) are found by their user's e-mail.
func TestSearchUserEmailOfRecordedPythonEvents(t *testing.T) {
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.PublicKeys = []string{recordedPythonKey} })
	defer store.Close()
	srv, _ := startIngest(t, store)
	postRecorded(t, srv.URL+"/api/7/envelope/", "python-2.68.0", recordedPythonKey)
	for _, q := range []string{"user.email:chain1@example.com", "user.id:u-chain-1", "user.username:chain1"} {
		res, err := store.SearchIssues(context.Background(), backend.SearchIssuesInput{Query: q, StatsPeriod: "90d"})
		if err != nil || len(res.Issues) == 0 {
			t.Errorf("%s: %+v, %v; want the recorded events' issues", q, res, err)
		}
	}
}
