package filesystem

// Real clients against the server: the official Go SDK client and the Inspector CLI,
// over stdio (the built binary) and Streamable HTTP (httptest with the server's
// HTTPHandler), at 2026-07-28 and 2025-11-25 (Inspector: modern and legacy eras).

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

func TestMain(m *testing.M) {
	code := m.Run()
	realclient.CleanupBuilds()
	os.Exit(code)
}

// serverBinary builds cmd/mcp-server-filesystem once per test run, only when a test
// needs it.
func serverBinary(t testing.TB) string {
	t.Helper()
	return realclient.BuildCommand(t, "./cmd/mcp-server-filesystem")
}

// cleanEnv blanks every variable the binary reads (this server's own and
// serve.StandardEnv), so the developer's own settings do not leak into a test, and
// turns the audit log off; the caller's settings are appended after it.
func cleanEnv(extra ...string) []string {
	env := []string{"MCP_FS_ROOTS=", "MCP_FS_ALLOW_WRITES=", "MCP_FS_NO_CONFIRM=", "MCP_FS_WATCH=", "MCP_FS_MAX_WATCHES="}
	for _, name := range serve.StandardEnv() {
		env = append(env, name+"=")
	}
	return append(append(env, "MCP_AUDIT=false"), extra...)
}

// clientTarget serves dir with writes allowed: "stdio" runs the binary (every setting
// explicit, so the developer's own MCP_* variables do not leak in), "http" serves New
// on an httptest server. With noConfirm the server runs with --no-confirm, as for a
// host that confirms each call itself (the Inspector CLI cannot answer elicitation).
func clientTarget(t *testing.T, transport, dir string, noConfirm bool) realclient.Target {
	t.Helper()
	switch transport {
	case "stdio":
		args := []string{serverBinary(t), "--allow-writes", dir}
		if noConfirm {
			args = append(args, "--no-confirm")
		}
		return realclient.Target{
			Command: args,
			Env:     cleanEnv(),
		}
	case "http":
		return realclient.HTTPTarget(t, newServerOn(t, Config{AllowWrites: true, NoConfirm: noConfirm}, dir).HTTPHandler(nil))
	}
	t.Fatalf("unknown transport %q", transport)
	return realclient.Target{}
}

// confirmingClient is a Go SDK client whose user answers every confirmation with
// action (confirm checked), recording the first line of each question in asked.
func confirmingClient(action string, asked *[]string) *mcp.Client {
	var mu sync.Mutex
	return mcp.NewClient(&mcp.Implementation{Name: "fs-confirm-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			line, _, _ := strings.Cut(req.Params.Message, "\n")
			mu.Lock()
			*asked = append(*asked, line)
			mu.Unlock()
			return &mcp.ElicitResult{Action: action, Content: map[string]any{"confirm": true}}, nil
		},
	})
}

// clientCall is one tool call every real client makes, with what its text must hold
// and what the disk must show afterwards. Each works on a fresh toolFixture and also
// in sequence (reads first, then writes on distinct files).
type clientCall struct {
	tool string
	args func(dir string) map[string]any
	want func(dir string) string // substring of the result's text
	disk func(t *testing.T, dir string)
	// fileText marks a read_text_file, list_directory or directory_tree call: its text
	// block is text under a header (want is all of it), not JSON, and it comes without
	// structuredContent
	// (mcpkit's output policy: hosts that see structuredContent show its JSON instead).
	fileText bool
}

func fixed(args map[string]any) func(string) map[string]any {
	return func(string) map[string]any { return args }
}

func text(s string) func(string) string { return func(string) string { return s } }

func fileIs(rel, want string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if got := readFile(t, filepath.Join(dir, rel)); got != want {
			t.Errorf("%s on disk = %q; want %q", rel, got, want)
		}
	}
}

