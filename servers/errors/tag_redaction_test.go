package errorserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/mcpkit/reference/servers/errors/event"
)

// plantedTagSecrets are credentials under tag keys that name secrets, as an
// application might tag its events. Every planted credential contains leakMark, so a
// result that shows any of them, whole or in part, is caught by one substring test.
var plantedTagSecrets = map[string]string{
	"session_id":    "LEAKsess7f3a9c2b",
	"token":         "LEAKtok0a1b2c3d",
	"password":      "LEAKpw-hunter2",
	"authorization": "Bearer LEAKbearer9z8y7x",
	"api_key":       "LEAKkey5e6f7a8b",
	"cookie":        "sid=LEAKcookie1234",
}

// plantedURLTag is a tag whose key names no secret but whose value carries one inline.
const (
	plantedURLTag      = "https://shop.example.com/reset?token=LEAKurl4d5e6f"
	plantedURLRedacted = "https://shop.example.com/reset?token=" + event.Redacted
	leakMark           = "LEAK"
)

// TestTagValuesAreRedactedInEveryView plants credentials under secret-named tags (and
// one inline in a url tag) and reads them back through every tool, resource and
// prompt, over the Sentry fake (issue 1005) and over the local store, at both
// revisions. No result may show a planted credential, and each planted tag must
// still be there, its value redacted, so that the test cannot pass by showing nothing.
func TestTagValuesAreRedactedInEveryView(t *testing.T) {
	t.Run("sentry", func(t *testing.T) {
		_, srv := sentrytest.New(t, "")
		checkTagRedaction(t, sentrytest.NewBackend(t, srv.URL), []string{"1005"}, false)
	})
	t.Run("local", func(t *testing.T) {
		store, issues := plantLocalTagSecrets(t)
		checkTagRedaction(t, store, issues, true)
	})
}

