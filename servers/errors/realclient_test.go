package errorserver

// Real clients against the server: the official Go SDK client and the Inspector CLI,
// over stdio (the built binary) and Streamable HTTP (httptest with the server's
// HTTPHandler), over the local store fed by sentry-go and over the Sentry fake.

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	name  string
	cases []clientCase
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
		name: "local",
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
	_, srv := newFakeSentry(t, "")
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
					Env:     []string{"SENTRY_AUTH_TOKEN=" + fakeToken, "SENTRY_URL=" + srv.URL, "SENTRY_ORG=acme", "SENTRY_DSN=", "ERRORS_BACKEND=", "MCP_HTTP_ADDR="},
				}
			}
			return httpTarget(t, newTestSentry(t, srv.URL))
		},
	}
}

func httpTarget(t *testing.T, b Backend) realclient.Target {
	srv := httptest.NewServer(New(Config{Logger: quietLogger}, b).HTTPHandler(nil))
	t.Cleanup(srv.Close)
	return realclient.Target{URL: srv.URL + "/mcp"}
}

// checkClientResult asserts a tool result as a real client received it: not an
// error, its text the same JSON as its structuredContent, the expected fragment in it.
func checkClientResult(t *testing.T, what string, tc clientCase, text string, isError bool, structured any) {
	t.Helper()
	if isError {
		t.Errorf("%s: isError: %s", what, text)
		return
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Errorf("%s: text is not JSON: %v", what, err)
		return
	}
	raw, _ := json.Marshal(structured)
	var fromStructured any
	_ = json.Unmarshal(raw, &fromStructured)
	if d := cmp.Diff(fromStructured, fromText); d != "" {
		t.Errorf("%s: text and structuredContent differ (-structured +text):\n%s", what, d)
	}
	if !strings.Contains(text, tc.wantText) {
		t.Errorf("%s: result lacks %s: %s", what, tc.wantText, text)
	}
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
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					tools, err := cs.ListTools(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					var names []string
					for _, tl := range tools.Tools {
						names = append(names, tl.Name)
						if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
							t.Errorf("%s is not readOnlyHint as the Go SDK sees it", tl.Name)
						}
					}
					if d := cmp.Diff(ToolNames, names); d != "" {
						t.Errorf("tools (-want +got):\n%s", d)
					}
					for _, tc := range world.cases {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
						if err != nil {
							t.Errorf("%s: %v", tc.tool, err)
							continue
						}
						text := ""
						for _, c := range res.Content {
							if tc, ok := c.(*mcp.TextContent); ok {
								text += tc.Text
							}
						}
						checkClientResult(t, "Go SDK "+world.name+" "+transport+" "+rev+" "+tc.tool, tc, text, res.IsError, res.StructuredContent)
					}
				})
			}
		}
	}
}

// TestInspectorCLI: the Inspector CLI (modern and legacy eras) lists the tools and
// calls search_issues and get_event over stdio and HTTP, on the local store. Each CLI
// run starts Node, so the set is kept to what the brief asks.
func TestInspectorCLI(t *testing.T) {
	realclient.NpmBin(t, "mcp-inspector") // skip (or fail in CI) before seeding when Node is missing
	world := localWorld(t)
	byName := map[string]clientCase{}
	for _, tc := range world.cases {
		byName[tc.tool] = tc
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(transport+"/"+era+"/tools_list", func(t *testing.T) {
				t.Parallel()
				var res struct {
					Result struct {
						Tools []struct {
							Name string `json:"name"`
						} `json:"tools"`
					} `json:"result"`
				}
				raw := realclient.Inspector(t, world.target(t, transport), era, "--method", "tools/list")
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatalf("%v: %s", err, raw)
				}
				var got []string
				for _, tl := range res.Result.Tools {
					got = append(got, tl.Name)
				}
				if d := cmp.Diff(ToolNames, got); d != "" {
					t.Errorf("tools (-want +got):\n%s", d)
				}
			})
			for _, name := range []string{ToolSearchIssues, ToolGetEvent} {
				t.Run(transport+"/"+era+"/"+name, func(t *testing.T) {
					t.Parallel()
					args, _ := json.Marshal(byName[name].args)
					raw := realclient.Inspector(t, world.target(t, transport), era, "--method", "tools/call", "--tool-name", name, "--tool-args-json", string(args))
					var res struct {
						Result struct {
							Content []struct {
								Type string `json:"type"`
								Text string `json:"text"`
							} `json:"content"`
							StructuredContent any  `json:"structuredContent"`
							IsError           bool `json:"isError"`
						} `json:"result"`
					}
					if err := json.Unmarshal(raw, &res); err != nil {
						t.Fatalf("%v: %s", err, raw)
					}
					if len(res.Result.Content) != 1 {
						t.Fatalf("content = %+v", res.Result.Content)
					}
					checkClientResult(t, "Inspector "+transport+" "+era+" "+name, byName[name], res.Result.Content[0].Text, res.Result.IsError, res.Result.StructuredContent)
				})
			}
		}
	}
}
