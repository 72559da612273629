package filesystem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

var elicitCaps = map[string]any{"elicitation": map[string]any{}}

var acceptAnswer = map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}

// asked calls a tool that must ask for confirmation and returns the requestState and
// the message shown.
func asked(t *testing.T, c *mcpkittest.Client, tool string, args map[string]any) (state, message string) {
	t.Helper()
	res := c.CallTool(tool, args)
	ask, ok := res.InputRequests["confirm"]
	if res.ResultType != "input_required" || !ok || ask.Method != "elicitation/create" {
		t.Fatalf("%s: resultType %q isError %v %s; want input_required with an elicitation under confirm", tool, res.ResultType, res.IsError, res.Text())
	}
	var p mcpkit.ElicitParams
	if err := json.Unmarshal(ask.Params, &p); err != nil {
		t.Fatal(err)
	}
	return res.RequestState, p.Message
}

// answered sends the answer with the state and returns the result.
func answered(t *testing.T, c *mcpkittest.Client, tool string, args map[string]any, state string, answer map[string]any) *mcpkittest.ToolResult {
	t.Helper()
	return c.RetryTool(tool, args, state, map[string]any{"confirm": answer})
}

func containsAll(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// TestDestructiveWritesConfirmed (issue 13, item 2): the writes that destroy
// something ask the user first, showing what will change, and write nothing until
// they accept: write_file over an existing file (its size and first lines), edit_file
// (the diff) and move_file with overwrite onto an existing file (the file replaced).
// Creating a file, creating a directory, a dry run and a move to a free path destroy
// nothing and do not ask. Before, no write ever asked.
func TestDestructiveWritesConfirmed(t *testing.T) {
	dir := toolFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	hello := filepath.Join(dir, "hello.txt")

	// Not confirmed: nothing is destroyed.
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "new.txt", "content": "fresh\n"}},
		{"create_directory", map[string]any{"path": "made"}},
		{"edit_file", map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "world", "newText": "there"}}, "dryRun": true}},
		{"move_file", map[string]any{"source": "new.txt", "destination": "renamed.txt"}},
	} {
		if res := c.CallTool(call.tool, call.args); res.ResultType != "complete" || res.IsError {
			t.Errorf("%s %v: resultType %q isError %v %s; want done without asking", call.tool, call.args, res.ResultType, res.IsError, res.Text())
		}
	}

	// write_file over an existing file.
	args := map[string]any{"path": "hello.txt", "content": "brand new\n"}
	state, msg := asked(t, c, "write_file", args)
	containsAll(t, "write_file's confirmation", msg, "Replace the whole file "+hello+" with 10 bytes of new content?",
		"The file now has 12 bytes, last modified ", "It begins:\nhello\nworld\n\n", "The new content begins:\nbrand new\n", "Its old content is lost.")
	if got := readFile(t, hello); got != "hello\nworld\n" {
		t.Fatalf("before the answer hello.txt is %q", got)
	}
	if res := answered(t, c, "write_file", args, state, map[string]any{"action": "decline"}); !res.IsError || res.Text() != "nothing was changed: the user declined" {
		t.Errorf("declined: %+v", res)
	}
	if got := readFile(t, hello); got != "hello\nworld\n" {
		t.Fatalf("after a decline hello.txt is %q", got)
	}
	state, _ = asked(t, c, "write_file", args)
	if res := answered(t, c, "write_file", args, state, acceptAnswer); res.IsError || readFile(t, hello) != "brand new\n" {
		t.Fatalf("accepted: %s; hello.txt %q", res.Text(), readFile(t, hello))
	}

	// edit_file shows the diff.
	edit := map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "brand", "newText": "quite"}}}
	state, msg = asked(t, c, "edit_file", edit)
	containsAll(t, "edit_file's confirmation", msg, "Edit "+hello+" (1 replacement) as this diff shows?", "-brand new\n+quite new\n")
	if got := readFile(t, hello); got != "brand new\n" {
		t.Fatalf("before the answer hello.txt is %q", got)
	}
	if res := answered(t, c, "edit_file", edit, state, acceptAnswer); res.IsError || readFile(t, hello) != "quite new\n" {
		t.Fatalf("edit accepted: %s; hello.txt %q", res.Text(), readFile(t, hello))
	}

	// move_file onto an existing file shows the file replaced.
	move := map[string]any{"source": "renamed.txt", "destination": "sub/note.md", "overwrite": true}
	state, msg = asked(t, c, "move_file", move)
	containsAll(t, "move_file's confirmation", msg, "Move "+filepath.Join(dir, "renamed.txt")+" to "+filepath.Join(dir, "sub", "note.md")+", replacing the file that is there?",
		"The file replaced has 26 bytes", "It begins:\n# Note\nthe needle is here", "Its content is lost.")
	if res := answered(t, c, "move_file", move, state, acceptAnswer); res.IsError || readFile(t, filepath.Join(dir, "sub", "note.md")) != "fresh\n" {
		t.Fatalf("move accepted: %s", res.Text())
	}

	// A binary file's content is not shown; hidden characters are shown as escapes.
	_, msg = asked(t, c, "write_file", map[string]any{"path": "data.bin", "content": "x"})
	containsAll(t, "binary file's confirmation", msg, "Its content is binary and not shown.")
	writeTree(t, dir, map[string]string{"tricky.txt": "ok \u202eevil\n"})
	_, msg = asked(t, c, "write_file", map[string]any{"path": "tricky.txt", "content": "x"})
	containsAll(t, "hidden characters", msg, `ok \u{202E}evil`, "WARNING: the text above contains 1 invisible")
}

