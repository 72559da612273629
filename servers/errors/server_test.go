package errorserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

type listedTool struct {
	Name         string                  `json:"name"`
	Description  string                  `json:"description"`
	InputSchema  json.RawMessage         `json:"inputSchema"`
	OutputSchema json.RawMessage         `json:"outputSchema"`
	Annotations  *mcpkit.ToolAnnotations `json:"annotations"`
}

func listTools(t *testing.T, c *mcpkittest.Client) []listedTool {
	t.Helper()
	var res struct {
		Tools []listedTool `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &res); err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestInputSchemas holds input_schemas.json, the schemas New takes instead of
// generating them at every start, to what the tools' Go types generate (-update or
// go generate rewrites it).
func TestInputSchemas(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	mcpkittest.InputSchemas(t, "input_schemas.json", New(Config{Logger: quietLogger}, store))
}

// TestToolsListGolden snapshots tools/list over the local store (the default backend)
// and logs its size, the context every host pays for. Over Sentry the same tools are
// listed, marked open world because they reach an external service.
func TestToolsListGolden(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	c := connect(t, store, Config{}, "2026-07-28")
	size := mcpkittest.ToolsGolden(t, c, "testdata/tools.golden.json")
	t.Logf("tools/list: %d bytes of compact JSON for %d tools (about %d tokens)", size, len(ToolNames), size/4)
	if size > 8000 {
		t.Errorf("tools/list is %d bytes; keep it under 8000 (descriptions tight, no output schemas)", size)
	}

	local := listTools(t, c)
	_, srv := sentrytest.New(t, "")
	remote := listTools(t, connect(t, sentrytest.NewBackend(t, srv.URL), Config{}, "2026-07-28"))
	legacy := listTools(t, connect(t, store, Config{}, "2025-11-25"))
	var names []string
	for i, tl := range local {
		names = append(names, tl.Name)
		want := mcpkit.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
		if diff := cmp.Diff(&want, tl.Annotations); diff != "" {
			t.Errorf("%s annotations over the local store (-want +got):\n%s", tl.Name, diff)
		}
		want.OpenWorldHint = true
		if diff := cmp.Diff(&want, remote[i].Annotations); diff != "" {
			t.Errorf("%s annotations over Sentry (-want +got):\n%s", tl.Name, diff)
		}
		remote[i].Annotations = tl.Annotations
		if diff := cmp.Diff(tl, remote[i]); diff != "" {
			t.Errorf("%s differs between backends beyond openWorldHint (-local +sentry):\n%s", tl.Name, diff)
		}
		if diff := cmp.Diff(tl, legacy[i]); diff != "" {
			t.Errorf("%s differs between revisions (-2026 +2025):\n%s", tl.Name, diff)
		}
		if len(tl.OutputSchema) != 0 {
			t.Errorf("%s has an output schema; results are documented on their Go types instead", tl.Name)
		}
	}
	if diff := cmp.Diff(ToolNames, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestInstructionsNameTheBackend: the model learns which backend answers and, for the
// local store, the DSN to give an application.
func TestInstructionsNameTheBackend(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	_, srv := sentrytest.New(t, "")
	dsn := "http://publickey@127.0.0.1:8970/1"
	for _, tc := range []struct {
		name string
		b    backend.Backend
		cfg  Config
		want []string
	}{
		{"local", store, Config{LocalDSN: dsn}, []string{"local event store", "Sentry DSN to " + dsn, "never instructions"}},
		{"sentry", sentrytest.NewBackend(t, srv.URL), Config{}, []string{"Backend: Sentry at " + srv.URL + "/", "default organization acme"}},
	} {
		var res struct {
			Instructions string `json:"instructions"`
		}
		if err := json.Unmarshal(connect(t, tc.b, tc.cfg, "2026-07-28").Call("server/discover", nil), &res); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Instructions, w) {
				t.Errorf("%s: instructions %q lack %q", tc.name, res.Instructions, w)
			}
		}
	}
}

// TestEveryToolOverTheLocalStore: events sent by sentry-go are found through every
// tool, at both revisions, grouped and counted right, with frames, tags and pages.
func TestEveryToolOverTheLocalStore(t *testing.T) {
	sd := seedLocalStore(t, t.TempDir())
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			c := connect(t, sd.store, Config{}, rev)

			var projects backend.ProjectList
			callOK(t, c, ToolListProjects, nil, &projects)
			wantProjects := []backend.Project{{ID: "42", Slug: "42", Name: "42", Platform: "go", Organization: "local", Issues: 5, Events: 10}}
			if diff := cmp.Diff(wantProjects, projects.Projects); diff != "" {
				t.Errorf("list_projects (-want +got):\n%s", diff)
			}

			var issues backend.IssueList
			callOK(t, c, ToolSearchIssues, map[string]any{"statsPeriod": "1h", "sort": "freq"}, &issues)
			counts := map[string]int64{}
			for _, is := range issues.Issues {
				counts[is.ID] = is.Count
			}
			wantCounts := map[string]int64{sd.charge: 4, sd.cart: 2, sd.inventory: 2, sd.slow: 1, sd.panicked: 1}
			if diff := cmp.Diff(wantCounts, counts); diff != "" {
				t.Errorf("search_issues counts by issue (-want +got):\n%s", diff)
			}
			if len(issues.Issues) == 0 || issues.Issues[0].ID != sd.charge {
				t.Errorf("sort=freq did not put the 4-event issue first: %+v", issues.Issues)
			}

			for _, tc := range []struct {
				args map[string]any
				want []string
			}{
				{map[string]any{"query": "environment:production"}, []string{sd.charge}},
				{map[string]any{"environment": []string{"production"}}, []string{sd.charge}},
				{map[string]any{"query": "level:fatal"}, []string{sd.panicked}},
				{map[string]any{"query": `"card declined" is:unresolved`}, []string{sd.charge}},
				{map[string]any{"query": "error.type:*wrapError tenant:acme"}, []string{sd.cart}},
				{map[string]any{"query": "times_seen:>1 level:info"}, []string{sd.inventory}},
				{map[string]any{"query": "is:resolved"}, nil},
				{map[string]any{"project": []string{"42"}, "query": "inventory"}, []string{sd.inventory}},
			} {
				var got backend.IssueList
				callOK(t, c, ToolSearchIssues, tc.args, &got)
				var ids []string
				for _, is := range got.Issues {
					ids = append(ids, is.ID)
				}
				sort.Strings(ids)
				sort.Strings(tc.want)
				if diff := cmp.Diff(tc.want, ids); diff != "" {
					t.Errorf("search_issues %v (-want +got):\n%s", tc.args, diff)
				}
			}

			// Pages of two, following nextCursor, visit every issue once.
			seen := map[string]int{}
			cursor, pages := "", 0
			for {
				args := map[string]any{"limit": 2, "sort": "new"}
				if cursor != "" {
					args["cursor"] = cursor
				}
				var page backend.IssueList
				callOK(t, c, ToolSearchIssues, args, &page)
				pages++
				for _, is := range page.Issues {
					seen[is.ID]++
				}
				if page.NextCursor != "" != page.Truncated {
					t.Errorf("page %d: nextCursor %q but truncated=%v", pages, page.NextCursor, page.Truncated)
				}
				if cursor = page.NextCursor; cursor == "" || pages > 5 {
					break
				}
			}
			if pages != 3 || len(seen) != 5 {
				t.Errorf("paging by 2: %d pages, issues seen %v; want 3 pages and 5 issues once each", pages, seen)
			}

			var detail backend.IssueDetail
			callOK(t, c, ToolGetIssue, map[string]any{"issueId": sd.charge}, &detail)
			envs := map[string]int64{}
			for _, ts := range detail.Tags {
				if ts.Key == "environment" {
					for _, v := range ts.TopValues {
						envs[v.Value] = v.Count
					}
				}
			}
			if diff := cmp.Diff(map[string]int64{"staging": 3, "production": 1}, envs); diff != "" || detail.Count != 4 || detail.UserCount != 1 {
				t.Errorf("get_issue count=%d users=%d environments (-want +got):\n%s", detail.Count, detail.UserCount, diff)
			}

			var ev backend.Event
			callOK(t, c, ToolGetEvent, map[string]any{"issueId": sd.charge}, &ev)
			if len(ev.Exceptions) != 1 || len(ev.Exceptions[0].Frames) == 0 {
				t.Fatalf("get_event latest: exceptions %+v", ev.Exceptions)
			}
			top := ev.Exceptions[0].Frames[0]
			if ev.Environment != "production" || ev.Release != "shop@1.2.3" || !top.InApp || top.Function != "chargeCard" || top.Line != sd.chargeLine {
				t.Errorf("get_event latest: env %q release %q first frame %+v; want production, shop@1.2.3, in-app chargeCard line %d", ev.Environment, ev.Release, top, sd.chargeLine)
			}
			var short backend.Event
			callOK(t, c, ToolGetEvent, map[string]any{"issueId": sd.charge, "eventId": "oldest", "maxFrames": 1, "maxBreadcrumbs": 0}, &short)
			if short.Environment != "staging" || len(short.Exceptions[0].Frames) != 1 || short.Exceptions[0].FramesOmitted == 0 || !short.Truncated || short.Hint == "" {
				t.Errorf("get_event oldest maxFrames=1: env %q, %d frames, %d omitted, truncated %v hint %q; want staging, 1 frame, the rest counted and a hint",
					short.Environment, len(short.Exceptions[0].Frames), short.Exceptions[0].FramesOmitted, short.Truncated, short.Hint)
			}
			var chained backend.Event
			callOK(t, c, ToolGetEvent, map[string]any{"issueId": sd.cart}, &chained)
			var chain []string
			for _, x := range chained.Exceptions {
				chain = append(chain, x.Type+": "+x.Value)
			}
			if diff := cmp.Diff([]string{"*fmt.wrapError: load cart of bob: cart missing", "*errors.errorString: cart missing"}, chain); diff != "" {
				t.Errorf("get_event exception chain (-want +got):\n%s", diff)
			}

			var events backend.EventList
			callOK(t, c, ToolListIssueEvents, map[string]any{"issueId": sd.charge, "limit": 3}, &events)
			var rest backend.EventList
			callOK(t, c, ToolListIssueEvents, map[string]any{"issueId": sd.charge, "limit": 3, "cursor": events.NextCursor}, &rest)
			if len(events.Events) != 3 || events.Events[0].Environment != "production" || len(rest.Events) != 1 || rest.NextCursor != "" {
				t.Errorf("list_issue_events: first page %+v, second %+v; want 3 newest first (production), then 1", events.Events, rest.Events)
			}
			var byID backend.Event
			callOK(t, c, ToolGetEvent, map[string]any{"issueId": sd.charge, "eventId": rest.Events[0].ID}, &byID)
			if byID.ID != rest.Events[0].ID {
				t.Errorf("get_event by id returned %s, want %s", byID.ID, rest.Events[0].ID)
			}

			var tv backend.TagValueList
			callOK(t, c, ToolGetTagValues, map[string]any{"issueId": sd.charge, "key": "environment"}, &tv)
			var vals []string
			for _, v := range tv.Values {
				vals = append(vals, fmt.Sprintf("%s=%d", v.Value, v.Count))
			}
			if diff := cmp.Diff([]string{"staging=3", "production=1"}, vals); diff != "" || tv.TotalValues != 4 {
				t.Errorf("get_tag_values environment total=%d (-want +got):\n%s", tv.TotalValues, diff)
			}
		})
	}
}

// TestToolErrorsSayWhatToDo: bad arguments and unknown ids come back as isError
// results whose message names the problem and the fix, over both backends.
func TestToolErrorsSayWhatToDo(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	_, srv := sentrytest.New(t, "")
	backends := map[string]backend.Backend{"local": store, "sentry": sentrytest.NewBackend(t, srv.URL)}
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolSearchIssues, map[string]any{"statsPeriod": "yesterday"}, "give numbers with units"},
		{ToolSearchIssues, map[string]any{"statsPeriod": "24h", "start": "2026-05-01T00:00:00Z", "end": "2026-05-02T00:00:00Z"}, "not both"},
		{ToolSearchIssues, map[string]any{"limit": 500}, `field "limit"`},
		{ToolSearchIssues, map[string]any{"sort": "oldest"}, `field "sort"`},
		{ToolSearchIssues, map[string]any{"cursor": "not a cursor!"}, "cursor"},
		{ToolGetIssue, map[string]any{}, "issueId"},
		{ToolGetIssue, map[string]any{"issueId": "../../admin"}, "is not an id"},
		{ToolGetIssue, map[string]any{"issueId": "9999"}, "not found"},
		{ToolGetEvent, map[string]any{"issueId": "1001", "eventId": "yesterday"}, "not latest, oldest or a 32-character hex event id"},
		{ToolGetTagValues, map[string]any{"issueId": "1001"}, "key"},
		{ToolListIssueEvents, map[string]any{"issueId": "1001", "limit": -1}, `field "limit"`},
		{ToolListProjects, map[string]any{"organization": "other"}, "other"},
	}
	for name, b := range backends {
		for _, rev := range revisions {
			c := connect(t, b, Config{}, rev)
			for _, tc := range cases {
				if msg := callErr(t, c, tc.tool, tc.args); !strings.Contains(msg, tc.want) {
					t.Errorf("%s at %s: %s(%v) = %q; want it to mention %q", name, rev, tc.tool, tc.args, msg, tc.want)
				}
			}
		}
	}
}

// TestEveryToolOverTheSentryFake: every tool at both revisions against the fake of the
// Sentry API (sentryapi/sentrytest), with the arguments passed through to the API.
func TestEveryToolOverTheSentryFake(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			c := connect(t, b, Config{}, rev)

			var projects backend.ProjectList
			callOK(t, c, ToolListProjects, nil, &projects)
			var slugs []string
			for _, p := range projects.Projects {
				slugs = append(slugs, p.Organization+"/"+p.Slug+"#"+p.ID)
			}
			if diff := cmp.Diff([]string{"acme/backend#11", "acme/storefront#12"}, slugs); diff != "" || len(projects.Organizations) != 1 || projects.Organizations[0].Slug != "acme" {
				t.Errorf("list_projects organizations %+v (-want +got):\n%s", projects.Organizations, diff)
			}

			var page1, page2 backend.IssueList
			callOK(t, c, ToolSearchIssues, map[string]any{"query": "is:unresolved level:error", "sort": "freq", "statsPeriod": "24h", "project": []string{"backend"}, "limit": 2}, &page1)
			sent := fake.Seen()[len(fake.Seen())-1].Query()
			if sent.Get("query") != "is:unresolved level:error" || sent.Get("sort") != "freq" || sent.Get("statsPeriod") != "24h" || sent.Get("project") != "11" || sent.Get("limit") != "2" {
				t.Errorf("search_issues sent %v to Sentry", sent)
			}
			callOK(t, c, ToolSearchIssues, map[string]any{"query": "is:unresolved level:error", "sort": "freq", "statsPeriod": "24h", "project": []string{"backend"}, "limit": 2, "cursor": page1.NextCursor}, &page2)
			var ids []string
			for _, is := range append(page1.Issues, page2.Issues...) {
				ids = append(ids, is.ID)
			}
			if diff := cmp.Diff([]string{"1001", "1002", "1003", "1004"}, ids); diff != "" || page1.Issues[0].Count != 1520 || page1.NextCursor != "0:2:0" {
				t.Errorf("search_issues two pages (cursor %q, first count %d) (-want +got):\n%s", page1.NextCursor, page1.Issues[0].Count, diff)
			}

			var detail backend.IssueDetail
			callOK(t, c, ToolGetIssue, map[string]any{"issueId": "1001"}, &detail)
			var keys []string
			for _, ts := range detail.Tags {
				keys = append(keys, ts.Key)
			}
			if diff := cmp.Diff([]string{"environment", "release", "server_name", "browser"}, keys); diff != "" || detail.ShortID != "BACKEND-1" {
				t.Errorf("get_issue short id %q tag keys (-want +got):\n%s", detail.ShortID, diff)
			}

			var ev backend.Event
			callOK(t, c, ToolGetEvent, map[string]any{"issueId": "1002", "eventId": "latest", "maxFrames": 3}, &ev)
			if len(ev.Exceptions) != 2 || ev.Exceptions[1].Mechanism != "chained" || ev.Exceptions[0].Frames[0].Function != "Load" ||
				ev.Request.Headers["Authorization"] != event.Redacted || ev.Extra["db_password"] != event.Redacted || !ev.Truncated {
				t.Errorf("get_event latest of 1002 = %+v; want a chain of two, Load first, secrets redacted, truncated at 3 frames", ev)
			}

			var events backend.EventList
			callOK(t, c, ToolListIssueEvents, map[string]any{"issueId": "1002", "limit": 10}, &events)
			if len(events.Events) != 2 || events.Events[0].ID != "9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b" {
				t.Errorf("list_issue_events 1002 = %+v", events.Events)
			}

			var tv backend.TagValueList
			callOK(t, c, ToolGetTagValues, map[string]any{"issueId": "1002", "key": "environment"}, &tv)
			if len(tv.Values) != 2 || tv.Values[0].Value != "production" || tv.Values[0].Count != 200 || tv.TotalValues != 230 {
				t.Errorf("get_tag_values environment of 1002 = %+v", tv)
			}
		})
	}
}

// TestSentryRefusedTokenIsAToolError: a token Sentry refuses makes every call an
// isError result naming SENTRY_AUTH_TOKEN, never echoing the token.
func TestSentryRefusedTokenIsAToolError(t *testing.T) {
	_, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.Token = "sntrys_wrong_token" })
	for _, rev := range revisions {
		c := connect(t, b, Config{}, rev)
		msg := callErr(t, c, ToolSearchIssues, map[string]any{"query": "is:unresolved"})
		if !strings.Contains(msg, "SENTRY_AUTH_TOKEN") || strings.Contains(msg, "sntrys_wrong_token") {
			t.Errorf("at %s: %q; want it to name SENTRY_AUTH_TOKEN without the token", rev, msg)
		}
	}
}

// TestIssueResource: each issue is a resource holding its details and a short latest
// event; recent issues are listed; unknown and malformed ids are protocol errors.
func TestIssueResource(t *testing.T) {
	sd := seedLocalStore(t, t.TempDir())
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			c := connect(t, sd.store, Config{}, rev)
			var tmpl struct {
				ResourceTemplates []mcpkit.ResourceTemplate `json:"resourceTemplates"`
			}
			json.Unmarshal(c.Call("resources/templates/list", nil), &tmpl)
			if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != IssueURITemplate {
				t.Errorf("resource templates = %+v", tmpl.ResourceTemplates)
			}

			var list struct {
				Resources []mcpkit.Resource `json:"resources"`
			}
			json.Unmarshal(c.Call("resources/list", nil), &list)
			uris := map[string]string{}
			for _, r := range list.Resources {
				uris[r.URI] = r.Title
			}
			if len(list.Resources) != 5 || uris[IssueURI(sd.charge)] != "*errors.errorString: card declined" {
				t.Errorf("resources/list = %+v; want the 5 issues, titled", list.Resources)
			}

			uri := IssueURI(sd.charge)
			var read struct {
				Contents []mcpkit.ResourceContents `json:"contents"`
			}
			json.Unmarshal(c.Call("resources/read", map[string]any{"uri": uri}), &read)
			if len(read.Contents) != 1 || read.Contents[0].Text == nil || read.Contents[0].MIMEType != "application/json" || read.Contents[0].URI != uri {
				t.Fatalf("resources/read = %+v", read.Contents)
			}
			var body IssueResource
			dec := json.NewDecoder(strings.NewReader(*read.Contents[0].Text))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&body); err != nil {
				t.Fatal(err)
			}
			if body.Issue.ID != sd.charge || body.Issue.Count != 4 || body.LatestEvent == nil || body.LatestEvent.Environment != "production" || body.LatestEventError != "" {
				t.Errorf("resource body = %s", *read.Contents[0].Text)
			} else if n := len(body.LatestEvent.Exceptions[0].Frames); n == 0 || n > resourceMaxFrames {
				t.Errorf("resource latest event has %d frames; want 1 to %d", n, resourceMaxFrames)
			}

			for _, tc := range []struct {
				uri  string
				want string
			}{
				{IssueURI("99999"), "resource not found"},
				{IssueURI("..%2f..%2fsecret"), "is not an id"},
				{"errors://issues/", "is required"},
			} {
				resp := c.Request("resources/read", map[string]any{"uri": tc.uri})
				if resp.Error == nil || !strings.Contains(resp.Error.Message, tc.want) {
					t.Errorf("resources/read %s = %s; want an error containing %q", tc.uri, resp.Raw, tc.want)
				}
			}
		})
	}
}

// TestIssueResourceWithoutLatestEvent: when the backend cannot return the latest
// event (the Sentry fake has no fixture for issue 1001's), the resource still holds
// the issue and says why the event is missing.
func TestIssueResourceWithoutLatestEvent(t *testing.T) {
	_, srv := sentrytest.New(t, "")
	c := connect(t, sentrytest.NewBackend(t, srv.URL), Config{}, "2026-07-28")
	var read struct {
		Contents []mcpkit.ResourceContents `json:"contents"`
	}
	json.Unmarshal(c.Call("resources/read", map[string]any{"uri": IssueURI("1001")}), &read)
	var body IssueResource
	if len(read.Contents) != 1 || json.Unmarshal([]byte(*read.Contents[0].Text), &body) != nil {
		t.Fatalf("resources/read = %+v", read.Contents)
	}
	if body.Issue.ID != "1001" || body.LatestEvent != nil || !strings.Contains(body.LatestEventError, "not found") {
		t.Errorf("resource = %+v; want issue 1001 and a latestEventError", body)
	}
}

// TestTriagePrompt: triage_issue walks through the tools in order and embeds the
// issue; an unknown or malformed issue id is refused with a hint.
func TestTriagePrompt(t *testing.T) {
	sd := seedLocalStore(t, t.TempDir())
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			c := connect(t, sd.store, Config{}, rev)
			var list struct {
				Prompts []mcpkit.Prompt `json:"prompts"`
			}
			json.Unmarshal(c.Call("prompts/list", nil), &list)
			if len(list.Prompts) != 1 || list.Prompts[0].Name != PromptTriageIssue || len(list.Prompts[0].Arguments) != 1 || !list.Prompts[0].Arguments[0].Required {
				t.Fatalf("prompts/list = %+v", list.Prompts)
			}
			var got mcpkit.GetPromptResult
			json.Unmarshal(c.Call("prompts/get", map[string]any{"name": PromptTriageIssue, "arguments": map[string]string{"issueId": sd.charge}}), &got)
			if len(got.Messages) != 2 || got.Messages[1].Content.Type != "resource" {
				t.Fatalf("prompts/get = %+v; want the steps and the embedded issue", got.Messages)
			}
			steps := got.Messages[0].Content.Text
			order := []string{"Triage error issue " + sd.charge, "get_event with issueId " + sd.charge, "get_tag_values", "eventId oldest", "search_issues", "never as instructions"}
			last := -1
			for _, w := range order {
				i := strings.Index(steps, w)
				if i <= last {
					t.Errorf("the steps lack %q after the previous step:\n%s", w, steps)
				}
				last = i
			}
			res := got.Messages[1].Content.Resource
			if res == nil || res.URI != IssueURI(sd.charge) || res.Text == nil || !strings.Contains(*res.Text, `"count":4`) {
				t.Errorf("embedded resource = %+v", res)
			}

			for _, tc := range []struct {
				args map[string]string
				want string
			}{
				{map[string]string{"issueId": "424242"}, "find issue ids with search_issues"},
				{map[string]string{"issueId": "a b"}, "is not an id"},
				{map[string]string{}, `needs argument "issueId"`},
			} {
				resp := c.Request("prompts/get", map[string]any{"name": PromptTriageIssue, "arguments": tc.args})
				if resp.Error == nil || !strings.Contains(resp.Error.Message, tc.want) {
					t.Errorf("prompts/get %v = %s; want an error containing %q", tc.args, resp.Raw, tc.want)
				}
			}
		})
	}
}

// TestTriagePromptWhenSentryIsDown: a backend that fails (not a missing issue) still
// yields the steps, saying the issue could not be loaded.
func TestTriagePromptWhenSentryIsDown(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	fake.SetOverride("/api/0/organizations/acme/issues/1001/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.MaxAttempts = 1 })
	c := connect(t, b, Config{}, "2026-07-28")
	var got mcpkit.GetPromptResult
	json.Unmarshal(c.Call("prompts/get", map[string]any{"name": PromptTriageIssue, "arguments": map[string]string{"issueId": "1001"}}), &got)
	if len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.Text, "could not be loaded just now") || !strings.Contains(got.Messages[0].Content.Text, "get_event with issueId 1001") {
		t.Errorf("prompt while Sentry fails = %+v", got.Messages)
	}
}
