package errorserver

// Real clients against the server: the official Go SDK client and the Inspector CLI,
// over stdio (the built binary) and Streamable HTTP (httptest with the server's
// HTTPHandler), over the local store fed by sentry-go and over the Sentry fake.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// clientCase is one tool call a real client makes and a fragment its JSON must hold.
type clientCase struct {
	tool     string
	args     map[string]any
	wantText string
}

// realClientWorld is a backend for real clients: a seeded local store (a closed data
// directory each server copies) or the Sentry fake.
type realClientWorld struct {
	name   string
	cases  []clientCase
	seeded *seeded // the local store's seeding (nil for the Sentry fake)
	// target starts the server for one client over "stdio" or "http".
	target func(t *testing.T, transport string) realclient.Target
}

// localWorld seeds a store with sentry-go, closes it, and serves a copy of its data
// directory to each client: the binary for stdio, New over OpenLocal for HTTP.
func localWorld(t *testing.T) realClientWorld {
	sd := seedLocalStore(t, t.TempDir())
	if err := sd.store.Close(); err != nil {
		t.Fatal(err)
	}
	return realClientWorld{
		name:   "local",
		seeded: sd,
		cases: []clientCase{
			{ToolListProjects, map[string]any{}, `"id":"42"`},
			{ToolSearchIssues, map[string]any{"query": "environment:production"}, `"id":"` + sd.charge + `"`},
			{ToolGetIssue, map[string]any{"issueId": sd.charge}, `"count":4`},
			{ToolGetEvent, map[string]any{"issueId": sd.charge}, `"function":"chargeCard"`},
			{ToolListIssueEvents, map[string]any{"issueId": sd.charge, "limit": 2}, `"nextCursor":`},
			{ToolGetTagValues, map[string]any{"issueId": sd.charge, "key": "environment"}, `{"value":"staging","count":3`},
		},
		target: func(t *testing.T, transport string) realclient.Target {
			dir := filepath.Join(t.TempDir(), "data")
			copyDir(t, sd.dir, dir)
			if transport == "stdio" {
				return realclient.Target{
					Command: []string{serverBinary(t), "--backend", "local", "--data", dir, "--ingest", "127.0.0.1:0"},
					Env:     []string{"SENTRY_AUTH_TOKEN=", "SENTRY_DSN=", "ERRORS_BACKEND=", "MCP_HTTP_ADDR="},
				}
			}
			store := openTestStore(t, dir)
			t.Cleanup(func() { store.Close() })
			return httpTarget(t, store)
		},
	}
}

// sentryWorld serves the Sentry API fake; the binary reaches it through SENTRY_URL.
func sentryWorld(t *testing.T) realClientWorld {
	_, srv := sentrytest.New(t, "")
	return realClientWorld{
		name: "sentry",
		cases: []clientCase{
			{ToolListProjects, map[string]any{}, `"slug":"storefront"`},
			{ToolSearchIssues, map[string]any{"query": "is:unresolved", "limit": 2}, `"shortId":"BACKEND-1"`},
			{ToolGetIssue, map[string]any{"issueId": "1001"}, `"count":1520`},
			{ToolGetEvent, map[string]any{"issueId": "1002"}, `"mechanism":"chained"`},
			{ToolListIssueEvents, map[string]any{"issueId": "1002"}, `"id":"9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b"`},
			{ToolGetTagValues, map[string]any{"issueId": "1002", "key": "environment"}, `{"value":"production","count":200`},
		},
		target: func(t *testing.T, transport string) realclient.Target {
			if transport == "stdio" {
				return realclient.Target{
					Command: []string{serverBinary(t)},
					Env:     []string{"SENTRY_AUTH_TOKEN=" + sentrytest.Token, "SENTRY_URL=" + srv.URL, "SENTRY_ORG=acme", "SENTRY_DSN=", "ERRORS_BACKEND=", "MCP_HTTP_ADDR="},
				}
			}
			return httpTarget(t, sentrytest.NewBackend(t, srv.URL))
		},
	}
}

func httpTarget(t *testing.T, b backend.Backend) realclient.Target {
	return realclient.HTTPTarget(t, New(Config{Logger: quietLogger}, b).HTTPHandler(nil))
}

// TestGoSDKClientCallsEveryTool: the Go SDK client (v1.8.0) lists the tools and calls
// every one, over stdio and HTTP, at 2026-07-28 and 2025-11-25, against both backends.
func TestGoSDKClientCallsEveryTool(t *testing.T) {
	for _, world := range []realClientWorld{localWorld(t), sentryWorld(t)} {
		for _, transport := range []string{"stdio", "http"} {
			for _, rev := range revisions {
				t.Run(world.name+"/"+transport+"/"+rev, func(t *testing.T) {
					t.Parallel()
					cs := realclient.GoSDK(t, world.target(t, transport), rev)
					realclient.CheckGoSDKTools(t, cs, ToolNames, ToolNames)
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					for _, tc := range world.cases {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
						if err != nil {
							t.Errorf("%s: %v", tc.tool, err)
							continue
						}
						what, text := "Go SDK "+world.name+" "+transport+" "+rev+" "+tc.tool, realclient.GoSDKText(res)
						if realclient.CheckJSONResult(t, what, text, res.IsError, res.StructuredContent) != nil && !strings.Contains(text, tc.wantText) {
							t.Errorf("%s: result lacks %s: %s", what, tc.wantText, text)
						}
					}
				})
			}
		}
	}
}

