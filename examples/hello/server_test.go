package hello

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// revisions are the protocol revisions every test runs at.
var revisions = []string{mcpkit.Revision20260728, mcpkit.Revision20251125}

// canElicit declares the client's elicitation capability.
var canElicit = map[string]any{"elicitation": map[string]any{}}

// newServer serves a fresh notes directory holding files (name -> content).
func newServer(t *testing.T, allowWrites bool, files map[string]string) (*mcpkit.Server, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return New(Config{Notes: root, AllowWrites: allowWrites}), dir
}

// note returns a note's file content, or "(none)" when it does not exist.
func note(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".md"))
	if os.IsNotExist(err) {
		return "(none)"
	} else if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestToolsGolden snapshots tools/list read-only (the default) and with writes; rewrite
// the files with go test ./... -update when a change is intended.
func TestToolsGolden(t *testing.T) {
	for _, tc := range []struct {
		allowWrites bool
		golden      string
	}{{false, "testdata/tools_readonly.golden.json"}, {true, "testdata/tools_writes.golden.json"}} {
		s, _ := newServer(t, tc.allowWrites, nil)
		size := mcpkittest.ToolsGolden(t, mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil), tc.golden)
		t.Logf("%s: %d bytes", tc.golden, size)
	}
}

// TestReadNote lists the notes (only NAME.md files with valid names) and reads one,
// at both revisions; a name that is not one is refused before the handler runs.
func TestReadNote(t *testing.T) {
	files := map[string]string{"todo.md": "- milk\n", "ideas.md": "# Ideas\n", "README.txt": "not a note", "Bad Name.md": "x", "big.md": strings.Repeat("x", maxNoteBytes+10)}
	for _, rev := range revisions {
		s, _ := newServer(t, false, files)
		c := mcpkittest.Connect(t, s, rev, nil)
		for _, tc := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{}, `{"notes":["big","ideas","todo"]}`},
			{map[string]any{"name": "todo"}, `{"name":"todo","text":"- milk\n"}`},
		} {
			res := c.CallTool("read_note", tc.args)
			if res.IsError || string(res.StructuredContent) != tc.want {
				t.Errorf("%s: read_note %v = %s (isError %v); want %s", rev, tc.args, res.StructuredContent, res.IsError, tc.want)
			}
		}
		if res := c.CallTool("read_note", map[string]any{"name": "nope"}); !res.IsError || !strings.Contains(res.Text(), `there is no note "nope"`) {
			t.Errorf("%s: read_note nope: isError %v, %s", rev, res.IsError, res.Text())
		}
		if res := c.CallTool("read_note", map[string]any{"name": "../etc/passwd"}); !res.IsError || !strings.Contains(res.Text(), "does not match the pattern") {
			t.Errorf("%s: read_note ../etc/passwd was not refused by the schema: %s", rev, res.Text())
		}
		res := c.CallTool("read_note", map[string]any{"name": "big"})
		var big readOut
		if err := json.Unmarshal(res.StructuredContent, &big); err != nil || !big.Truncated || len(big.Text) != maxNoteBytes {
			t.Errorf("%s: read_note big: truncated %v, %d bytes of text (%v); want the first %d bytes, marked truncated", rev, big.Truncated, len(big.Text), err, maxNoteBytes)
		}
	}
}

// TestReadOnlyByDefault: without AllowWrites there is no write_note to call.
func TestReadOnlyByDefault(t *testing.T) {
	s, dir := newServer(t, false, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: canElicit})
	r := c.Request("tools/call", map[string]any{"name": "write_note", "arguments": map[string]any{"name": "todo", "text": "x"}})
	if r.Error == nil || !strings.Contains(r.Error.Message, `tool "write_note" changes things, and this server runs read-only`) || !strings.Contains(r.Error.Message, "--allow-writes") {
		t.Errorf("write_note on a read-only server: %s; want the refusal naming --allow-writes", r.Raw)
	}
	if got := note(t, dir, "todo"); got != "(none)" {
		t.Errorf("the note was written: %q", got)
	}
}

// retry sends a 2026-07-28 tools/call again with the user's answer and the state.
func retry(t *testing.T, c *mcpkittest.Client, args map[string]any, state string, answer map[string]any) *mcpkittest.ToolResult {
	t.Helper()
	return c.RetryTool("write_note", args, state, map[string]any{"confirm": answer})
}

