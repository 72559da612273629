package mcpkittest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