var clientCalls = []clientCall{
	{tool: "list_allowed_directories", args: fixed(map[string]any{}), want: func(dir string) string { return `"directories":["` + dir + `"]` }},
	{tool: "list_directory", args: fixed(map[string]any{"path": "sub"}), fileText: true,
		want: func(dir string) string { return "[" + filepath.Join(dir, "sub") + ": 1 entry]\nnote.md\n" }},
	{tool: "directory_tree", args: fixed(map[string]any{"maxDepth": 2}), fileText: true,
		want: func(dir string) string {
			return "[" + dir + ": 5 entries]\ndata.bin\nhello.txt\nimg.png\nsub/\nsub/note.md\n"
		}},
	{tool: "read_text_file", args: fixed(map[string]any{"path": "hello.txt", "head": 1}), fileText: true,
		want: func(dir string) string { return "[" + filepath.Join(dir, "hello.txt") + ": line 1 of 2]\nhello\n" }},
	{tool: "read_text_file", args: fixed(map[string]any{"path": "hello.txt", "line": 2, "context": 1, "lineNumbers": true}), fileText: true,
		want: text("1\thello\n2\tworld\n")},
	{tool: "read_media_file", args: fixed(map[string]any{"path": "img.png"}), want: text(`"mimeType":"image/png"`)},
	{tool: "read_multiple_files", args: fixed(map[string]any{"paths": []string{"hello.txt", "missing.txt"}}), want: text(`missing.txt: no such file or directory`)},
	{tool: "search_files", args: fixed(map[string]any{"pattern": "*.md"}), want: text(`note.md","type":"file"`)},
	{tool: "search_file_contents", args: fixed(map[string]any{"pattern": "needle"}), want: text(`"line":2`)},
	{tool: "get_file_info", args: fixed(map[string]any{"path": "hello.txt"}), want: text(`"size":12`)},
	{tool: "write_file", args: fixed(map[string]any{"path": "new.txt", "content": "fresh\n"}), want: text(`"created":true`), disk: fileIs("new.txt", "fresh\n")},
	{tool: "edit_file", args: fixed(map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "world", "newText": "there"}}}), want: text(`"replacements":1`), disk: fileIs("hello.txt", "hello\nthere\n")},
	{tool: "create_directory", args: fixed(map[string]any{"path": "made/deep"}), want: text(`"created":true`), disk: func(t *testing.T, dir string) {
		if st, err := os.Stat(filepath.Join(dir, "made", "deep")); err != nil || !st.IsDir() {
			t.Errorf("made/deep is not a directory: %v", err)
		}
	}},
	{tool: "copy_file", args: fixed(map[string]any{"source": "sub/note.md", "destination": "note-copy.md"}), want: text(`"files":1`), disk: fileIs("note-copy.md", "# Note\nthe needle is here\n")},
	{tool: "delete_file", args: fixed(map[string]any{"path": "img.png"}), want: text(`"type":"file"`), disk: gone("img.png")},
	{tool: "delete_directory", args: fixed(map[string]any{"path": "sub", "recursive": true}), want: text(`"files":1`), disk: gone("sub")},
	{tool: "move_file", args: fixed(map[string]any{"source": "data.bin", "destination": "moved.bin"}), want: text(`moved.bin"`), disk: fileIs("moved.bin", "\x00\x01\x02binary\x00")},
}

// gone checks that rel no longer exists.
func gone(rel string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Errorf("%s still exists: %v", rel, err)
		}
	}
}

// checkClientText compares what a client received: not an error, text equal (as JSON)
// to structuredContent, and the expected value in the text.
func checkClientText(t *testing.T, what string, call clientCall, dir, txt string, isError bool, sc any) {
	t.Helper()
	if call.fileText {
		js, ok := sc.(json.RawMessage)
		if !ok {
			js, _ = json.Marshal(sc)
		}
		if isError || txt != call.want(dir) || len(js) > 0 && string(js) != "null" {
			t.Errorf("%s: isError=%v text %q, structuredContent %s; want text %q and no structuredContent", what, isError, txt, js, call.want(dir))
		}
		return
	}
	if realclient.CheckJSONResult(t, what, txt, isError, sc) == nil {
		return
	}
	want := call.want(dir)
	if !strings.Contains(strings.ReplaceAll(txt, `\n`, "\n"), strings.ReplaceAll(want, `\n`, "\n")) {
		t.Errorf("%s: result lacks %s: %.400s", what, want, txt)
	}
}

