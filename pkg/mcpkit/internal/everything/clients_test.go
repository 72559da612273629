package main

// Real clients against the fixture: the official Go SDK client, the TypeScript
// client v2 and the Inspector CLI, over stdio (this test binary re-executed as the
// fixture) and Streamable HTTP (httptest), at 2026-07-28 and at 2025-11-25. Every
// check compares concrete values: tool names, texts, MIME types, image bytes.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// fixtureEnv, set to "1", turns this test binary into the fixture (stdio, or HTTP
// with --http ADDR): clients and benchmarks start it as a subprocess, so they need
// no separate build.
const fixtureEnv = "MCPKIT_EVERYTHING_FIXTURE"

func TestMain(m *testing.M) {
	if os.Getenv(fixtureEnv) == "1" {
		if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "everything:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fixtureTarget returns the fixture as a client target over the named transport:
// "stdio" (this binary re-executed) or "http" (an httptest server, closed at the end).
func fixtureTarget(t *testing.T, transport string) realclient.Target {
	t.Helper()
	switch transport {
	case "stdio":
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		return realclient.Target{Command: []string{exe}, Env: []string{fixtureEnv + "=1"}}
	case "http":
		srv := httptest.NewServer(newServer(slog.New(slog.NewTextHandler(io.Discard, nil))).HTTPHandler(nil))
		t.Cleanup(srv.Close)
		return realclient.Target{URL: srv.URL + "/mcp"}
	}
	t.Fatalf("unknown transport %q", transport)
	return realclient.Target{}
}

// The wire shapes every client prints, reduced to the fields the checks compare.
type (
	content struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		MIMEType string `json:"mimeType,omitempty"`
		Data     string `json:"data,omitempty"`
	}
	callResult struct {
		Content []content `json:"content"`
		IsError bool      `json:"isError,omitempty"`
	}
	resourceContents struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Text     string `json:"text,omitempty"`
		Blob     string `json:"blob,omitempty"`
	}
	readResult struct {
		Contents []resourceContents `json:"contents"`
	}
	promptMessage struct {
		Role    string  `json:"role"`
		Content content `json:"content"`
	}
	promptResult struct {
		Messages []promptMessage `json:"messages"`
	}
	// resultMeta is the 2026-07-28 result _meta; legacy results carry none.
	resultMeta struct {
		Meta struct {
			ServerInfo *struct {
				Name string `json:"name"`
			} `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
)

// The fixture's answers, as every client must see them.
var (
	wantSimpleText = callResult{Content: []content{{Type: "text", Text: "This is a simple text response for testing."}}}
	wantImage      = callResult{Content: []content{{Type: "image", MIMEType: "image/png", Data: pngBase64}}}
	wantToolError  = callResult{IsError: true, Content: []content{{Type: "text", Text: "This tool intentionally returns an error for testing"}}}
	wantStaticText = readResult{Contents: []resourceContents{{URI: "test://static-text", MIMEType: "text/plain",
		Text: "This is the content of the static text resource."}}}
	wantTemplate = readResult{Contents: []resourceContents{{URI: "test://template/42/data", MIMEType: "application/json",
		Text: `{"data":"Data for ID: 42","id":"42","templateTest":true}`}}}
	promptArgs = map[string]string{"arg1": "alpha", "arg2": "beta"}
	wantPrompt = promptResult{Messages: []promptMessage{{Role: "user",
		Content: content{Type: "text", Text: "Prompt with arguments: arg1='alpha', arg2='beta'"}}}}
	// wantTools must all be listed (the fixture has more).
	wantTools = []string{"test_simple_text", "test_image_content", "test_error_handling", "test_tool_with_progress",
		"test_input_required_result_elicitation", "test_input_required_result_sampling"}
)

// decode re-reads any JSON-able value (a Go SDK result, a Node client's output) as T.
func decode[T any](t *testing.T, what string, v any) T {
	t.Helper()
	var raw []byte
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: decoding %s: %v", what, raw, err)
	}
	return out
}

func checkEqual[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

func checkToolsListed(t *testing.T, what string, names []string) {
	t.Helper()
	for _, n := range wantTools {
		if !slices.Contains(names, n) {
			t.Errorf("%s: tool %q not listed; got %v", what, n, names)
		}
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(names) {
		t.Errorf("%s: duplicate tool names in %v", what, names)
	}
}

// checkEra asserts that a 2026-07-28 result carries the serverInfo _meta and a
// legacy one does not: proof of which wire the client actually used.
func checkEra(t *testing.T, what string, modern bool, result any) {
	t.Helper()
	m := decode[resultMeta](t, what, result)
	switch {
	case modern && (m.Meta.ServerInfo == nil || m.Meta.ServerInfo.Name != "mcpkit-everything"):
		t.Errorf("%s: a 2026-07-28 result lacks _meta io.modelcontextprotocol/serverInfo naming mcpkit-everything", what)
	case !modern && m.Meta.ServerInfo != nil:
		t.Errorf("%s: a legacy result carries the 2026-07-28 serverInfo _meta", what)
	}
}

var (
	transports = []string{"stdio", "http"}
	revisions  = []string{"2026-07-28", "2025-11-25"}
)

// goSDKClient is a Go SDK client that answers the fixture's questions the way the
// checks expect, and records what it was asked.
type goSDKClient struct {
	*mcp.Client
	progress chan *mcp.ProgressNotificationParams

	mu     sync.Mutex
	asked  []string // elicitation messages, in order
	prompt []string // sampling prompts
}

func newGoSDKClient() *goSDKClient {
	c := &goSDKClient{progress: make(chan *mcp.ProgressNotificationParams, 16)}
	c.Client = mcp.NewClient(&mcp.Implementation{Name: "mcpkit-everything-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, req.Params.Message)
			c.mu.Unlock()
			switch req.Params.Message {
			case "What is your name?", "Step 1: What is your name?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Gopher"}}, nil
			case "Step 2: What is your favorite color?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			var text string
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			c.mu.Lock()
			c.prompt = append(c.prompt, text)
			c.mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case c.progress <- req.Params:
			default:
			}
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///workspace", Name: "workspace"})
	return c
}

// TestGoSDKClient drives the fixture with the official Go SDK client (v1.8.0) over
// stdio and HTTP at both revisions: listing, plain and error tools, progress,
// elicitation, sampling and roots (input_required retries at 2026-07-28, server
// requests on the session at 2025-11-25), resources and prompts.
func TestGoSDKClient(t *testing.T) {
	for _, transport := range transports {
		for _, rev := range revisions {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				t.Parallel()
				modern := rev == "2026-07-28"
				c := newGoSDKClient()
				cs := realclient.GoSDKConnect(t, c.Client, fixtureTarget(t, transport), rev)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				what := func(s string) string { return fmt.Sprintf("Go SDK client, %s, %s: %s", transport, rev, s) }

				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("%s: %v", what("tools/list"), err)
				}
				var names []string
				for _, tool := range tools.Tools {
					names = append(names, tool.Name)
				}
				checkToolsListed(t, what("tools/list"), names)
				if i := slices.Index(names, "test_simple_text"); i >= 0 {
					if a := tools.Tools[i].Annotations; a == nil || !a.ReadOnlyHint {
						t.Errorf("%s: test_simple_text is not annotated readOnlyHint: %+v", what("tools/list"), a)
					}
				}

				call := func(name string, args any) *mcp.CallToolResult {
					t.Helper()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
					if err != nil {
						t.Fatalf("%s: %v", what("tools/call "+name), err)
					}
					return res
				}
				simple := call("test_simple_text", map[string]any{})
				checkEqual(t, what("tools/call test_simple_text"), wantSimpleText, decode[callResult](t, what("test_simple_text"), simple))
				checkEra(t, what("tools/call test_simple_text"), modern, simple)
				checkEqual(t, what("tools/call test_image_content"), wantImage, decode[callResult](t, what("test_image_content"), call("test_image_content", nil)))
				checkEqual(t, what("tools/call test_error_handling"), wantToolError, decode[callResult](t, what("test_error_handling"), call("test_error_handling", nil)))

				// Progress: three notifications arrive for the request's token, and the
				// text is the token's value as the Go SDK fixture writes it (fmt "%v":
				// no JSON quotes; the fixture once returned the JSON form).
				token := "progress-" + transport + "-" + rev
				params := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
				params.SetProgressToken(token)
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					t.Fatalf("%s: %v", what("tools/call test_tool_with_progress"), err)
				}
				checkEqual(t, what("tools/call test_tool_with_progress"), callResult{Content: []content{{Type: "text", Text: token}}},
					decode[callResult](t, what("test_tool_with_progress"), res))
				var got []float64
				for len(got) < 3 {
					select {
					case p := <-c.progress:
						if p.ProgressToken != token || p.Total != 100 {
							t.Errorf("%s: progress notification %+v, want token %q and total 100", what("test_tool_with_progress"), p, token)
						}
						got = append(got, p.Progress)
					case <-ctx.Done():
						t.Fatalf("%s: %d progress notifications arrived, want 3", what("test_tool_with_progress"), len(got))
					}
				}
				checkEqual(t, what("progress values"), []float64{0, 50, 100}, got)

				// Input from the client: answered by the SDK's handlers, through
				// input_required retries (2026-07-28) or server requests (2025-11-25).
				// Roots guard a fixed interop bug: mcpkit once wrote the 2026 input
				// request as {"method":"roots/list"} without "params" (schema-valid),
				// which the Go SDK client cannot decode ("unexpected end of JSON input").
				for _, tc := range []struct{ tool, want string }{
					{"test_input_required_result_elicitation", "Hello, Gopher!"},
					{"test_input_required_result_multi_round", "Multi-round complete: Gopher likes blue"},
					{"test_input_required_result_sampling", "Sampling response: Paris"},
					{"test_input_required_result_list_roots", "Client exposed 1 root(s): file:///workspace"},
					{"test_input_required_result_multiple_inputs", "Received 3 inputs: user_name, greeting, client_roots"},
				} {
					checkEqual(t, what("tools/call "+tc.tool), callResult{Content: []content{{Type: "text", Text: tc.want}}},
						decode[callResult](t, what(tc.tool), call(tc.tool, map[string]any{})))
				}
				c.mu.Lock()
				checkEqual(t, what("elicitation messages"), []string{"What is your name?", "Step 1: What is your name?", "Step 2: What is your favorite color?", "What is your name?"}, c.asked)
				checkEqual(t, what("sampling prompts"), []string{"What is the capital of France?", "Generate a greeting"}, c.prompt)
				c.mu.Unlock()

				for uri, want := range map[string]readResult{"test://static-text": wantStaticText, "test://template/42/data": wantTemplate} {
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					if err != nil {
						t.Fatalf("%s: %v", what("resources/read "+uri), err)
					}
					checkEqual(t, what("resources/read "+uri), want, decode[readResult](t, what(uri), res))
				}
				resources, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatalf("%s: %v", what("resources/list"), err)
				}
				if !slices.ContainsFunc(resources.Resources, func(r *mcp.Resource) bool { return r.URI == "test://static-text" }) {
					t.Errorf("%s: test://static-text not listed", what("resources/list"))
				}

				prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: promptArgs})
				if err != nil {
					t.Fatalf("%s: %v", what("prompts/get"), err)
				}
				checkEqual(t, what("prompts/get test_prompt_with_arguments"), wantPrompt, decode[promptResult](t, what("prompt"), prompt))
				prompts, err := cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatalf("%s: %v", what("prompts/list"), err)
				}
				if !slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "test_prompt_with_arguments" }) {
					t.Errorf("%s: test_prompt_with_arguments not listed", what("prompts/list"))
				}
			})
		}
	}
}

// TestTypeScriptClient drives the fixture with the TypeScript client v2 (2.4.0):
// negotiation "auto" must select 2026-07-28 (modern era), "legacy" 2025-11-25.
func TestTypeScriptClient(t *testing.T) {
	negotiations := []struct{ mode, revision, era string }{
		{"auto", "2026-07-28", "modern"},
		{"legacy", "2025-11-25", "legacy"},
	}
	runs := []struct {
		name     string
		call     realclient.TSCall
		wantCall callResult
		wantRead readResult
	}{
		{"simple_text", realclient.TSCall{Tool: "test_simple_text", Resource: "test://static-text",
			Prompt: "test_prompt_with_arguments", PromptArgs: promptArgs}, wantSimpleText, wantStaticText},
		{"error_template", realclient.TSCall{Tool: "test_error_handling", Resource: "test://template/42/data"}, wantToolError, wantTemplate},
		{"image", realclient.TSCall{Tool: "test_image_content"}, wantImage, readResult{}},
	}
	for _, transport := range transports {
		for _, n := range negotiations {
			for _, r := range runs {
				t.Run(transport+"/"+n.mode+"/"+r.name, func(t *testing.T) {
					t.Parallel()
					what := func(s string) string {
						return fmt.Sprintf("TypeScript client, %s, negotiation %s: %s", transport, n.mode, s)
					}
					res := realclient.TypeScript(t, fixtureTarget(t, transport), n.mode, r.call)
					checkEqual(t, what("negotiated protocolVersion/era"), [2]string{n.revision, n.era}, [2]string{res.ProtocolVersion, res.Era})
					checkToolsListed(t, what("tools/list"), res.Tools)
					checkEqual(t, what("tools/call "+r.call.Tool), r.wantCall, decode[callResult](t, what("call"), res.Call))
					checkEra(t, what("tools/call "+r.call.Tool), n.era == "modern", res.Call)
					if r.call.Resource != "" {
						checkEqual(t, what("resources/read "+r.call.Resource), r.wantRead, decode[readResult](t, what("resource"), res.Resource))
					}
					if r.call.Prompt != "" {
						checkEqual(t, what("prompts/get "+r.call.Prompt), wantPrompt, decode[promptResult](t, what("prompt"), res.Prompt))
					}
				})
			}
		}
	}
}

// TestInspectorCLI drives the fixture with the Inspector CLI (2.12.0) in both protocol
// eras, pinned (no fallback): tools/list, tools/call (text, and isError with the CLI's
// exit status 5), resources/read and prompts/get, each one CLI run (about 1 s of CPU,
// so image content is left to the other clients).
func TestInspectorCLI(t *testing.T) {
	type inspectorOut struct {
		Result json.RawMessage `json:"result"`
	}
	type toolList struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	runs := []struct {
		name   string
		args   []string
		status int // the CLI's exit status: 5 for a tool's isError
		check  func(t *testing.T, what string, modern bool, result json.RawMessage)
	}{
		{"tools_list", []string{"--method", "tools/list"}, 0, func(t *testing.T, what string, modern bool, result json.RawMessage) {
			list := decode[toolList](t, what, result)
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			checkToolsListed(t, what, names)
		}},
		{"call_simple_text", []string{"--method", "tools/call", "--tool-name", "test_simple_text"}, 0, func(t *testing.T, what string, modern bool, result json.RawMessage) {
			checkEqual(t, what, wantSimpleText, decode[callResult](t, what, result))
			checkEra(t, what, modern, result)
		}},
		{"call_error", []string{"--method", "tools/call", "--tool-name", "test_error_handling"}, 5, func(t *testing.T, what string, modern bool, result json.RawMessage) {
			checkEqual(t, what, wantToolError, decode[callResult](t, what, result))
		}},
		{"read_template", []string{"--method", "resources/read", "--uri", "test://template/42/data"}, 0, func(t *testing.T, what string, modern bool, result json.RawMessage) {
			checkEqual(t, what, wantTemplate, decode[readResult](t, what, result))
			checkEra(t, what, modern, result)
		}},
		{"prompt_with_arguments", []string{"--method", "prompts/get", "--prompt-name", "test_prompt_with_arguments", "--prompt-args", "arg1=alpha", "arg2=beta"}, 0, func(t *testing.T, what string, modern bool, result json.RawMessage) {
			checkEqual(t, what, wantPrompt, decode[promptResult](t, what, result))
		}},
	}
	for _, transport := range transports {
		for _, era := range []string{"modern", "legacy"} {
			for _, r := range runs {
				t.Run(transport+"/"+era+"/"+r.name, func(t *testing.T) {
					t.Parallel()
					what := fmt.Sprintf("Inspector CLI, %s, --protocol-era %s: %v", transport, era, r.args)
					out, status, stderr := realclient.InspectorStatus(t, fixtureTarget(t, transport), era, r.args...)
					if status != r.status {
						t.Fatalf("%s: exit status %d, want %d\nstdout: %s\nstderr: %s", what, status, r.status, out, stderr)
					}
					res := decode[inspectorOut](t, what, out)
					if len(res.Result) == 0 {
						t.Fatalf("%s: no result in %s", what, out)
					}
					r.check(t, what, era == "modern", res.Result)
				})
			}
		}
	}
}
