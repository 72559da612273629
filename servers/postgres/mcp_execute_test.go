package postgres

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestExecuteConfirmationMRTR runs execute's confirmation at 2026-07-28 through the
// in-memory client: the first call answers input_required with an elicitation that
// shows the statement, its params and the planner's estimate, and nothing has run;
// a declined, dismissed or unchecked answer runs nothing; an accepted one runs and
// commits the statement once. Statements that cannot run fail before the user is
// asked, and a client that cannot elicit gets the protocol's error.
func TestExecuteConfirmationMRTR(t *testing.T) {
	t.Parallel()
	d, db := shopDB(t, Options{})
	s := newServer(db, Config{AllowWrites: true})
	c := mcpkittest.Connect(t, s, "2026-07-28", &mcpkittest.Options{Capabilities: elicitCaps})
	changed := func() int64 { return rowCount(t, db, "SELECT count(*) FROM public.t WHERE v = 'changed'") }

	args := map[string]any{"sql": "UPDATE public.t SET v = $1 || $2", "params": []any{"chan", "ged"}}
	first := func(args map[string]any, want ...string) string {
		t.Helper()
		res := c.CallTool("execute", args)
		if res.ResultType != "input_required" || res.RequestState == "" {
			t.Fatalf("first call: resultType %q isError %v %s; want input_required", res.ResultType, res.IsError, res.Text())
		}
		ask, ok := res.InputRequests["confirm"]
		var p struct {
			Message         string         `json:"message"`
			RequestedSchema map[string]any `json:"requestedSchema"`
		}
		if !ok || ask.Method != "elicitation/create" || json.Unmarshal(ask.Params, &p) != nil {
			t.Fatalf("first call asks %+v; want an elicitation/create under \"confirm\"", res.InputRequests)
		}
		for _, w := range want {
			if !strings.Contains(p.Message, w) {
				t.Errorf("confirmation lacks %q:\n%s", w, p.Message)
			}
		}
		if req, _ := p.RequestedSchema["required"].([]any); len(req) != 1 || req[0] != "confirm" {
			t.Errorf("requested schema %v; want a required confirm", p.RequestedSchema)
		}
		return res.RequestState
	}
	retry := func(args map[string]any, state string, answer map[string]any) *mcpkittest.ToolResult {
		t.Helper()
		return c.RetryTool("execute", args, state, map[string]any{"confirm": answer})
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}

	shown := []string{`on database "` + d.Name + `"`, "UPDATE public.t SET v = $1 || $2\n", `$1 = "chan"`, `$2 = "ged"`,
		"Estimated effect: about 5 rows (UPDATE public.t: 5 rows)", "committed as soon as you confirm"}
	for _, no := range []struct {
		answer map[string]any
		why    string
	}{
		{map[string]any{"action": "decline"}, "nothing was changed: the user declined"},
		{map[string]any{"action": "cancel"}, "nothing was changed: the user dismissed the confirmation"},
		{map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}, "nothing was changed: the user did not check confirm"},
	} {
		res := retry(args, first(args, shown...), no.answer)
		if !res.IsError || res.Text() != no.why {
			t.Errorf("answer %v: isError=%v %q; want %q", no.answer, res.IsError, res.Text(), no.why)
		}
		if n := changed(); n != 0 {
			t.Fatalf("answer %v: %d rows changed; want 0", no.answer, n)
		}
	}

	state := first(args, shown...)
	res := retry(args, state, accept)
	if out := structured(t, "accepted", res); out["command"] != "UPDATE 5" || out["rowsAffected"] != 5.0 {
		t.Errorf("accepted: %s; want command UPDATE 5, rowsAffected 5", res.Text())
	}
	if n := changed(); n != 5 {
		t.Errorf("accepted: %d rows changed; want 5", n)
	}

	// Issue 13, item 3: the finished confirmation sent again runs nothing.
	ins := map[string]any{"sql": "UPDATE public.t SET v = v || '!' WHERE id = 2"}
	insState := first(ins, "UPDATE public.t SET v = v || '!' WHERE id = 2")
	if res := retry(ins, insState, accept); res.IsError {
		t.Fatalf("insert accepted: %s", res.Text())
	}
	r := c.Request("tools/call", map[string]any{"name": "execute", "arguments": ins,
		"inputResponses": map[string]any{"confirm": accept}, "requestState": insState})
	if r.Error == nil || !strings.Contains(r.Error.Message, "already used") {
		t.Errorf("the insert's confirmation replayed: %s; want refused as already used", r.Raw)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM public.t WHERE id = 2 AND v = 'changed!'"); n != 1 {
		t.Errorf("row 2 is not 'changed!' after a replayed confirmation (the update ran %s)", "more or less than once")
	}

	ddl := map[string]any{"sql": "CREATE TABLE public.made (x int)"}
	if res := retry(ddl, first(ddl, "CREATE TABLE public.made (x int)", "Estimated effect: not available"), accept); res.IsError {
		t.Errorf("DDL accepted: %s", res.Text())
	}
	if n := rowCount(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'made'"); n != 1 {
		t.Errorf("DDL accepted but table made does not exist")
	}

	// Refused before the user is asked: nothing to confirm.
	for _, tc := range []struct{ sql, want string }{
		{"UPDATE public.t SET v = 'x' WHERE", "ERROR 42601: syntax error at end of input"},
		{"UPDATE public.t SET v = 'x'; DROP TABLE public.t", "send exactly one SQL statement per call"},
		{"UPDATE public.nosuch SET v = 'x'", `ERROR 42P01: relation "public.nosuch" does not exist`},
	} {
		res := c.CallTool("execute", map[string]any{"sql": tc.sql})
		if res.ResultType == "input_required" || !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("%q: resultType %q isError %v %q; want an immediate error with %q", tc.sql, res.ResultType, res.IsError, res.Text(), tc.want)
		}
	}

	// A client without elicitation cannot confirm, so nothing runs.
	noElicit := mcpkittest.Connect(t, s, "2026-07-28", nil)
	r = noElicit.Request("tools/call", map[string]any{"name": "execute", "arguments": map[string]any{"sql": "DELETE FROM public.t"}})
	if r.Error == nil || r.Error.Code != -32021 || !strings.Contains(r.Error.Message, "nothing was changed") {
		t.Errorf("execute from a client without elicitation: %s; want error -32021 saying nothing was changed", r.Raw)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM public.t"); n != 5 {
		t.Errorf("public.t has %d rows; want 5", n)
	}
}

