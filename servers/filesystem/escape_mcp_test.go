package filesystem

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// The full escape corpus runs against the file layer (escape_test.go). This sample
// runs through the MCP tools, in both modes and at both revisions, to prove that the
// wiring adds no way around the layer: every path argument reaches it unchanged,
// refusals come back as isError results that say why, and nothing outside leaks into
// a result or changes on disk.

// mcpEscapeSample names attempts of fx.attempts() to send through every tool.
var mcpEscapeSample = []string{
	"dotdot file", "dotdot chain to etc", "sub then dotdot", "absolute secret", "absolute outside dir",
	"absolute root then dotdot", "sibling prefix file", "through dir link", "through absolute dir link",
	"through link to sibling", "percent-encoded dots", "file link", "dir link", "link chain",
	"symlink loop", "NUL then escape",
}

// mcpEscapeTool builds a tool's arguments for a path; okKinds are attempt kinds for
// which success is acceptable because the path stays inside (as in escape_test.go).
type mcpEscapeTool struct {
	name    string
	args    func(p string) map[string]any
	okKinds map[string]bool
	write   bool
}

func mcpEscapeTools() []mcpEscapeTool {
	path := func(p string) map[string]any { return map[string]any{"path": p} }
	return []mcpEscapeTool{
		{"list_directory", path, kinds(), false},
		{"directory_tree", func(p string) map[string]any {
			return map[string]any{"path": p, "maxDepth": 8, "respectGitignore": false}
		}, kinds(), false},
		{"read_text_file", path, kinds(), false},
		{"read_media_file", path, kinds(), false},
		{"read_multiple_files", func(p string) map[string]any { return map[string]any{"paths": []string{p}} }, kinds(), false},
		{"search_files", func(p string) map[string]any {
			return map[string]any{"path": p, "pattern": "*", "respectGitignore": false}
		}, kinds(), false},
		{"search_file_contents", func(p string) map[string]any {
			return map[string]any{"path": p, "pattern": "SECRET|root:", "respectGitignore": false}
		}, kinds(), false},
		{"get_file_info", path, kinds("link", "loop"), false}, // describes the link itself
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "PWNED"} }, kinds("literal"), true},
		{"edit_file", func(p string) map[string]any {
			return map[string]any{"path": p, "edits": []map[string]string{{"oldText": "SECRET", "newText": "PWNED"}}, "replaceAll": true}
		}, kinds(), true},
		{"create_directory", func(p string) map[string]any { return map[string]any{"path": p + "/newdir"} }, kinds("literal"), true},
		{"move_file", func(p string) map[string]any {
			return map[string]any{"source": "sub/ok2.txt", "destination": p, "overwrite": true}
		}, kinds("literal", "link", "loop"), true},
		{"copy_file", func(p string) map[string]any {
			return map[string]any{"source": p, "destination": "copied", "recursive": true}
		}, kinds("literal"), true},
		{"copy_file", func(p string) map[string]any {
			return map[string]any{"source": "sub/ok2.txt", "destination": p, "overwrite": true}
		}, kinds("literal"), true},
		{"delete_file", path, kinds("link", "loop"), true},
		{"delete_directory", func(p string) map[string]any { return map[string]any{"path": p, "recursive": true} }, kinds("literal"), true},
	}
}

func TestEscapeThroughMCPTools(t *testing.T) {
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"readonly", Config{}}, {"writes", Config{AllowWrites: true}}} {
		for _, rev := range revisions {
			t.Run(mode.name+"/"+rev, func(t *testing.T) {
				fx := newEscapeFixture(t)
				before := fx.snapshot(t)
				c := mcpkittest.Connect(t, newServerOn(t, mode.cfg, fx.root), rev, nil)
				attempts := map[string]escapeAttempt{}
				for _, a := range fx.attempts() {
					attempts[a.name] = a
				}
				for _, tool := range mcpEscapeTools() {
					for _, name := range mcpEscapeSample {
						a, ok := attempts[name]
						if !ok {
							t.Fatalf("sample names %q, which is not in the corpus", name)
						}
						checkMCPAttempt(t, c, fx, mode.cfg.AllowWrites, tool, a)
					}
				}
				if d := cmp.Diff(before, fx.snapshot(t)); d != "" {
					t.Fatalf("the tools changed the outside (-before +after):\n%s", d)
				}
			})
		}
	}
}

func checkMCPAttempt(t *testing.T, c *mcpkittest.Client, fx *escapeFixture, writes bool, tool mcpEscapeTool, a escapeAttempt) {
	t.Helper()
	what := tool.name + "(" + strings.ReplaceAll(a.path, "\x00", `\0`) + ")"
	resp := c.Request("tools/call", map[string]any{"name": tool.name, "arguments": tool.args(a.path)})
	if leaks := fx.leaks(string(resp.Raw)); len(leaks) > 0 {
		t.Errorf("%s leaked %v: %.300s", what, leaks, resp.Raw)
		return
	}
	if tool.write && !writes {
		// Read-only: the write tools do not exist, so the call is a protocol error
		// saying that writes need --allow-writes.
		if resp.Error == nil || resp.Error.Code != mcpkit.CodeInvalidParams || !strings.Contains(resp.Error.Message, "--allow-writes") {
			t.Errorf("read-only %s: %+v; want the error saying writes need --allow-writes", what, resp.Error)
		}
		return
	}
	if resp.Error != nil && resp.Error.Code == mcpkit.CodeMissingClientCapability && tool.okKinds[a.kind] {
		// An action inside that asks the user first (deleting a link, a directory that
		// create_directory made above); this client cannot be asked, so nothing happens.
		return
	}
	if resp.Error != nil {
		t.Errorf("%s: protocol error %d %s; want a tool result", what, resp.Error.Code, resp.Error.Message)
		return
	}
	var r mcpkittest.ToolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatal(err)
	}
	msg := r.Text()
	if tool.name == "read_multiple_files" && !r.IsError {
		// One file's failure is reported in its entry; the call itself succeeds.
		out := structured[ReadMultipleFilesOutput](t, what, &r)
		if len(out.Files) != 1 || out.Files[0].Error == "" {
			t.Errorf("%s succeeded for a %s attempt: %.300s", what, a.kind, msg)
			return
		}
		msg = out.Files[0].Error
	} else if !r.IsError {
		if !tool.okKinds[a.kind] {
			t.Errorf("%s succeeded for a %s attempt: %.300s", what, a.kind, msg)
		}
		if tool.name == "get_file_info" && strings.Contains(msg, `"symlinkResolves":"inside"`) {
			t.Errorf("%s says a link out resolves inside: %s", what, msg)
		}
		return
	}
	if !whyByKind[a.kind].MatchString(msg) && !(tool.write && writeReasons.MatchString(msg)) {
		t.Errorf("%s refused without saying why (want %v): %q", what, whyByKind[a.kind], msg)
	}
}

// TestEscapeSampleCoversKinds keeps the sample honest: it must include every kind of
// attempt that can reach outside (dotdot and absolute paths, links, loops, NUL).
func TestEscapeSampleCoversKinds(t *testing.T) {
	fx := newEscapeFixture(t)
	var got []string
	for _, a := range fx.attempts() {
		if slices.Contains(mcpEscapeSample, a.name) && !slices.Contains(got, a.kind) {
			got = append(got, a.kind)
		}
	}
	slices.Sort(got)
	if d := cmp.Diff([]string{"escape", "link", "literal", "loop", "nul"}, got); d != "" {
		t.Errorf("kinds in the MCP sample (-want +got):\n%s", d)
	}
}
