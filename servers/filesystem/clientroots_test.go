package filesystem

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// rootsClient is a legacy client that declares roots and answers roots/list with
// whatever roots it currently holds, counting the questions.
type rootsClient struct {
	mu    sync.Mutex
	roots []string // URIs or paths; nil answers with an error
	fail  bool
	asked atomic.Int32
}

func (rc *rootsClient) set(roots ...string) {
	rc.mu.Lock()
	rc.roots = roots
	rc.mu.Unlock()
}

func (rc *rootsClient) options() *mcpkittest.Options {
	return &mcpkittest.Options{
		Capabilities: map[string]any{"roots": map[string]any{"listChanged": true}},
		OnRequest: func(method string, _ json.RawMessage) (any, error) {
			if method != "roots/list" {
				return nil, errors.New("unexpected request " + method)
			}
			rc.asked.Add(1)
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if rc.fail {
				return nil, errors.New("roots unavailable")
			}
			list := []map[string]any{}
			for _, r := range rc.roots {
				list = append(list, map[string]any{"uri": r})
			}
			return map[string]any{"roots": list}, nil
		},
	}
}

func pathURI(p string) string { return "file://" + filepath.ToSlash(p) }

// TestClientRootsNarrow: on a legacy session whose client declares roots, the tools
// see only the intersection of the server's directories with the client's roots.
func TestClientRootsNarrow(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		"srv/a/in.txt":  "inside a\n",
		"srv/b/out.txt": "inside b\n",
		"elsewhere/x":   "x\n",
	})
	srv := filepath.Join(base, "srv")
	tests := []struct {
		name        string
		clientRoots []string
		wantDirs    []string
		wantNarrow  bool
		readable    map[string]bool // path -> can be read
		wantRefusal string          // non-empty: every tool refuses with this
	}{
		{name: "subdirectory", clientRoots: []string{pathURI(filepath.Join(srv, "a"))},
			wantDirs: []string{filepath.Join(srv, "a")}, wantNarrow: true,
			readable: map[string]bool{filepath.Join(srv, "a", "in.txt"): true, filepath.Join(srv, "b", "out.txt"): false, "in.txt": true}},
		{name: "plain path root", clientRoots: []string{filepath.Join(srv, "b")},
			wantDirs: []string{filepath.Join(srv, "b")}, wantNarrow: true,
			readable: map[string]bool{filepath.Join(srv, "b", "out.txt"): true, filepath.Join(srv, "a", "in.txt"): false}},
		{name: "client root contains the server's", clientRoots: []string{pathURI(base)},
			wantDirs: []string{srv}, wantNarrow: true,
			readable: map[string]bool{filepath.Join(srv, "a", "in.txt"): true, filepath.Join(base, "elsewhere", "x"): false}},
		{name: "one root outside is ignored", clientRoots: []string{pathURI(filepath.Join(base, "elsewhere")), pathURI(filepath.Join(srv, "a"))},
			wantDirs: []string{filepath.Join(srv, "a")}, wantNarrow: true,
			readable: map[string]bool{filepath.Join(base, "elsewhere", "x"): false, filepath.Join(srv, "a", "in.txt"): true}},
		{name: "no root inside the server's", clientRoots: []string{pathURI(filepath.Join(base, "elsewhere"))},
			wantRefusal: "access refused: the client's roots"},
		{name: "client root escaping with dotdot", clientRoots: []string{pathURI(srv + "/a/../../elsewhere")},
			wantRefusal: "access refused"},
		{name: "empty list offers no roots", clientRoots: []string{},
			wantDirs: []string{srv}, readable: map[string]bool{filepath.Join(srv, "b", "out.txt"): true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := &rootsClient{}
			rc.set(tc.clientRoots...)
			c := mcpkittest.Connect(t, newServerOn(t, Config{}, srv), mcpkit.Revision20251125, rc.options())
			r := c.CallTool("list_allowed_directories", map[string]any{})
			if tc.wantRefusal != "" {
				for _, call := range []struct {
					tool string
					args map[string]any
				}{{"list_allowed_directories", map[string]any{}}, {"read_text_file", map[string]any{"path": filepath.Join(srv, "a", "in.txt")}}, {"search_files", map[string]any{"pattern": "*"}}} {
					r := c.CallTool(call.tool, call.args)
					if !r.IsError || !strings.Contains(r.Text(), tc.wantRefusal) {
						t.Errorf("%s: isError=%v %q; want a refusal containing %q", call.tool, r.IsError, r.Text(), tc.wantRefusal)
					}
				}
				return
			}
			got := structured[ListAllowedDirectoriesOutput](t, "list_allowed_directories", r)
			if d := cmp.Diff(ListAllowedDirectoriesOutput{Directories: tc.wantDirs, NarrowedByClientRoots: tc.wantNarrow}, got); d != "" {
				t.Errorf("list_allowed_directories (-want +got):\n%s", d)
			}
			for p, ok := range tc.readable {
				r := c.CallTool("read_text_file", map[string]any{"path": p})
				if r.IsError == ok {
					t.Errorf("read %s: isError=%v %q; want readable=%v", p, r.IsError, r.Text(), ok)
				}
				if !ok && !strings.Contains(r.Text(), "outside the allowed directories") && !strings.Contains(r.Text(), "no such file") {
					t.Errorf("read %s refused without saying why: %q", p, r.Text())
				}
			}
			if n := rc.asked.Load(); n != 1 {
				t.Errorf("roots/list asked %d times; want once per session (cached)", n)
			}
		})
	}
}

