package mcpkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

var elicitCaps = map[string]any{"elicitation": map[string]any{}}

// writeServer has one tool that confirms "write" through req.Confirm and counts the
// writes it does; the confirmation is bound to *pre (a precondition such as a file's
// content hash) when pre is not nil.
func writeServer(opts *mcpkit.ServerOptions, writes *atomic.Int64, pre *atomic.Value) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, opts)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "write", Description: "writes", Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true}},
		func(ctx context.Context, req *mcpkit.Request, in struct {
			Text string `json:"text,omitempty"`
		}) (addOut, error) {
			var bind []string
			if pre != nil {
				bind = append(bind, pre.Load().(string))
			}
			if err := req.Confirm(ctx, "confirm", "Write "+in.Text+"?", bind...); err != nil {
				return addOut{}, err
			}
			n := writes.Add(1)
			if pre != nil {
				pre.Store("written " + in.Text) // the write changes what it was bound to
			}
			return addOut{Sum: int(n)}, nil
		})
	return s
}

// askFirst calls write and returns its input_required result's requestState and the
// confirmation message.
func askFirst(t *testing.T, c *mcpkittest.Client, args map[string]any) (state, message string) {
	t.Helper()
	res := c.CallTool("write", args)
	ask, ok := res.InputRequests["confirm"]
	if res.ResultType != "input_required" || res.RequestState == "" || !ok || ask.Method != "elicitation/create" {
		t.Fatalf("first round: %+v; want input_required with an elicitation under confirm", res)
	}
	var p struct {
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	}
	if err := json.Unmarshal(ask.Params, &p); err != nil {
		t.Fatal(err)
	}
	if req, _ := p.RequestedSchema["required"].([]any); len(req) != 1 || req[0] != "confirm" {
		t.Errorf("requested schema %v; want one required confirm", p.RequestedSchema)
	}
	return res.RequestState, p.Message
}

func answerParams(args map[string]any, state string, answer map[string]any) map[string]any {
	return map[string]any{"name": "write", "arguments": args, "requestState": state,
		"inputResponses": map[string]any{"confirm": answer}}
}

var acceptAnswer = map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}

// TestConfirmAnswers: Confirm's one handling of every answer, at 2026-07-28 and on a
// legacy session: accept with the box checked writes, everything else writes nothing
// and says why; a client without elicitation gets -32021 saying what to do.
func TestConfirmAnswers(t *testing.T) {
	var writes atomic.Int64
	s := writeServer(nil, &writes, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"text": "x"}
	for _, tc := range []struct {
		answer map[string]any
		want   string
	}{
		{map[string]any{"action": "decline"}, "nothing was changed: the user declined"},
		{map[string]any{"action": "cancel"}, "nothing was changed: the user dismissed the confirmation"},
		{map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}, "nothing was changed: the user did not check confirm"},
		{map[string]any{"action": "accept"}, "nothing was changed: the user did not check confirm"},
		{map[string]any{"action": "maybe"}, `nothing was changed: the confirmation answer "maybe" is not accept`},
	} {
		state, _ := askFirst(t, c, args)
		var tr mcpkittest.ToolResult
		_ = json.Unmarshal(c.Call("tools/call", answerParams(args, state, tc.answer)), &tr)
		if !tr.IsError || tr.Text() != tc.want {
			t.Errorf("answer %v: isError=%v %q; want %q", tc.answer, tr.IsError, tr.Text(), tc.want)
		}
	}
	if writes.Load() != 0 {
		t.Fatalf("%d writes after answers that were not a yes", writes.Load())
	}
	state, msg := askFirst(t, c, args)
	if msg != "Write x?" {
		t.Errorf("message %q", msg)
	}
	var tr mcpkittest.ToolResult
	_ = json.Unmarshal(c.Call("tools/call", answerParams(args, state, acceptAnswer)), &tr)
	if tr.IsError || writes.Load() != 1 {
		t.Fatalf("accepted: %s, %d writes; want 1", tr.Text(), writes.Load())
	}

	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125} {
		r := mcpkittest.Connect(t, s, rev, nil).Request("tools/call", map[string]any{"name": "write", "arguments": args})
		if r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability ||
			!strings.Contains(r.Error.Message, "nothing was changed") || !strings.Contains(r.Error.Message, "--no-confirm") {
			t.Errorf("%s without elicitation: %s; want -32021 saying nothing was changed and what to do", rev, r.Raw)
		}
	}
	legacy := mcpkittest.Connect(t, s, mcpkit.Revision20251125, &mcpkittest.Options{Capabilities: elicitCaps,
		OnRequest: func(string, json.RawMessage) (any, error) { return map[string]any{"action": "decline"}, nil }})
	if res := legacy.CallTool("write", args); !res.IsError || res.Text() != "nothing was changed: the user declined" {
		t.Errorf("legacy decline: %+v", res)
	}
	if writes.Load() != 1 {
		t.Errorf("%d writes; want 1", writes.Load())
	}
}