// TestConfirmedWriteCannotBeReplayed (issue 13, item 3): a finished confirmation sent
// again writes nothing: on the same instance the state is refused as used; on
// another instance (same state key, its own memory) the write's precondition, the
// version of the file the user saw, has changed. Before, the same state re-ran the
// write for its whole lifetime.
func TestConfirmedWriteCannotBeReplayed(t *testing.T) {
	dir := toolFixture(t)
	key := []byte(strings.Repeat("k", 32))
	instance := func() *mcpkittest.Client {
		s := newServerOn(t, Config{AllowWrites: true}, dir)
		if err := s.SetStateKey(key); err != nil {
			t.Fatal(err)
		}
		return mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	}
	a, b := instance(), instance()
	hello := filepath.Join(dir, "hello.txt")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // hello.txt after the accepted write
	}{
		{"write_file", map[string]any{"path": "hello.txt", "content": "hello\nworld\n!\n"}, "hello\nworld\n!\n"},
		{"edit_file", map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "world\n", "newText": "world\n!\n"}}}, "hello\nworld\n!\n"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			writeTree(t, dir, map[string]string{"hello.txt": "hello\nworld\n"})
			state, _ := asked(t, a, tc.tool, tc.args)
			if res := answered(t, a, tc.tool, tc.args, state, acceptAnswer); res.IsError || readFile(t, hello) != tc.want {
				t.Fatalf("accepted: %s; hello.txt %q", res.Text(), readFile(t, hello))
			}
			// Someone puts the old text back: a replayed write would apply again.
			time.Sleep(10 * time.Millisecond)
			writeTree(t, dir, map[string]string{"hello.txt": "hello\nworld\n"})
			replay := map[string]any{"name": tc.tool, "arguments": tc.args, "requestState": state,
				"inputResponses": map[string]any{"confirm": acceptAnswer}}
			if r := a.Request("tools/call", replay); r.Error == nil || !strings.Contains(r.Error.Message, "already used") {
				t.Errorf("replay on the same instance: %s; want refused as already used", r.Raw)
			}
			var tr mcpkittest.ToolResult
			_ = json.Unmarshal(b.Call("tools/call", replay), &tr)
			if !tr.IsError || !strings.HasPrefix(tr.Text(), "nothing was changed: what the user was asked to confirm has changed") {
				t.Errorf("replay on another instance: %+v; want refused because the file changed", tr)
			}
			if got := readFile(t, hello); got != "hello\nworld\n" {
				t.Errorf("after the replays hello.txt is %q; want it as put back", got)
			}
		})
	}
}

// TestConfirmationBoundToTheFileShown: a file changed between the question and the
// answer is not replaced: the user confirmed replacing another content.
func TestConfirmationBoundToTheFileShown(t *testing.T) {
	dir := toolFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"path": "hello.txt", "content": "mine\n"}
	state, _ := asked(t, c, "write_file", args)
	writeTree(t, dir, map[string]string{"hello.txt": "theirs, written meanwhile\n"})
	res := answered(t, c, "write_file", args, state, acceptAnswer)
	if !res.IsError || !strings.Contains(res.Text(), "call the tool again to be asked about it as it is now") {
		t.Errorf("answer for the old file: %+v; want refused", res)
	}
	if got := readFile(t, filepath.Join(dir, "hello.txt")); got != "theirs, written meanwhile\n" {
		t.Errorf("hello.txt is %q; want the other writer's content kept", got)
	}
}