// TestClientRootsListChanged: notifications/roots/list_changed drops the cached roots,
// so the next call narrows with the new list.
func TestClientRootsListChanged(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"a/1.txt": "1", "b/2.txt": "2"})
	rc := &rootsClient{}
	rc.set(pathURI(filepath.Join(base, "a")))
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, base), mcpkit.Revision20251125, rc.options())
	dirsNow := func() []string {
		return structured[ListAllowedDirectoriesOutput](t, "list_allowed_directories", c.CallTool("list_allowed_directories", map[string]any{})).Directories
	}
	if d := cmp.Diff([]string{filepath.Join(base, "a")}, dirsNow()); d != "" {
		t.Fatalf("before (-want +got):\n%s", d)
	}
	rc.set(pathURI(filepath.Join(base, "b")))
	if d := cmp.Diff([]string{filepath.Join(base, "a")}, dirsNow()); d != "" {
		t.Errorf("without list_changed the cached roots stay (-want +got):\n%s", d)
	}
	c.Notify("notifications/roots/list_changed", nil)
	// stdio handles a notification in its read loop before reading the next request,
	// so the next call must see the new roots.
	if d := cmp.Diff([]string{filepath.Join(base, "b")}, dirsNow()); d != "" {
		t.Errorf("after list_changed (-want +got):\n%s", d)
	}
	if n := rc.asked.Load(); n != 2 {
		t.Errorf("roots/list asked %d times; want 2", n)
	}
}

// TestClientRootsFailureRefuses: a client that declares roots but cannot list them
// gets a refusal, not the server's full set.
func TestClientRootsFailureRefuses(t *testing.T) {
	dir := toolFixture(t)
	rc := &rootsClient{fail: true}
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20251125, rc.options())
	r := c.CallTool("read_text_file", map[string]any{"path": "hello.txt"})
	if !r.IsError || !strings.Contains(r.Text(), "roots/list failed") {
		t.Errorf("isError=%v %q; want a refusal saying roots/list failed", r.IsError, r.Text())
	}
}

// TestModernRequestsDoNotAskRoots: at 2026-07-28 a client declaring roots is not
// asked (no input_required round trip); the server's directories apply.
func TestModernRequestsDoNotAskRoots(t *testing.T) {
	dir := toolFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20260728, &mcpkittest.Options{
		Capabilities: map[string]any{"roots": map[string]any{}},
	})
	r := c.CallTool("list_allowed_directories", map[string]any{})
	if r.ResultType == "input_required" || len(r.InputRequests) > 0 {
		t.Fatalf("a 2026-07-28 call asked the client for input: %+v", r)
	}
	got := structured[ListAllowedDirectoriesOutput](t, "list_allowed_directories", r)
	if d := cmp.Diff(ListAllowedDirectoriesOutput{Directories: []string{dir}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestClientRootsNarrowResources: resources/list and resources/read follow the same
// narrowing as the tools.
func TestClientRootsNarrowResources(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"a/1.txt": "one", "b/2.txt": "two"})
	rc := &rootsClient{}
	rc.set(pathURI(filepath.Join(base, "a")))
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, base), mcpkit.Revision20251125, rc.options())
	var list struct {
		Resources []mcpkit.Resource `json:"resources"`
	}
	if err := json.Unmarshal(c.Call("resources/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if d := cmp.Diff([]string{pathURI(filepath.Join(base, "a", "1.txt"))}, uris); d != "" {
		t.Errorf("resources/list (-want +got):\n%s", d)
	}
	resp := c.Request("resources/read", map[string]any{"uri": pathURI(filepath.Join(base, "b", "2.txt"))})
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "outside the allowed directories") {
		t.Errorf("reading b/2.txt outside the client's roots: %+v; want an error saying it is outside", resp.Error)
	}
}