// TestConfirmNoConfirm: with ServerOptions.NoConfirm the write runs without asking,
// also for a client without elicitation.
func TestConfirmNoConfirm(t *testing.T) {
	var writes atomic.Int64
	s := writeServer(&mcpkit.ServerOptions{NoConfirm: true}, &writes, nil)
	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125} {
		res := mcpkittest.Connect(t, s, rev, nil).CallTool("write", map[string]any{"text": "x"})
		if res.IsError || res.ResultType == "input_required" {
			t.Errorf("%s: %+v; want the write done without asking", rev, res)
		}
	}
	if writes.Load() != 2 {
		t.Errorf("%d writes; want 2", writes.Load())
	}
}

// TestConfirmShowsHiddenCharacters: what the user reads shows invisible characters.
func TestConfirmShowsHiddenCharacters(t *testing.T) {
	var writes atomic.Int64
	c := mcpkittest.Connect(t, writeServer(nil, &writes, nil), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	_, msg := askFirst(t, c, map[string]any{"text": "a\u202eb\rc"})
	if !strings.HasPrefix(msg, `Write a\u{202E}b\u{000D}c?`) || !strings.Contains(msg, "WARNING: the text above contains 2 invisible") {
		t.Errorf("message %q", msg)
	}
}

// TestRequestStateReplayRefused (issue 13, item 3): a finished requestState sent
// again does not run the handler again: the write happens once, and the replay is
// refused with an error saying how to be asked again. Before, the same state re-ran
// the write for as long as it lived.
func TestRequestStateReplayRefused(t *testing.T) {
	var writes atomic.Int64
	c := mcpkittest.Connect(t, writeServer(nil, &writes, nil), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"text": "x"}
	state, _ := askFirst(t, c, args)
	if r := c.Request("tools/call", answerParams(args, state, acceptAnswer)); r.Error != nil || writes.Load() != 1 {
		t.Fatalf("first answer: %s; %d writes, want 1", r.Raw, writes.Load())
	}
	for i := range 3 {
		r := c.Request("tools/call", answerParams(args, state, acceptAnswer))
		if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams || !strings.Contains(r.Error.Message, "already used") ||
			!strings.Contains(r.Error.Message, "send the original request again without requestState") {
			t.Errorf("replay %d: %s; want -32602 saying the state was already used", i+1, r.Raw)
		}
	}
	if writes.Load() != 1 {
		t.Errorf("%d writes after three replays; want 1", writes.Load())
	}
	// A declined answer uses its state as well: it cannot be sent again with a yes.
	state, _ = askFirst(t, c, args)
	c.Call("tools/call", answerParams(args, state, map[string]any{"action": "decline"}))
	if r := c.Request("tools/call", answerParams(args, state, acceptAnswer)); r.Error == nil || writes.Load() != 1 {
		t.Errorf("accept after decline with the same state: %s, %d writes; want refused, 1", r.Raw, writes.Load())
	}
	// Calling again without the state asks again, and that confirmation works.
	state, _ = askFirst(t, c, args)
	if r := c.Request("tools/call", answerParams(args, state, acceptAnswer)); r.Error != nil || writes.Load() != 2 {
		t.Errorf("a new confirmation: %s, %d writes; want 2", r.Raw, writes.Load())
	}
}

// TestRequestStateReplayConcurrent: of many copies of one state sent at once, one runs.
func TestRequestStateReplayConcurrent(t *testing.T) {
	var writes atomic.Int64
	c := mcpkittest.Connect(t, writeServer(nil, &writes, nil), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"text": "x"}
	state, _ := askFirst(t, c, args)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		ch := c.Send(c.NextID(), "tools/call", c.WithMeta(answerParams(args, state, acceptAnswer)))
		go func() { defer wg.Done(); <-ch }()
	}
	wg.Wait()
	if writes.Load() != 1 {
		t.Errorf("16 concurrent copies of one state wrote %d times; want 1", writes.Load())
	}
}