var transports = []string{"stdio", "http"}

func allToolNames() []string { return append(append([]string(nil), readTools...), writeTools...) }

// TestGoSDKClientEveryTool: the Go SDK client (v1.8.0) lists the tools with their
// annotations and calls every one, over stdio and HTTP, at 2026-07-28 and 2025-11-25.
// Its user accepts every confirmation, and edit_file, delete_file and delete_directory
// ask one each: the other writes here create, copy or rename without destroying
// anything.
func TestGoSDKClientEveryTool(t *testing.T) {
	for _, transport := range transports {
		for _, rev := range revisions {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				t.Parallel()
				dir := toolFixture(t)
				var asked []string
				cs := realclient.GoSDKConnect(t, confirmingClient("accept", &asked), clientTarget(t, transport, dir, false), rev)
				realclient.CheckGoSDKTools(t, cs, allToolNames(), readTools)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				for _, call := range clientCalls {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args(dir)})
					if err != nil {
						t.Errorf("%s: %v", call.tool, err)
						continue
					}
					var image *mcp.ImageContent
					for _, c := range res.Content {
						if c, ok := c.(*mcp.ImageContent); ok {
							image = c
						}
					}
					checkClientText(t, "Go SDK "+call.tool, call, dir, realclient.GoSDKText(res), res.IsError, res.StructuredContent)
					if call.tool == "read_media_file" && (image == nil || image.MIMEType != "image/png" || string(image.Data) != string(pngBytes(t))) {
						t.Errorf("read_media_file: the Go SDK got no image/png block with the file's bytes: %+v", image)
					}
					if call.disk != nil {
						call.disk(t, dir)
					}
				}
				if want := []string{"Edit " + filepath.Join(dir, "hello.txt") + " (1 replacement) as this diff shows?",
					"Delete the file " + filepath.Join(dir, "img.png") + "? This cannot be undone.",
					"Delete the directory " + filepath.Join(dir, "sub") + " and everything in it? This cannot be undone."}; !cmp.Equal(want, asked) {
					t.Errorf("confirmations asked %q; want %q", asked, want)
				}
			})
		}
	}
}

// TestGoSDKClientConfirmsDestructiveWrites (issue 13, items 2 and 3): with the Go SDK
// client over stdio and HTTP at both revisions, write_file over an existing file,
// edit_file and move_file onto an existing file each ask the user once; declined,
// nothing changes on disk; accepted, the write happens once.
func TestGoSDKClientConfirmsDestructiveWrites(t *testing.T) {
	calls := []struct {
		tool string
		args map[string]any
		ask  func(dir string) string
		rel  string // file that changes
		want string // its content when accepted
	}{
		{"write_file", map[string]any{"path": "hello.txt", "content": "new\n"},
			func(dir string) string {
				return "Replace the whole file " + filepath.Join(dir, "hello.txt") + " with 4 bytes of new content? Its old content is lost."
			}, "hello.txt", "new\n"},
		{"edit_file", map[string]any{"path": "sub/note.md", "edits": []map[string]string{{"oldText": "needle", "newText": "pin"}}},
			func(dir string) string {
				return "Edit " + filepath.Join(dir, "sub", "note.md") + " (1 replacement) as this diff shows?"
			}, "sub/note.md", "# Note\nthe pin is here\n"},
		{"move_file", map[string]any{"source": "data.bin", "destination": "img.png", "overwrite": true},
			func(dir string) string {
				return "Move " + filepath.Join(dir, "data.bin") + " to " + filepath.Join(dir, "img.png") + ", replacing the file that is there? Its content is lost."
			}, "img.png", "\x00\x01\x02binary\x00"},
	}
	for _, transport := range transports {
		for _, rev := range revisions {
			for _, action := range []string{"decline", "accept"} {
				t.Run(transport+"/"+rev+"/"+action, func(t *testing.T) {
					t.Parallel()
					dir := toolFixture(t)
					var asked []string
					cs := realclient.GoSDKConnect(t, confirmingClient(action, &asked), clientTarget(t, transport, dir, false), rev)
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					var want []string
					for _, call := range calls {
						before := readFile(t, filepath.Join(dir, call.rel))
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
						if err != nil {
							t.Fatalf("%s: %v", call.tool, err)
						}
						want = append(want, call.ask(dir))
						got := readFile(t, filepath.Join(dir, call.rel))
						switch {
						case action == "decline" && (!res.IsError || realclient.GoSDKText(res) != "nothing was changed: the user declined" || got != before):
							t.Errorf("%s declined: isError %v %q; %s is %q", call.tool, res.IsError, realclient.GoSDKText(res), call.rel, got)
						case action == "accept" && (res.IsError || got != call.want):
							t.Errorf("%s accepted: isError %v %q; %s is %q, want %q", call.tool, res.IsError, realclient.GoSDKText(res), call.rel, got, call.want)
						}
					}
					if d := cmp.Diff(want, asked); d != "" {
						t.Errorf("confirmations asked (-want +got):\n%s", d)
					}
				})
			}
		}
	}
}