// TestInspectorCLI: the Inspector CLI (modern and legacy eras) lists the tools and
// calls every one over stdio and HTTP on the local store fed by sentry-go. Each result
// must be exactly what the store itself answers for the same input, and must show the
// seeded events (issue title, event ids, tag counts); an unknown issue must come back
// as isError. Under -short only one tool per transport and era is called.
func TestInspectorCLI(t *testing.T) {
	realclient.NpmBin(t, "mcp-inspector") // skip (or fail in CI) before seeding when Node is missing
	world := localWorld(t)
	calls := inspectorCalls(t, world.seeded)
	combo := 0
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"modern", "legacy"} {
			rows := calls
			if testing.Short() {
				rows = []inspectorCall{calls[combo%len(ToolNames)]}
			}
			combo++
			if !testing.Short() {
				t.Run("tools_list/"+transport+"/"+era, func(t *testing.T) {
					t.Parallel()
					got := realclient.InspectorToolNames(t, world.target(t, transport), era)
					if d := cmp.Diff(ToolNames, got); d != "" {
						t.Errorf("tools (-want +got):\n%s", d)
					}
				})
			}
			for _, call := range rows {
				t.Run(call.name+"/"+transport+"/"+era, func(t *testing.T) {
					t.Parallel()
					target := world.target(t, transport)
					if call.wantError != "" {
						if text := realclient.InspectorCallToolError(t, target, era, call.tool, call.args); !strings.Contains(text, call.wantError) {
							t.Errorf("error %q; want it to contain %q", text, call.wantError)
						}
						return
					}
					call.check(t, realclient.InspectorCallTool(t, target, era, call.tool, call.args))
				})
			}
		}
	}
}

// inspectorCall is one tools/call the Inspector CLI makes and what its result must be.
type inspectorCall struct {
	name      string // subtest name: the tool, or the tool and the failure it provokes
	tool      string
	args      any // marshalled to --tool-args-json
	check     func(t *testing.T, text string)
	wantError string // set: the call must answer isError (exit status 5) with this text
}

