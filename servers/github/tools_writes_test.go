package github

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// writeCase is one write tool: where its request lands on the fake, the body the fake
// must receive, the confirmation's first line and what the result says.
type writeCase struct {
	tool, method, path string
	body               map[string]any
	confirm            string // first line of the elicitation message (host filled in)
	result             string
}

func writeCases(host string) []writeCase {
	return []writeCase{
		{"create_issue", "POST", "/api/v3/repos/octo/hello/issues",
			map[string]any{"title": "New bug", "body": "Steps to reproduce"},
			"Create an issue in octo/hello on " + host, `{"repository":"octo/hello","number":11,"url":"https://github.example.com/octo/hello/issues/11"}`},
		{"add_comment", "POST", "/api/v3/repos/octo/hello/issues/5/comments",
			map[string]any{"body": "Fixed in #4."},
			"Comment on octo/hello#5 on " + host, `{"id":950,"url":"https://github.example.com/octo/hello/issues/5#issuecomment-950"}`},
		{"create_pull_request", "POST", "/api/v3/repos/octo/hello/pulls",
			map[string]any{"title": "Add feature", "head": "octocat:feature", "base": "main", "draft": false},
			"Open a pull request in octo/hello on " + host + ": merge octocat:feature into main", `{"repository":"octo/hello","number":12,"url":"https://github.example.com/octo/hello/pull/12"}`},
		{"create_or_update_file", "PUT", "/api/v3/repos/octo/hello/contents/docs/notes.md",
			map[string]any{"message": "Add notes", "content": base64.StdEncoding.EncodeToString([]byte("# Notes\n"))},
			"Create the new file docs/notes.md in octo/hello on " + host + ", committing to the default branch", `"path":"docs/notes.md","created":true`},
	}
}

// writes counts the requests that change something on the fake.
func (f *fakeGitHub) writes() int {
	n := 0
	for _, r := range f.requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

func (f *fakeGitHub) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

// TestWriteConfirmationMRTR runs each write tool's confirmation at 2026-07-28: the
// first call answers input_required with an elicitation showing what will be written
// where, and GitHub has received nothing; the retry with the user's acceptance and
// the requestState writes once; a declined or unchecked confirmation writes nothing.
func TestWriteConfirmationMRTR(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Repos: mustAllow(t, "octo/hello")}, Config{AllowWrites: true}), "2026-07-28")
	for _, wc := range writeCases(f.host()) {
		t.Run(wc.tool, func(t *testing.T) {
			args := validArgs[wc.tool]
			first := func() *mcpkittest.ToolResult {
				t.Helper()
				before := f.writes()
				res := c.CallTool(wc.tool, args)
				if res.ResultType != "input_required" || res.RequestState == "" {
					t.Fatalf("first call: resultType %q (isError %v, %s); want input_required with a requestState", res.ResultType, res.IsError, res.Text())
				}
				ask, ok := res.InputRequests["confirm"]
				if !ok || ask.Method != "elicitation/create" {
					t.Fatalf("first call asks %+v; want an elicitation/create under \"confirm\"", res.InputRequests)
				}
				var p struct {
					Message         string         `json:"message"`
					RequestedSchema map[string]any `json:"requestedSchema"`
				}
				if err := json.Unmarshal(ask.Params, &p); err != nil {
					t.Fatal(err)
				}
				if line, _, _ := strings.Cut(p.Message, "\n"); line != wc.confirm {
					t.Errorf("confirmation starts %q; want %q\n%s", line, wc.confirm, p.Message)
				}
				if req, _ := p.RequestedSchema["required"].([]any); len(req) != 1 || req[0] != "confirm" {
					t.Errorf("requested schema %v; want a required confirm", p.RequestedSchema)
				}
				if n := f.writes() - before; n != 0 {
					t.Errorf("%d write requests reached GitHub before the user answered", n)
				}
				return res
			}
			retry := func(state string, answer map[string]any) *mcpkittest.ToolResult {
				t.Helper()
				return c.RetryTool(wc.tool, args, state, map[string]any{"confirm": answer})
			}

			for _, no := range []struct {
				answer map[string]any
				why    string
			}{
				{map[string]any{"action": "decline"}, "nothing was changed: the user declined"},
				{map[string]any{"action": "cancel"}, "nothing was changed: the user dismissed the confirmation"},
				{map[string]any{"action": "accept", "content": map[string]any{"confirm": false}}, "nothing was changed: the user did not check confirm"},
			} {
				before := f.writes()
				res := retry(first().RequestState, no.answer)
				if !res.IsError || res.Text() != no.why {
					t.Errorf("answer %v: isError=%v text=%q; want %q", no.answer, res.IsError, res.Text(), no.why)
				}
				if n := f.writes() - before; n != 0 {
					t.Errorf("answer %v: %d write requests reached GitHub; want 0", no.answer, n)
				}
			}

			before := f.writes()
			accept := map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
			state := first().RequestState
			res := retry(state, accept)
			if res.IsError || res.ResultType != "complete" || !strings.Contains(res.Text(), wc.result) {
				t.Fatalf("accepted: resultType %q isError %v text %s; want it to contain %s", res.ResultType, res.IsError, res.Text(), wc.result)
			}
			if n := f.writes() - before; n != 1 {
				t.Errorf("accepted: %d write requests; want exactly 1", n)
			}
			// Issue 13, item 3: the finished confirmation sent again writes nothing.
			r := c.Request("tools/call", map[string]any{"name": wc.tool, "arguments": args,
				"inputResponses": map[string]any{"confirm": accept}, "requestState": state})
			if r.Error == nil || !strings.Contains(r.Error.Message, "already used") {
				t.Errorf("replayed confirmation: %s; want refused as already used", r.Raw)
			}
			if n := f.writes() - before; n != 1 {
				t.Errorf("after a replayed confirmation: %d write requests; want exactly 1", n)
			}
			if d := cmp.Diff(wc.body, f.lastBody(t, wc.method, wc.path)); d != "" {
				t.Errorf("%s %s body (-want +got):\n%s", wc.method, wc.path, d)
			}
		})
	}
}