// inspectorEras are the Inspector CLI's names for the two revisions.
var inspectorEras = []string{"modern", "legacy"}

// TestInspectorCLIEveryTool: the Inspector CLI lists the tools and calls every tool
// over stdio and HTTP, in both eras: all four combinations for every tool. Each CLI run
// starts Node (about a second of CPU; realclient runs at most three at once), so under
// -short each tool runs in two combinations that together still cover both transports
// and both eras (stdio+modern with http+legacy, or stdio+legacy with http+modern).
func TestInspectorCLIEveryTool(t *testing.T) {
	for _, transport := range transports {
		for _, era := range inspectorEras {
			t.Run("tools_list/"+transport+"/"+era, func(t *testing.T) {
				t.Parallel()
				got := realclient.InspectorToolNames(t, clientTarget(t, transport, toolFixture(t), true), era)
				if d := cmp.Diff(allToolNames(), got); d != "" {
					t.Errorf("tools (-want +got):\n%s", d)
				}
			})
		}
	}
	for i, call := range clientCalls {
		pairs := [][2]string{{"stdio", "modern"}, {"stdio", "legacy"}, {"http", "modern"}, {"http", "legacy"}}
		if testing.Short() {
			pairs = [][2]string{{"stdio", "modern"}, {"http", "legacy"}}
			if i%2 == 1 {
				pairs = [][2]string{{"stdio", "legacy"}, {"http", "modern"}}
			}
		}
		for _, p := range pairs {
			transport, era := p[0], p[1]
			t.Run(call.tool+"/"+transport+"/"+era, func(t *testing.T) {
				t.Parallel()
				dir := toolFixture(t)
				args, _ := json.Marshal(call.args(dir))
				raw := realclient.Inspector(t, clientTarget(t, transport, dir, true), era, "--method", "tools/call", "--tool-name", call.tool, "--tool-args-json", string(args))
				res := realclient.DecodeInspectorResult(t, raw)
				if len(res.Content) == 0 || res.Content[0].Type != "text" {
					t.Fatalf("content = %+v; want a text block first", res.Content)
				}
				checkClientText(t, "Inspector "+call.tool, call, dir, res.Content[0].Text, res.IsError, res.StructuredContent)
				if call.tool == "read_media_file" && (len(res.Content) != 2 || res.Content[1].Type != "image" || res.Content[1].MIMEType != "image/png") {
					t.Errorf("read_media_file content = %+v; want text then an image/png block", res.Content)
				}
				if call.disk != nil {
					call.disk(t, dir)
				}
			})
		}
	}
}
