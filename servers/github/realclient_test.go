package github

// Real clients against the server: the official Go SDK client and the Inspector CLI,
// over stdio (the built binary, pointed at the fake with GITHUB_HOST) and Streamable
// HTTP (httptest with the server's HTTPHandler).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// serverBinary builds cmd/mcp-server-github once per test run, only when a test
// needs it.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "mcp-server-github-test"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcp-server-github")
		out, err := exec.Command("go", "build", "-o", binPath, "./cmd/mcp-server-github").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/mcp-server-github: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// target returns the server as a client target: "stdio" runs the binary with the
// fake as its GITHUB_HOST, "http" serves New(...) on an httptest server. Every
// setting is given explicitly so the developer's own GITHUB_* variables do not leak in.
func target(t *testing.T, f *fakeGitHub, transport string, writes bool) realclient.Target {
	t.Helper()
	switch transport {
	case "stdio":
		allow := ""
		if writes {
			allow = "1"
		}
		return realclient.Target{Command: []string{serverBinary(t)}, Env: []string{
			"GITHUB_HOST=" + f.srv.URL, "GITHUB_TOKEN=" + testToken, "GITHUB_ALLOW_WRITES=" + allow,
			"GITHUB_REPOS=", "GITHUB_TOOLSETS=", "GITHUB_TOOLS=", "GITHUB_LOCKDOWN=", "MCP_HTTP_ADDR=",
		}}
	case "http":
		srv := httptest.NewServer(newServer(t, f, BackendConfig{}, Config{AllowWrites: writes}).HTTPHandler(nil))
		t.Cleanup(srv.Close)
		return realclient.Target{URL: srv.URL + "/mcp"}
	}
	t.Fatalf("unknown transport %q", transport)
	return realclient.Target{}
}

// checkResult asserts a read tool's result as any client received it: not an error,
// its text the same JSON as its structuredContent, and the fixture value present.
func checkResult(t *testing.T, what string, tc toolCase, text string, isError bool, structuredContent any) {
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
	raw, _ := json.Marshal(structuredContent)
	var fromStructured any
	_ = json.Unmarshal(raw, &fromStructured)
	if d := cmp.Diff(fromStructured, fromText); d != "" {
		t.Errorf("%s: text and structuredContent differ (-structured +text):\n%s", what, d)
	}
	if !strings.Contains(text, tc.wantText) {
		t.Errorf("%s: result lacks %q", what, tc.wantText)
	}
}

// TestGoSDKClientEveryReadTool: the Go SDK client (v1.8.0) lists the tools and calls
// every read tool, over stdio and HTTP, at 2026-07-28 and 2025-11-25.
func TestGoSDKClientEveryReadTool(t *testing.T) {
	f := newFake(t)
	for _, transport := range []string{"stdio", "http"} {
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				t.Parallel()
				cs := realclient.GoSDK(t, target(t, f, transport, false), rev)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, tl := range tools.Tools {
					got = append(got, tl.Name)
					if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
						t.Errorf("%s is not readOnlyHint as the Go SDK sees it", tl.Name)
					}
				}
				if d := cmp.Diff(readTools, got); d != "" {
					t.Errorf("tools (-want +got):\n%s", d)
				}
				for _, tc := range readCases {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: validArgs[tc.name]})
					if err != nil {
						t.Errorf("%s: %v", tc.name, err)
						continue
					}
					text := ""
					for _, c := range res.Content {
						if tc, ok := c.(*mcp.TextContent); ok {
							text += tc.Text
						}
					}
					checkResult(t, "Go SDK "+transport+" "+rev+" "+tc.name, tc, text, res.IsError, res.StructuredContent)
				}
			})
		}
	}
}

// TestGoSDKClientConfirmsWrite: create_issue's confirmation completes with the Go SDK
// client's elicitation handler at 2026-07-28 (input_required, then the SDK's retry):
// accepted, the fake receives the POST; declined, it receives nothing.
func TestGoSDKClientConfirmsWrite(t *testing.T) {
	f := newFake(t)
	var mu sync.Mutex // the fake is shared: the subtests run one after another
	for _, transport := range []string{"stdio", "http"} {
		for _, action := range []string{"accept", "decline"} {
			t.Run(transport+"/"+action, func(t *testing.T) {
				mu.Lock()
				defer mu.Unlock()
				var asked []string
				client := mcp.NewClient(&mcp.Implementation{Name: "github-write-test", Version: "1.0.0"}, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						line, _, _ := strings.Cut(req.Params.Message, "\n")
						asked = append(asked, line)
						return &mcp.ElicitResult{Action: action, Content: map[string]any{"confirm": true}}, nil
					},
				})
				cs := realclient.GoSDKConnect(t, client, target(t, f, transport, true), "2026-07-28")
				before := f.writes()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_issue", Arguments: validArgs["create_issue"]})
				if err != nil {
					t.Fatal(err)
				}
				text := ""
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text += tc.Text
					}
				}
				if d := cmp.Diff([]string{"Create an issue in octo/hello on " + f.host()}, asked); d != "" {
					t.Errorf("confirmations shown (-want +got):\n%s", d)
				}
				wantWrites, wantText := 1, `"number":11`
				if action == "decline" {
					wantWrites, wantText = 0, "nothing was written: the user declined"
				}
				if res.IsError != (action == "decline") || !strings.Contains(text, wantText) {
					t.Errorf("result isError=%v %q; want %q", res.IsError, text, wantText)
				}
				if n := f.writes() - before; n != wantWrites {
					t.Errorf("%d writes reached the fake; want %d", n, wantWrites)
				}
			})
		}
	}
}

// TestInspectorCLI: the Inspector CLI lists the tools and calls three read tools over
// stdio and HTTP in the modern era (2026-07-28), and lists them in the legacy era.
// Each CLI run starts Node, so the set is kept small.
func TestInspectorCLI(t *testing.T) {
	f := newFake(t)
	byName := map[string]toolCase{}
	for _, tc := range readCases {
		byName[tc.name] = tc
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"modern", "legacy"} {
			calls := []string{"get_repository", "get_issue", "get_file_contents"}
			if era == "legacy" {
				calls = nil
			}
			t.Run(transport+"/"+era+"/tools_list", func(t *testing.T) {
				t.Parallel()
				var res struct {
					Result struct {
						Tools []struct {
							Name string `json:"name"`
						} `json:"tools"`
					} `json:"result"`
				}
				raw := realclient.Inspector(t, target(t, f, transport, false), era, "--method", "tools/list")
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatalf("%v: %s", err, raw)
				}
				var got []string
				for _, tl := range res.Result.Tools {
					got = append(got, tl.Name)
				}
				if d := cmp.Diff(readTools, got); d != "" {
					t.Errorf("tools (-want +got):\n%s", d)
				}
			})
			for _, name := range calls {
				t.Run(transport+"/"+era+"/"+name, func(t *testing.T) {
					t.Parallel()
					args, _ := json.Marshal(validArgs[name])
					raw := realclient.Inspector(t, target(t, f, transport, false), era, "--method", "tools/call", "--tool-name", name, "--tool-args-json", string(args))
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
					checkResult(t, "Inspector "+transport+" "+era+" "+name, byName[name], res.Result.Content[0].Text, res.Result.IsError, res.Result.StructuredContent)
				})
			}
		}
	}
}