// inspectorCalls is one call of every tool (in ToolNames order) and one that must
// fail. The expected results come from a copy of the seeded data directory opened
// here: the store's own answer to the same input is what the Inspector must show.
func inspectorCalls(t *testing.T, sd *seeded) []inspectorCall {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "oracle")
	copyDir(t, sd.dir, dir)
	store := openTestStore(t, dir)
	t.Cleanup(func() { store.Close() })
	ctx := t.Context()
	// The store's answers as the tools present them (the server's clock and DSN aside,
	// which expectCall leaves out of the comparison).
	oracle := backend.NewPresenter(store, nil, nil, "", nil)

	all, err := oracle.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: sd.charge, Limit: backend.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Events) != 4 {
		t.Fatalf("the card-declined issue has %d events; want 4: %+v", len(all.Events), all.Events)
	}
	var ids []string
	for _, e := range all.Events {
		ids = append(ids, e.ID)
	}
	oldest := ids[len(ids)-1]
	const title = "*errors.errorString: card declined"
	environments := []backend.TagValue{{Value: "staging", Count: 3}, {Value: "production", Count: 1}}

	calls := []inspectorCall{
		expectCall(t, ToolListProjects, backend.ListProjectsInput{}, oracle.ListProjects, func(t *testing.T, got *backend.ProjectList) {
			want := []backend.Project{{ID: "42", Slug: "42", Name: "42", Platform: "go", Organization: "local", Issues: 5, Events: 10, Receives: []string{"event"}}}
			if d := cmp.Diff(want, got.Projects, ignoreServerFields); d != "" {
				t.Errorf("projects (-want +got):\n%s", d)
			}
			// The binary serves the store with its ingest endpoint: the DSN of project 42.
			if dsn := got.Projects[0].DSN; dsn != "" && !strings.HasSuffix(dsn, "/42") {
				t.Errorf("project 42's DSN %q", dsn)
			}
		}),
		expectCall(t, ToolSearchIssues, backend.SearchIssuesInput{Query: "environment:production"}, oracle.SearchIssues, func(t *testing.T, got *backend.IssueList) {
			if len(got.Issues) != 1 || got.Issues[0].ID != sd.charge || got.Issues[0].Title != title || got.Issues[0].Value != "card declined" {
				t.Errorf("issues = %+v; want only %s %q", got.Issues, sd.charge, title)
			}
		}),
		expectCall(t, ToolGetIssue, backend.GetIssueInput{IssueID: sd.charge}, oracle.GetIssue, func(t *testing.T, got *backend.IssueDetail) {
			if got.ID != sd.charge || got.Title != title || got.Count != 4 || got.UserCount != 1 {
				t.Errorf("issue %s %q count %d users %d; want %s %q count 4 users 1", got.ID, got.Title, got.Count, got.UserCount, sd.charge, title)
			}
			var env []backend.TagValue
			for _, tag := range got.Tags {
				if tag.Key == "environment" {
					env = tag.TopValues
				}
			}
			if d := cmp.Diff(environments, countsOnly(env)); d != "" {
				t.Errorf("environment tag (-want +got):\n%s", d)
			}
		}),
		expectCall(t, ToolGetEvent, backend.GetEventInput{IssueID: sd.charge, EventID: oldest}, oracle.GetEvent, func(t *testing.T, got *backend.Event) {
			if got.ID != oldest || got.IssueID != sd.charge || got.Environment != "staging" || got.Release != "shop@1.2.3" {
				t.Errorf("event %s of %s in %s/%s; want %s of %s in staging/shop@1.2.3", got.ID, got.IssueID, got.Environment, got.Release, oldest, sd.charge)
			}
			if len(got.Exceptions) != 1 || got.Exceptions[0].Value != "card declined" || len(got.Exceptions[0].Frames) == 0 {
				t.Fatalf("exceptions = %+v; want one card declined with frames", got.Exceptions)
			}
			top := got.Exceptions[0].Frames[0]
			current := ""
			for _, c := range top.Context {
				if c.Current {
					current = c.Code
				}
			}
			if top.Function != "chargeCard" || top.Line != sd.chargeLine || !strings.Contains(current, `errors.New("card declined")`) {
				t.Errorf("top frame %s line %d at %q; want chargeCard line %d at the capture", top.Function, top.Line, current, sd.chargeLine)
			}
		}),
		expectCall(t, ToolListIssueEvents, backend.ListIssueEventsInput{IssueID: sd.charge, Limit: 2}, oracle.ListIssueEvents, func(t *testing.T, got *backend.EventList) {
			var gotIDs, gotEnvs []string
			for _, e := range got.Events {
				gotIDs = append(gotIDs, e.ID)
				gotEnvs = append(gotEnvs, e.Environment)
			}
			if d := cmp.Diff(ids[:2], gotIDs); d != "" {
				t.Errorf("event ids: not the newest two (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{"production", "staging"}, gotEnvs); d != "" {
				t.Errorf("environments (-want +got):\n%s", d)
			}
			if got.NextCursor == "" || !got.Truncated {
				t.Errorf("nextCursor %q truncated %v; want a cursor to the two older events", got.NextCursor, got.Truncated)
			}
		}),
		expectCall(t, ToolGetTagValues, backend.GetTagValuesInput{IssueID: sd.charge, Key: "environment"}, oracle.GetTagValues, func(t *testing.T, got *backend.TagValueList) {
			if got.Key != "environment" || got.TotalValues != 4 || got.UniqueValues != 2 {
				t.Errorf("key %q total %d unique %d; want environment 4 2", got.Key, got.TotalValues, got.UniqueValues)
			}
			if d := cmp.Diff(environments, countsOnly(got.Values)); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
		}),
		{
			name: ToolGetIssue + "_unknown", tool: ToolGetIssue, args: backend.GetIssueInput{IssueID: "999999"},
			wantError: `no issue "999999" in the local store`,
		},
	}
	var names []string
	for _, c := range calls[:len(ToolNames)] {
		names = append(names, c.tool)
	}
	if d := cmp.Diff(ToolNames, names); d != "" {
		t.Fatalf("the Inspector calls do not cover every tool in order (-want +got):\n%s", d)
	}
	return calls
}

// expectCall builds the call of tool with in: its result must decode into Out with no
// unknown field, equal the oracle store's answer to in, and pass check.
func expectCall[In, Out any](t *testing.T, tool string, in In, oracle func(context.Context, In) (*Out, error), check func(t *testing.T, got *Out)) inspectorCall {
	t.Helper()
	want, err := oracle(t.Context(), in)
	if err != nil {
		t.Fatalf("%s on the oracle store: %v", tool, err)
	}
	return inspectorCall{name: tool, tool: tool, args: in, check: func(t *testing.T, text string) {
		t.Helper()
		got := new(Out)
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(got); err != nil {
			t.Fatalf("decoding %s: %v", text, err)
		}
		if d := cmp.Diff(want, got, ignoreServerFields); d != "" {
			t.Errorf("result differs from the store's own answer (-store +inspector):\n%s", d)
		}
		check(t, got)
	}}
}

// ignoreServerFields leaves out of a comparison what the serving process adds: its
// clock (now) and its DSN.
var ignoreServerFields = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && (sf.Name() == "Now" || sf.Name() == "DSN")
}, cmp.Ignore())

// countsOnly keeps the value and count of tag values (their times are the seeding's).
func countsOnly(values []backend.TagValue) []backend.TagValue {
	var out []backend.TagValue
	for _, v := range values {
		out = append(out, backend.TagValue{Value: v.Value, Count: v.Count})
	}
	return out
}