// TestRequestStateReplayAcrossInstances: two instances with one state key. With a
// guard each, a replay to the other instance gets past the guard, and what stops it
// is the confirmation's binding: the precondition changed with the write. With one
// shared guard the replay is refused before the handler runs.
func TestRequestStateReplayAcrossInstances(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	args := map[string]any{"text": "x"}
	t.Run("own guards, bound precondition", func(t *testing.T) {
		var writes atomic.Int64
		var pre atomic.Value // the shared backend both instances write to
		pre.Store("v1")
		a := mcpkittest.Connect(t, writeServer(&mcpkit.ServerOptions{StateKey: key}, &writes, &pre), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
		b := mcpkittest.Connect(t, writeServer(&mcpkit.ServerOptions{StateKey: key}, &writes, &pre), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
		state, _ := askFirst(t, a, args)
		a.Call("tools/call", answerParams(args, state, acceptAnswer))
		var tr mcpkittest.ToolResult
		_ = json.Unmarshal(b.Call("tools/call", answerParams(args, state, acceptAnswer)), &tr)
		if !tr.IsError || !strings.Contains(tr.Text(), "nothing was changed: what the user was asked to confirm has changed") || writes.Load() != 1 {
			t.Errorf("replay on the other instance: %q, %d writes; want refused by the precondition, 1 write", tr.Text(), writes.Load())
		}
	})
	t.Run("shared guard", func(t *testing.T) {
		var writes atomic.Int64
		guard := mcpkit.NewReplayGuard(0)
		opts := &mcpkit.ServerOptions{StateKey: key, ReplayGuard: guard}
		a := mcpkittest.Connect(t, writeServer(opts, &writes, nil), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
		b := mcpkittest.Connect(t, writeServer(opts, &writes, nil), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
		state, _ := askFirst(t, a, args)
		a.Call("tools/call", answerParams(args, state, acceptAnswer))
		if r := b.Request("tools/call", answerParams(args, state, acceptAnswer)); r.Error == nil || !strings.Contains(r.Error.Message, "already used") || writes.Load() != 1 {
			t.Errorf("replay on the other instance: %s, %d writes; want refused, 1 write", r.Raw, writes.Load())
		}
	})
}

// TestConfirmBoundToWhatWasShown: when what the confirmation showed changes between
// the question and the answer, the answer is not taken.
func TestConfirmBoundToWhatWasShown(t *testing.T) {
	var writes atomic.Int64
	var pre atomic.Value
	pre.Store("v1")
	c := mcpkittest.Connect(t, writeServer(nil, &writes, &pre), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"text": "x"}
	state, _ := askFirst(t, c, args)
	pre.Store("v2") // changed by someone else while the user read the question
	var tr mcpkittest.ToolResult
	_ = json.Unmarshal(c.Call("tools/call", answerParams(args, state, acceptAnswer)), &tr)
	if !tr.IsError || !strings.HasPrefix(tr.Text(), "nothing was changed: what the user was asked to confirm has changed") || writes.Load() != 0 {
		t.Errorf("answer after a change: %q, %d writes; want refused, 0", tr.Text(), writes.Load())
	}
}

// TestRequestStateReplayElicit is the replay measured with plain Elicit (no Confirm):
// the second copy of a finished state does not run the handler again.
func TestRequestStateReplayElicit(t *testing.T) {
	var runs atomic.Int64
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "write", Description: "writes", Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true}},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
			res, err := req.Elicit(ctx, "confirm", mcpkit.ElicitParams{Message: "Write?", RequestedSchema: map[string]any{
				"type": "object", "required": []string{"confirm"}, "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}}})
			if err != nil {
				return addOut{}, err
			}
			if res.Action == "accept" {
				runs.Add(1)
			}
			return addOut{Sum: int(runs.Load())}, nil
		})
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	state, _ := askFirst(t, c, map[string]any{})
	for range 3 {
		c.Request("tools/call", answerParams(map[string]any{}, state, acceptAnswer))
	}
	if runs.Load() != 1 {
		t.Errorf("one confirmation sent three times wrote %d times; want 1", runs.Load())
	}
}

// TestShowHidden: a confirmation shows invisible characters as escapes and counts
// them, and leaves visible text (CR LF line ends included) as it is.
func TestShowHidden(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{"UPDATE t SET v = 'x'\r\nWHERE id = 1", "UPDATE t SET v = 'x'\r\nWHERE id = 1", 0},
		{"DELETE FROM t WHERE\tid = 1 -- héllo", "DELETE FROM t WHERE\tid = 1 -- héllo", 0},
		{"DELETE FROM t -- \u202e1 = di EREHW", `DELETE FROM t -- \u{202E}1 = di EREHW`, 1},
		{"SELECT 'a\u200bb'", `SELECT 'a\u{200B}b'`, 1},
		{"DROP TABLE x;\rSELECT 1", `DROP TABLE x;\u{000D}SELECT 1`, 1},
		{"SELECT '\xff'", `SELECT '\x{FF}'`, 1},
		{"SELECT '\x1b[2J'", `SELECT '\u{001B}[2J'`, 1},
	} {
		got, n := mcpkit.ShowHidden(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("ShowHidden(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}
