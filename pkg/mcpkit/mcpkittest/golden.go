package mcpkittest

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// update rewrites golden files instead of comparing: go test ./... -update
var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Golden compares got with the file at path (under the test's package directory);
// with -update it writes got there instead. Diffs are shown line by line so a schema
// change is reviewed like code.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run the test with -update to create it)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file (-want +got); if the change is intended, rerun with -update:\n%s",
			path, cmp.Diff(string(want), string(got)))
	}
}

// ToolsGolden snapshots the client's full tools/list (all pages), pretty-printed, at
// path, and returns the snapshot's size in bytes as the compact JSON a host receives.
func ToolsGolden(t testing.TB, c *Client, path string) int {
	t.Helper()
	tools := AllTools(t, c.Call)
	compact, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	Golden(t, path, pretty.Bytes())
	return len(compact)
}

// AllTools gathers every page of tools/list through call (a client's request
// function, whatever the transport), following nextCursor to the end.
func AllTools(t testing.TB, call func(method string, params any) json.RawMessage) []json.RawMessage {
	t.Helper()
	var tools []json.RawMessage
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(call("tools/list", params), &page); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools
		}
		cursor = page.NextCursor
	}
}

// InputSchemas checks the file at path, a server's pre-generated input schemas
// (mcpkit.ServerOptions.InputSchemas), against the schemas reflection generates from
// the Go input types of the typed tools of servers (the same server in each of its
// modes, so that every tool is there): the file must hold exactly those, or the test
// fails with the difference; with -update it is rewritten. The file is a JSON object
// with one tool a line, in name order, each schema compact as AddTool would generate
// it, so a diff shows which tools changed (the golden tools/list files show the same
// schemas indented). A tool registered under one name with two different schemas
// fails the test.
func InputSchemas(t testing.TB, path string, servers ...*mcpkit.Server) {
	t.Helper()
	all := map[string]json.RawMessage{}
	for _, s := range servers {
		for name, sc := range s.GeneratedInputSchemas() {
			if prev, ok := all[name]; ok && !bytes.Equal(prev, sc) {
				t.Fatalf("tool %q has two different generated input schemas:\n%s\n%s", name, prev, sc)
			}
			all[name] = sc
		}
	}
	Golden(t, path, EncodeInputSchemas(all))
	if *update {
		return
	}
	for _, s := range servers {
		if err := s.CheckTools(); err != nil {
			t.Error(err)
		}
	}
}

// EncodeInputSchemas writes schemas by tool name as the file InputSchemas checks.
func EncodeInputSchemas(schemas map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, name := range slices.Sorted(maps.Keys(schemas)) {
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteString(": ")
		b.Write(schemas[name])
		if i < len(schemas)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}