// plantLocalTagSecrets stores two events with the planted tags, then reopens the store
// so that the index is rebuilt from disk: one through the ingest endpoint as an SDK
// sends it, and one stored as it is, unredacted, the way an earlier version (or a
// redaction rule that has grown since) may have left it on disk.
func plantLocalTagSecrets(t *testing.T) (*LocalStore, []string) {
	dir := t.TempDir()
	store := openTestStore(t, dir)
	srv, _ := startIngest(t, store)
	tags := map[string]string{"url": plantedURLTag}
	for k, v := range plantedTagSecrets {
		tags[k] = v
	}
	if code, body := postEnvelope(t, srv.URL+"/api/42/envelope/", envelopeOf(hexID(1), [2]string{"event", testEvent(hexID(1), "*auth.Error", "session rejected", "Verify", tags)}), nil); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	raw := &event.Event{
		ID: hexID(2), Project: "42", Timestamp: time.Now().UTC(), Level: "error", Platform: "go",
		Tags:       []event.Pair{{Key: "environment", Value: "production"}, {Key: "url", Value: plantedURLTag}},
		Exceptions: []event.Exception{{Type: "*auth.StoredError", Value: "stored before redaction", Frames: []event.Frame{{Function: "Load", Module: "shop/auth", Filename: "auth/load.go", Line: 7, InApp: true}}}},
	}
	for k, v := range plantedTagSecrets {
		raw.Tags = append(raw.Tags, event.Pair{Key: k, Value: v})
	}
	event.SortPairs(raw.Tags)
	if err := store.Ingest(context.Background(), []*event.Event{raw}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store = openTestStore(t, dir)
	t.Cleanup(func() { store.Close() })
	res, err := store.SearchIssues(context.Background(), backend.SearchIssuesInput{StatsPeriod: "1h"})
	if err != nil || len(res.Issues) != 2 {
		t.Fatalf("planted issues = %+v, %v; want 2", res, err)
	}
	return store, []string{res.Issues[0].ID, res.Issues[1].ID}
}

func checkTagRedaction(t *testing.T, b backend.Backend, issues []string, local bool) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			c := connect(t, b, Config{}, rev)
			noLeak := func(what string, raw json.RawMessage) {
				t.Helper()
				if i := strings.Index(string(raw), leakMark); i >= 0 {
					t.Errorf("%s shows a planted credential: ...%s...", what, string(raw)[max(0, i-80):min(len(raw), i+40)])
				}
			}
			call := func(tool string, args map[string]any, out any) {
				t.Helper()
				noLeak(tool+" "+mustJSON(args), c.Call("tools/call", map[string]any{"name": tool, "arguments": args}))
				callOK(t, c, tool, args, out)
			}

			var list backend.IssueList
			call(ToolSearchIssues, map[string]any{"statsPeriod": "14d"}, &list)
			if local {
				// The local store matches tags itself: a search must not probe a
				// value the tools hide.
				for _, q := range []string{"session_id:*LEAK*", "token:LEAKtok0a1b2c3d", "url:*LEAKurl*"} {
					var probe backend.IssueList
					call(ToolSearchIssues, map[string]any{"query": q}, &probe)
					if len(probe.Issues) != 0 {
						t.Errorf("search_issues %q found %d issues: the search matches a redacted value", q, len(probe.Issues))
					}
				}
			}
			noLeak("resources/list", c.Call("resources/list", nil))

			for _, id := range issues {
				var detail backend.IssueDetail
				call(ToolGetIssue, map[string]any{"issueId": id}, &detail)
				summary := map[string]backend.TagSummary{}
				for _, ts := range detail.Tags {
					summary[ts.Key] = ts
				}
				for k, v := range detail.EveryEvent { // one value on every event
					summary[k] = backend.TagSummary{Key: k, TopValues: []backend.TagValue{{Value: v, Count: detail.Count}}}
				}
				for key := range plantedTagSecrets {
					checkRedactedValues(t, "get_issue "+id+" tag summary of "+key, summary[key].TopValues, event.Redacted)
				}
				checkRedactedValues(t, "get_issue "+id+" tag summary of url", summary["url"].TopValues, plantedURLRedacted)

				refs := []string{"latest"}
				if local {
					refs = append(refs, "oldest")
				}
				for _, ref := range refs {
					var ev backend.Event
					call(ToolGetEvent, map[string]any{"issueId": id, "eventId": ref}, &ev)
					shown := map[string]string{}
					for _, tg := range ev.Tags {
						shown[tg.Key] = tg.Value
					}
					for key := range plantedTagSecrets {
						if shown[key] != event.Redacted {
							t.Errorf("get_event %s of %s: tag %s = %q, want %s", ref, id, key, shown[key], event.Redacted)
						}
					}
					if shown["url"] != plantedURLRedacted {
						t.Errorf("get_event %s of %s: tag url = %q, want %s", ref, id, shown["url"], plantedURLRedacted)
					}
				}

				var events backend.EventList
				call(ToolListIssueEvents, map[string]any{"issueId": id}, &events)

				for key := range plantedTagSecrets {
					var tv backend.TagValueList
					call(ToolGetTagValues, map[string]any{"issueId": id, "key": key}, &tv)
					checkRedactedValues(t, "get_tag_values "+id+" "+key, tv.Values, event.Redacted)
				}
				var tv backend.TagValueList
				call(ToolGetTagValues, map[string]any{"issueId": id, "key": "url"}, &tv)
				checkRedactedValues(t, "get_tag_values "+id+" url", tv.Values, plantedURLRedacted)

				resource := c.Call("resources/read", map[string]any{"uri": IssueURI(id)})
				noLeak("resources/read "+IssueURI(id), resource)
				if !strings.Contains(string(resource), "session_id") {
					t.Errorf("resources/read %s has no session_id tag: %s", IssueURI(id), resource)
				}
				noLeak("prompts/get triage_issue "+id, c.Call("prompts/get", map[string]any{"name": PromptTriageIssue, "arguments": map[string]string{"issueId": id}}))
			}
		})
	}
}

// checkRedactedValues wants at least one value, each of them want.
func checkRedactedValues(t *testing.T, what string, values []backend.TagValue, want string) {
	t.Helper()
	if len(values) == 0 {
		t.Errorf("%s: no values; want the tag shown with its value redacted", what)
	}
	for _, v := range values {
		if v.Value != want || v.Count == 0 {
			t.Errorf("%s: value %q (count %d), want %q", what, v.Value, v.Count, want)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