// TestWriteConfirmed runs the confirmation at 2026-07-28: the first call answers
// input_required with an elicitation showing what will happen and writes nothing; the
// retry with an accepted, checked confirmation writes; any other answer does not.
func TestWriteConfirmed(t *testing.T) {
	accept := map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
	for _, tc := range []struct {
		name          string
		args          map[string]any
		ask, result   string
		before, after string
	}{
		{"create", map[string]any{"name": "todo", "text": "- eggs\n"}, "Create the note \"todo\" with this text?\n\n- eggs\n",
			`{"name":"todo","action":"created","bytes":7}`, "(none)", "- eggs\n"},
		{"replace", map[string]any{"name": "todo", "text": "- eggs\n"}, "Replace the note \"todo\" (7 bytes) with this text?\n\n- eggs\n",
			`{"name":"todo","action":"replaced","bytes":7}`, "- milk\n", "- eggs\n"},
		{"delete", map[string]any{"name": "todo", "delete": true}, `Delete the note "todo" (7 bytes)?`,
			`{"name":"todo","action":"deleted","bytes":0}`, "- milk\n", "(none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.before != "(none)" {
				files["todo.md"] = tc.before
			}
			s, dir := newServer(t, true, files)
			c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: canElicit})
			first := func() string {
				t.Helper()
				res := c.CallTool("write_note", tc.args)
				ask, ok := res.InputRequests["confirm"]
				if res.ResultType != "input_required" || !ok || ask.Method != "elicitation/create" {
					t.Fatalf("first call: resultType %q, inputRequests %+v (%s); want an elicitation under \"confirm\"", res.ResultType, res.InputRequests, res.Text())
				}
				var p mcpkit.ElicitParams
				if err := json.Unmarshal(ask.Params, &p); err != nil {
					t.Fatal(err)
				}
				if p.Message != tc.ask {
					t.Errorf("confirmation %q; want %q", p.Message, tc.ask)
				}
				if got := note(t, dir, "todo"); got != tc.before {
					t.Errorf("before the answer the note is %q; want it unchanged %q", got, tc.before)
				}
				return res.RequestState
			}
			for _, no := range []struct {
				answer map[string]any
				why    string
			}{
				{map[string]any{"action": "decline"}, "nothing was changed: the user declined"},
				{map[string]any{"action": "cancel"}, "nothing was changed: the user dismissed the confirmation"},
				{map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}, "nothing was changed: the user did not check confirm"},
			} {
				if res := retry(t, c, tc.args, first(), no.answer); !res.IsError || res.Text() != no.why {
					t.Errorf("answer %v: isError %v, %q; want %q", no.answer, res.IsError, res.Text(), no.why)
				}
				if got := note(t, dir, "todo"); got != tc.before {
					t.Errorf("answer %v: the note is %q; want it unchanged", no.answer, got)
				}
			}
			state := first()
			res := retry(t, c, tc.args, state, accept)
			if res.IsError || res.ResultType != "complete" || string(res.StructuredContent) != tc.result {
				t.Errorf("accepted: resultType %q isError %v %s; want %s", res.ResultType, res.IsError, res.Text(), tc.result)
			}
			if got := note(t, dir, "todo"); got != tc.after {
				t.Errorf("accepted: the note is %q; want %q", got, tc.after)
			}
			// The confirmation sent again is refused: the note is written once.
			os.WriteFile(filepath.Join(dir, "todo.md"), []byte("- changed by hand\n"), 0o644)
			r := c.Request("tools/call", map[string]any{"name": "write_note", "arguments": tc.args,
				"inputResponses": map[string]any{"confirm": accept}, "requestState": state})
			if r.Error == nil || !strings.Contains(r.Error.Message, "already used") {
				t.Errorf("replayed confirmation: %s; want refused as already used", r.Raw)
			}
			if got := note(t, dir, "todo"); got != "- changed by hand\n" {
				t.Errorf("after a replayed confirmation the note is %q; want it left as it was", got)
			}
		})
	}
}

