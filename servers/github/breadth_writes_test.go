package github

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// breadthWriteCases are issue 29's writes: arguments, the confirmation's first line,
// the request GitHub must receive (the last write of the call) and its body, and what
// the result says.
func breadthWriteCases(host string) []struct {
	tool         string
	args         map[string]any
	confirm      string
	method, path string
	body         map[string]any
	result       string
} {
	return []struct {
		tool         string
		args         map[string]any
		confirm      string
		method, path string
		body         map[string]any
		result       string
	}{
		{"update_issue", map[string]any{"owner": "octo", "repo": "hello", "number": 7, "state": "closed", "stateReason": "completed"},
			"Update issue octo/hello#7 on " + host, "PATCH", "/api/v3/repos/octo/hello/issues/7",
			map[string]any{"state": "closed", "state_reason": "completed"}, `"state":"closed"`},
		{"edit_labels", map[string]any{"owner": "octo", "repo": "hello", "number": 7, "add": []string{"payments"}},
			"Change the labels of octo/hello#7 on " + host, "POST", "/api/v3/repos/octo/hello/issues/7/labels",
			nil, `"labels":["bug","payments"]`},
		{"reply_to_review_comment", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "commentId": 1001, "body": "Fixed in 7b2e4f6."},
			"Reply to review comment 1001 on octo/hello#4 on " + host, "POST", "/api/v3/repos/octo/hello/pulls/4/comments",
			map[string]any{"body": "Fixed in 7b2e4f6.", "in_reply_to": float64(1001)}, `"id":2001`},
		{"resolve_review_thread", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "threadId": "PRRT_kwDOA1"},
			"Resolve review thread PRRT_kwDOA1 on octo/hello#4 on " + host, "POST", "/api/graphql",
			nil, `"resolved":true`},
		{"submit_review", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "event": "APPROVE"},
			"Submit a review (APPROVE) of octo/hello#4 on " + host, "POST", "/api/v3/repos/octo/hello/pulls/4/reviews",
			map[string]any{"event": "APPROVE"}, `"state":"APPROVED"`},
		{"mark_notifications_read", map[string]any{"owner": "octo", "repo": "hello"},
			"Mark your notifications of octo/hello read on " + host, "PUT", "/api/v3/repos/octo/hello/notifications",
			nil, `"scope":"octo/hello"`},
	}
}

// TestBreadthWrites: each new write exists only with --allow-writes and its toolset,
// asks first (nothing reaches GitHub before the answer), writes once when accepted,
// and refuses a repository outside the allow-list before asking.
func TestBreadthWrites(t *testing.T) {
	f := newFake(t)
	ro := names(newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}).Tools())
	c := connect(t, newServer(t, f, BackendConfig{Repos: mustAllow(t, "octo/hello")}, Config{Selection: allToolsets(t), AllowWrites: true}), "2026-07-28")
	accept := map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}
	for _, wc := range breadthWriteCases(f.host()) {
		t.Run(wc.tool, func(t *testing.T) {
			if slices.Contains(ro, wc.tool) {
				t.Errorf("%s is listed without --allow-writes", wc.tool)
			}
			before := f.writes()
			first := c.CallTool(wc.tool, wc.args)
			if first.ResultType != "input_required" {
				t.Fatalf("first call: %s %s; want input_required", first.ResultType, first.Text())
			}
			var p struct {
				Message string `json:"message"`
			}
			json.Unmarshal(first.InputRequests["confirm"].Params, &p)
			if line, _, _ := strings.Cut(p.Message, "\n"); line != wc.confirm {
				t.Errorf("confirmation starts %q; want %q", line, wc.confirm)
			}
			if n := f.writes() - before; n != 0 {
				t.Errorf("%d writes before the user answered", n)
			}
			res := c.RetryTool(wc.tool, wc.args, first.RequestState, accept)
			if res.IsError || !strings.Contains(res.Text(), wc.result) {
				t.Fatalf("accepted: isError=%v %s; want %s", res.IsError, res.Text(), wc.result)
			}
			if wc.body != nil {
				if d := cmp.Diff(wc.body, f.lastBody(t, wc.method, wc.path)); d != "" {
					t.Errorf("%s %s body (-want +got):\n%s", wc.method, wc.path, d)
				}
			} else if f.count(wc.method, wc.path) == 0 {
				t.Errorf("no %s %s reached GitHub", wc.method, wc.path)
			}
			secret := withRepo(wc.args, "secret")
			if res := c.CallTool(wc.tool, secret); !res.IsError || res.ResultType == "input_required" || !strings.Contains(res.Text(), "not in this server's allow-list") {
				t.Errorf("on octo/secret: %s %s; want refused before asking", res.ResultType, res.Text())
			}
		})
	}
	for _, r := range f.requests() {
		if strings.Contains(r.Path, "/octo/secret") {
			t.Errorf("a request for octo/secret reached GitHub: %s %s", r.Method, r.Path)
		}
	}

	// A thread of another pull request is refused after reading it, before any mutation.
	f.override("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"data": map[string]any{"node": map[string]any{"pullRequest": map[string]any{"number": 9, "repository": map[string]any{"nameWithOwner": "octo/secret"}}}}})
	})
	args := map[string]any{"owner": "octo", "repo": "hello", "number": 4, "threadId": "PRRT_other"}
	first := c.CallTool("resolve_review_thread", args)
	before := f.count("POST", "/api/graphql")
	res := c.RetryTool("resolve_review_thread", args, first.RequestState, accept)
	if !res.IsError || !strings.Contains(res.Text(), "not a review thread of octo/hello#4; nothing was changed") || f.count("POST", "/api/graphql")-before != 1 {
		t.Errorf("a foreign thread: %s after %d GraphQL requests; want refused after the one read", res.Text(), f.count("POST", "/api/graphql")-before)
	}
	if res := c.CallTool("mark_notifications_read", map[string]any{}); !res.IsError || res.ResultType == "input_required" || !strings.Contains(res.Text(), "outside this server's allow-list") {
		t.Errorf("marking all read on a confined server: %s %s", res.ResultType, res.Text())
	}
	if res := c.CallTool("submit_review", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "event": "REQUEST_CHANGES"}); !res.IsError || !strings.Contains(res.Text(), "needs the review text") {
		t.Errorf("REQUEST_CHANGES without a body: %s", res.Text())
	}
}