// TestWriteConfirmationLegacy: on a 2025-11-25 session the confirmation is a
// server-to-client elicitation/create request; accepting writes, declining does not.
func TestWriteConfirmationLegacy(t *testing.T) {
	f := newFake(t)
	s := newServer(t, f, BackendConfig{}, Config{AllowWrites: true})
	for _, tc := range []struct {
		action  string
		writes  int
		isError bool
	}{{"accept", 1, false}, {"decline", 0, true}} {
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
				line, _, _ := strings.Cut(p.Message, "\n")
				asked = append(asked, method+": "+line)
				return map[string]any{"action": tc.action, "content": map[string]any{"confirm": true}}, nil
			},
		})
		before := f.writes()
		res := c.CallTool("create_issue", validArgs["create_issue"])
		if res.IsError != tc.isError {
			t.Errorf("%s: isError=%v (%s)", tc.action, res.IsError, res.Text())
		}
		if n := f.writes() - before; n != tc.writes {
			t.Errorf("%s: %d writes; want %d", tc.action, n, tc.writes)
		}
		if d := cmp.Diff([]string{"elicitation/create: Create an issue in octo/hello on " + f.host()}, asked); d != "" {
			t.Errorf("%s: server requests (-want +got):\n%s", tc.action, d)
		}
	}
}

// TestWriteNeedsElicitation: a client that cannot elicit gets the protocol's
// missing-capability error, and nothing is written.
func TestWriteNeedsElicitation(t *testing.T) {
	f := newFake(t)
	c := mcpkittest.Connect(t, newServer(t, f, BackendConfig{}, Config{AllowWrites: true}), "2026-07-28", nil)
	res := c.Request("tools/call", map[string]any{"name": "create_issue", "arguments": validArgs["create_issue"]})
	if res.Error == nil || res.Error.Code != -32021 || !strings.Contains(res.Error.Message, "nothing was changed") {
		t.Errorf("create_issue from a client without elicitation: %s; want error -32021 saying nothing was changed", res.Raw)
	}
	if f.writes() != 0 {
		t.Errorf("%d writes reached GitHub", f.writes())
	}
}

// TestWriteNoConfirm: with NoConfirm (--no-confirm) a write runs at once, also for a
// client without elicitation, and the descriptions say so.
func TestWriteNoConfirm(t *testing.T) {
	f := newFake(t)
	c := mcpkittest.Connect(t, newServer(t, f, BackendConfig{}, Config{AllowWrites: true, NoConfirm: true}), "2026-07-28", nil)
	res := c.CallTool("create_issue", validArgs["create_issue"])
	if res.IsError || res.ResultType != "complete" || f.writes() != 1 {
		t.Fatalf("create_issue with NoConfirm: %s %s, %d writes; want it written at once", res.ResultType, res.Text(), f.writes())
	}
	var list struct {
		Tools []struct{ Name, Description string }
	}
	if err := json.Unmarshal(c.Call("tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	said := 0
	for _, tl := range list.Tools {
		if strings.Contains(tl.Description, "The user confirms first") {
			t.Errorf("%s's description with NoConfirm: %q", tl.Name, tl.Description)
		}
		if strings.Contains(tl.Description, "Runs without asking the user") {
			said++
		}
	}
	if said != len(writeToolNames) {
		t.Errorf("%d of the %d write tools' descriptions say they run without asking the user", said, len(writeToolNames))
	}
}
