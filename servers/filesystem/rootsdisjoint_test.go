package filesystem

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// disjointWorld is a server directory and a client root beside it: Gemini CLI started
// in a folder outside the server's directory sends its workspace as its one root.
func disjointWorld(t *testing.T) (srv, elsewhere string) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"srv/in.txt": "inside\n", "elsewhere/x.txt": "x\n"})
	return filepath.Join(base, "srv"), filepath.Join(base, "elsewhere")
}

// checkDisjointRefusal holds a path-needing call's refusal to naming both sides and
// the fix.
func checkDisjointRefusal(t *testing.T, text, srv, elsewhere string) {
	t.Helper()
	for _, want := range []string{"do not overlap", pathURI(elsewhere), srv, "start the client in one of the server's directories"} {
		if !strings.Contains(text, want) {
			t.Errorf("refusal %q lacks %q", text, want)
		}
	}
}

// TestDisjointRootsListLikeGemini drives the server as Gemini CLI does (issue #25): a
// legacy session whose client's roots lie outside the server's directories, and any
// failed listing fatal (Gemini then registers none of the server's tools). tools/list,
// resources/list and resources/templates/list answer normally, resources empty; a
// call that needs a path says the two sides do not overlap, naming both.
func TestDisjointRootsListLikeGemini(t *testing.T) {
	srv, elsewhere := disjointWorld(t)
	rc := &rootsClient{}
	rc.set(pathURI(elsewhere))
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, srv), mcpkit.Revision20251125, rc.options())
	for _, method := range []string{"tools/list", "resources/list", "resources/templates/list"} {
		r := c.Request(method, map[string]any{})
		if r.Error != nil {
			t.Fatalf("%s failed (%d %s): a host that drops every tool of a server whose listing fails would show none", method, r.Error.Code, r.Error.Message)
		}
		if method == "resources/list" {
			var res struct {
				Resources []json.RawMessage `json:"resources"`
			}
			if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Resources) != 0 {
				t.Errorf("resources/list = %s (%v); want an empty list", r.Result, err)
			}
		}
	}
	r := c.CallTool("read_text_file", map[string]any{"path": filepath.Join(srv, "in.txt")})
	if !r.IsError {
		t.Fatalf("read_text_file succeeded outside the client's roots: %s", r.Text())
	}
	checkDisjointRefusal(t, r.Text(), srv, elsewhere)
}

// TestDisjointRootsGoSDKClient: the same with the official Go SDK client over stdio
// (the binary) at 2025-11-25, roots added before it connects.
func TestDisjointRootsGoSDKClient(t *testing.T) {
	srv, elsewhere := disjointWorld(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "gemini-like", Version: "1.0.0"}, nil)
	client.AddRoots(&mcp.Root{URI: pathURI(elsewhere), Name: "workspace"})
	cs := realclient.GoSDKConnect(t, client, realclient.Target{Command: []string{serverBinary(t), srv}, Env: cleanEnv()}, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != len(readTools) {
		t.Fatalf("tools/list: %d tools; want the %d read tools", len(tools.Tools), len(readTools))
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 0 {
		t.Fatalf("resources/list: %v %+v; want an empty list", err, res)
	}
	if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(srv, "in.txt")}})
	if err != nil || !call.IsError {
		t.Fatalf("read_text_file: err %v, result %+v; want an isError refusal", err, call)
	}
	checkDisjointRefusal(t, realclient.GoSDKText(call), srv, elsewhere)
}