// TestExecuteConfirmationLegacy: on a 2025-11-25 session the confirmation is a
// server-to-client elicitation/create request; accepting commits, declining does not.
func TestExecuteConfirmationLegacy(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{})
	s := newServer(db, Config{AllowWrites: true})
	for _, tc := range []struct {
		action  string
		deleted int64
	}{{"decline", 0}, {"accept", 1}} {
		var asked []string
		c := mcpkittest.Connect(t, s, "2025-11-25", &mcpkittest.Options{
			Capabilities: elicitCaps,
			OnRequest: func(method string, params json.RawMessage) (any, error) {
				var p struct {
					Message string `json:"message"`
				}
				if err := json.Unmarshal(params, &p); err != nil {
					return nil, err
				}
				asked = append(asked, method+": "+strings.Split(p.Message, "\n")[2])
				return map[string]any{"action": tc.action, "content": map[string]any{"confirm": true}}, nil
			},
		})
		before := rowCount(t, db, "SELECT count(*) FROM public.t")
		res := c.CallTool("execute", map[string]any{"sql": "DELETE FROM public.t WHERE id = $1", "params": []any{before}})
		if res.IsError != (tc.action == "decline") {
			t.Errorf("%s: isError=%v %s", tc.action, res.IsError, res.Text())
		}
		if n := before - rowCount(t, db, "SELECT count(*) FROM public.t"); n != tc.deleted {
			t.Errorf("%s: %d rows deleted; want %d", tc.action, n, tc.deleted)
		}
		if len(asked) != 1 || asked[0] != "elicitation/create: DELETE FROM public.t WHERE id = $1" {
			t.Errorf("%s: server requests %q; want one elicitation showing the statement", tc.action, asked)
		}
	}
}

// TestExecuteNoConfirm: with NoConfirm (--no-confirm) execute runs at once, also for a
// client without elicitation, and its description says so.
func TestExecuteNoConfirm(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{})
	s := newServer(db, Config{AllowWrites: true, NoConfirm: true})
	c := mcpkittest.Connect(t, s, "2026-07-28", nil)
	res := c.CallTool("execute", map[string]any{"sql": "DELETE FROM public.t WHERE id = 1"})
	if res.IsError || res.ResultType != "complete" {
		t.Fatalf("execute with NoConfirm: %s %s", res.ResultType, res.Text())
	}
	if n := rowCount(t, db, "SELECT count(*) FROM public.t WHERE id = 1"); n != 0 {
		t.Errorf("row 1 still there")
	}
	var list struct {
		Tools []struct{ Name, Description string }
	}
	_ = json.Unmarshal(c.Call("tools/list", map[string]any{}), &list)
	for _, tl := range list.Tools {
		if tl.Name == "execute" && !strings.Contains(tl.Description, "without asking the user") {
			t.Errorf("execute's description with NoConfirm: %q", tl.Description)
		}
	}
}