// TestWriteConfirmedLegacy: at 2025-11-25 the confirmation is an elicitation/create
// request to the client; accepting writes, declining does not.
func TestWriteConfirmedLegacy(t *testing.T) {
	for _, tc := range []struct{ action, want string }{{"accept", "- eggs\n"}, {"decline", "(none)"}} {
		s, dir := newServer(t, true, nil)
		var asked []string
		c := mcpkittest.Connect(t, s, mcpkit.Revision20251125, &mcpkittest.Options{
			Capabilities: canElicit,
			OnRequest: func(method string, params json.RawMessage) (any, error) {
				var p mcpkit.ElicitParams
				err := json.Unmarshal(params, &p)
				asked = append(asked, method+": "+p.Message)
				return map[string]any{"action": tc.action, "content": map[string]any{"confirm": true}}, err
			},
		})
		res := c.CallTool("write_note", map[string]any{"name": "todo", "text": "- eggs\n"})
		if res.IsError != (tc.action != "accept") {
			t.Errorf("%s: isError %v (%s)", tc.action, res.IsError, res.Text())
		}
		if d := cmp.Diff([]string{"elicitation/create: Create the note \"todo\" with this text?\n\n- eggs\n"}, asked); d != "" {
			t.Errorf("%s: requests to the client (-want +got):\n%s", tc.action, d)
		}
		if got := note(t, dir, "todo"); got != tc.want {
			t.Errorf("%s: the note is %q; want %q", tc.action, got, tc.want)
		}
	}
}

// TestWriteNeedsElicitation: a client that cannot elicit gets the protocol's
// missing-capability error at both revisions, and nothing is written.
func TestWriteNeedsElicitation(t *testing.T) {
	for _, rev := range revisions {
		s, dir := newServer(t, true, nil)
		c := mcpkittest.Connect(t, s, rev, nil)
		r := c.Request("tools/call", map[string]any{"name": "write_note", "arguments": map[string]any{"name": "todo", "text": "x"}})
		if r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability {
			t.Errorf("%s: write_note from a client without elicitation: %s; want error %d", rev, r.Raw, mcpkit.CodeMissingClientCapability)
		}
		if got := note(t, dir, "todo"); got != "(none)" {
			t.Errorf("%s: the note was written: %q", rev, got)
		}
	}
}

// TestWriteBoundToTheNote: an answer given for the note as it was is not taken when
// the note changed before the answer came: nothing is written, and a new call asks
// about the note as it is.
func TestWriteBoundToTheNote(t *testing.T) {
	s, dir := newServer(t, true, map[string]string{"todo.md": "- milk\n"})
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: canElicit})
	args := map[string]any{"name": "todo", "text": "- eggs\n"}
	first := c.CallTool("write_note", args)
	if first.ResultType != "input_required" {
		t.Fatalf("first call: %+v", first)
	}
	os.WriteFile(filepath.Join(dir, "todo.md"), []byte("- bread\n"), 0o644) // another writer, meanwhile
	res := retry(t, c, args, first.RequestState, map[string]any{"action": "accept", "content": map[string]any{"confirm": true}})
	if !res.IsError || !strings.Contains(res.Text(), "nothing was changed: what the user was asked to confirm has changed") {
		t.Errorf("answer for the old note: %+v; want refused", res)
	}
	if got := note(t, dir, "todo"); got != "- bread\n" {
		t.Errorf("the note is %q; want the other writer's text kept", got)
	}
}

// TestWriteNoConfirm: with --no-confirm the write happens without a question, also
// for a client without elicitation, and the description says so.
func TestWriteNoConfirm(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := mcpkittest.Connect(t, New(Config{Notes: root, AllowWrites: true, NoConfirm: true}), mcpkit.Revision20260728, nil)
	if res := c.CallTool("write_note", map[string]any{"name": "todo", "text": "x"}); res.IsError || res.ResultType != "complete" {
		t.Errorf("write with NoConfirm: %s %s", res.ResultType, res.Text())
	}
	if !strings.Contains(string(c.Call("tools/list", map[string]any{})), "Runs without asking the user") {
		t.Error("write_note's description does not say it runs without asking")
	}
}

// TestWriteRefused: calls that cannot be confirmed as asked fail before any question.
func TestWriteRefused(t *testing.T) {
	s, _ := newServer(t, true, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: canElicit})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "todo"}, "text is empty"},
		{map[string]any{"name": "todo", "delete": true}, `there is no note "todo" to delete`},
		{map[string]any{"name": "todo", "delete": true, "text": "x"}, "not both"},
	} {
		if res := c.CallTool("write_note", tc.args); !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("write_note %v: resultType %q isError %v %q; want an error containing %q", tc.args, res.ResultType, res.IsError, res.Text(), tc.want)
		}
	}
}