// TestDestructiveWritesLegacyAndWithoutElicitation: at 2025-11-25 the confirmation is
// an elicitation/create request (accept writes, decline does not); a client without
// elicitation gets -32021 at both revisions for a destructive write and nothing is
// written, while creating a new file needs no confirmation.
func TestDestructiveWritesLegacyAndWithoutElicitation(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		dir := toolFixture(t)
		var shown []string
		c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), mcpkit.Revision20251125, &mcpkittest.Options{
			Capabilities: elicitCaps,
			OnRequest: func(method string, params json.RawMessage) (any, error) {
				var p mcpkit.ElicitParams
				err := json.Unmarshal(params, &p)
				line, _, _ := strings.Cut(p.Message, "\n")
				shown = append(shown, method+": "+line)
				return map[string]any{"action": action, "content": map[string]any{"confirm": true}}, err
			}})
		res := c.CallTool("edit_file", map[string]any{"path": "hello.txt", "edits": []map[string]string{{"oldText": "world", "newText": "there"}}})
		want := map[string]string{"accept": "hello\nthere\n", "decline": "hello\nworld\n"}[action]
		if res.IsError != (action == "decline") || readFile(t, filepath.Join(dir, "hello.txt")) != want {
			t.Errorf("legacy %s: isError %v %s; hello.txt %q", action, res.IsError, res.Text(), readFile(t, filepath.Join(dir, "hello.txt")))
		}
		if len(shown) != 1 || shown[0] != "elicitation/create: Edit "+filepath.Join(dir, "hello.txt")+" (1 replacement) as this diff shows?" {
			t.Errorf("legacy %s: requests to the client %q", action, shown)
		}
	}
	for _, rev := range revisions {
		dir := toolFixture(t)
		c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), rev, nil)
		r := c.Request("tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": "hello.txt", "content": "x"}})
		if r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability || !strings.Contains(r.Error.Message, "nothing was changed") {
			t.Errorf("%s: replacing a file without elicitation: %s; want -32021 saying nothing was changed", rev, r.Raw)
		}
		if got := readFile(t, filepath.Join(dir, "hello.txt")); got != "hello\nworld\n" {
			t.Errorf("%s: hello.txt was written: %q", rev, got)
		}
		if res := c.CallTool("write_file", map[string]any{"path": "new.txt", "content": "x"}); res.IsError {
			t.Errorf("%s: creating a file without elicitation: %s", rev, res.Text())
		}
	}
}

// TestNoConfirm: with --no-confirm (Config.NoConfirm) every write runs without a
// question, also for a client without elicitation, and the descriptions say so.
func TestNoConfirm(t *testing.T) {
	dir := toolFixture(t)
	c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true, NoConfirm: true}, dir), mcpkit.Revision20260728, nil)
	if res := c.CallTool("write_file", map[string]any{"path": "hello.txt", "content": "x"}); res.IsError || res.ResultType != "complete" {
		t.Errorf("write_file with NoConfirm: %s %s", res.ResultType, res.Text())
	}
	for _, tl := range listToolNames(t, c) {
		if strings.Contains(tl.Description, "confirm") {
			t.Errorf("%s's description with NoConfirm mentions a confirmation: %q", tl.Name, tl.Description)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil || readFile(t, filepath.Join(dir, "hello.txt")) != "x" {
		t.Errorf("hello.txt not written")
	}
	// The deletes too (issue 30), and their descriptions say so.
	if res := c.CallTool("delete_directory", map[string]any{"path": "sub", "recursive": true}); res.IsError || res.ResultType != "complete" {
		t.Errorf("delete_directory with NoConfirm: %s %s", res.ResultType, res.Text())
	}
	for _, tl := range listToolNames(t, c) {
		if strings.HasPrefix(tl.Name, "delete_") && !strings.Contains(tl.Description, "deletes without asking") {
			t.Errorf("%s's description with NoConfirm does not say it deletes without asking: %q", tl.Name, tl.Description)
		}
	}
}
