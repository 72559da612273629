package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// The issue 29 tools, by toolset, in tools/list order; all are off by default.
var newTools = map[string][]string{
	"repos":               {"compare_commits", "get_release", "get_tag", "search_commits"},
	"git":                 {"get_repository_tree", "get_blame"},
	"pull_requests":       {"list_pull_request_commits", "get_review_threads", "get_check_status"},
	"actions":             {"list_workflows", "list_run_jobs", "list_artifacts"},
	"code_security":       {"list_code_scanning_alerts"},
	"dependabot":          {"list_dependabot_alerts"},
	"secret_protection":   {"list_secret_scanning_alerts"},
	"security_advisories": {"list_security_advisories"},
	"issues":              {"get_sub_issues"},
	"labels":              {"list_labels", "list_milestones"},
	"notifications":       {"list_notifications"},
	"discussions":         {"list_discussions", "get_discussion"},
	"context":             {"get_me", "get_teams"},
	"users":               {"search_users"},
	"gists":               {"get_gists"},
	"deployments":         {"list_deployments", "list_environments"},
}

// breadthOperations are the Backend methods behind them that name a repository (the
// allow-list test finds them by reflection and checks each refuses an outsider).
var breadthOperations = []string{"CompareCommits", "GetBlame", "GetCheckStatus", "GetRelease", "GetRepositoryTree", "GetReviewThreads", "GetTag",
	"ListArtifacts", "ListCodeScanningAlerts", "ListDependabotAlerts", "ListDeployments", "ListEnvironments", "ListSecretScanningAlerts", "ListSecurityAdvisories",
	"GetSubIssues", "ListDiscussions", "GetDiscussion", "ListLabels", "ListMilestones", "ListNotifications",
	"DescribeEditLabels", "DescribeMarkRead", "DescribeReply", "DescribeResolveThread", "DescribeSubmitReview", "DescribeUpdateIssue",
	"EditLabels", "MarkRead", "Reply", "ResolveThread", "SubmitReview", "UpdateIssue", "ListPullRequestCommits", "ListRunJobs", "ListWorkflows"}

var breadthArgs = map[string]map[string]any{
	"compare_commits":             {"owner": "octo", "repo": "hello", "base": "v1.3.2", "head": "v1.4.0"},
	"get_release":                 {"owner": "octo", "repo": "hello"},
	"get_tag":                     {"owner": "octo", "repo": "hello", "tag": "v1.4.0"},
	"search_commits":              {"query": "EUR"},
	"get_repository_tree":         {"owner": "octo", "repo": "hello", "ref": "main"},
	"get_blame":                   {"owner": "octo", "repo": "hello", "path": "shop/checkout/storefront.go", "ref": "v1.4.0"},
	"list_deployments":            {"owner": "octo", "repo": "hello"},
	"list_pull_request_commits":   {"owner": "octo", "repo": "hello", "number": 4},
	"get_review_threads":          {"owner": "octo", "repo": "hello", "number": 4},
	"get_check_status":            {"owner": "octo", "repo": "hello", "ref": "e5bd3914e2e596debea16f433f57875b5b90bcd6"},
	"list_workflows":              {"owner": "octo", "repo": "hello"},
	"list_run_jobs":               {"owner": "octo", "repo": "hello", "runId": 100},
	"list_artifacts":              {"owner": "octo", "repo": "hello"},
	"list_environments":           {"owner": "octo", "repo": "hello"},
	"list_code_scanning_alerts":   {"owner": "octo", "repo": "hello"},
	"list_dependabot_alerts":      {"owner": "octo", "repo": "hello"},
	"list_secret_scanning_alerts": {"owner": "octo", "repo": "hello"},
	"list_security_advisories":    {"owner": "octo", "repo": "hello"},
	"get_sub_issues":              {"owner": "octo", "repo": "hello", "number": 7},
	"list_labels":                 {"owner": "octo", "repo": "hello"},
	"list_milestones":             {"owner": "octo", "repo": "hello"},
	"list_notifications":          {},
	"list_discussions":            {"owner": "octo", "repo": "hello"},
	"get_discussion":              {"owner": "octo", "repo": "hello", "number": 31},
	"get_me":                      {},
	"get_teams":                   {},
	"search_users":                {"query": "octo"},
	"get_gists":                   {"id": "aa5a315d61ae9438b18d"},
}

var breadthCases = []toolCase{
	caseFor("compare_commits", (*Backend).CompareCommits, "storefront: offer EUR"),
	caseFor("get_release", (*Backend).GetRelease, `"tagName":"v1.4.0"`),
	caseFor("get_tag", (*Backend).GetTag, `"annotated":true`),
	caseFor("search_commits", (*Backend).SearchCommits, `"repository":"octo/hello"`),
	caseFor("get_repository_tree", (*Backend).GetRepositoryTree, `"path":"shop/checkout/rates.go"`),
	caseFor("get_blame", (*Backend).GetBlame, `"sha":"e4c0ffee5a1b2c3d4e5f60718293a4b5c6d7e8f9"`),
	caseFor("get_sub_issues", (*Backend).GetSubIssues, `"title":"Add the EUR rate"`),
	caseFor("list_pull_request_commits", (*Backend).ListPullRequestCommits, "Fix crash on empty input"),
	caseFor("get_review_threads", (*Backend).GetReviewThreads, `"resolvedBy":"octocat"`),
	caseFor("get_check_status", (*Backend).GetCheckStatus, `"verdict":"failure"`),
	caseFor("list_workflows", (*Backend).ListWorkflows, `"path":".github/workflows/ci.yml"`),
	caseFor("list_run_jobs", (*Backend).ListRunJobs, `"name":"test (ubuntu)"`),
	caseFor("list_artifacts", (*Backend).ListArtifacts, `"name":"coverage"`),
	caseFor("list_deployments", (*Backend).ListDeployments, `"environment":"production"`),
	caseFor("list_environments", (*Backend).ListEnvironments, `"protection":["wait_timer (30)","required_reviewers","branch_policy"]`),
	caseFor("list_code_scanning_alerts", (*Backend).ListCodeScanningAlerts, `"location":"shop/web/web.go:88"`),
	caseFor("list_dependabot_alerts", (*Backend).ListDependabotAlerts, `"fixedIn":"0.17.0"`),
	caseFor("list_secret_scanning_alerts", (*Backend).ListSecretScanningAlerts, `"title":"Stripe API Key"`),
	caseFor("list_security_advisories", (*Backend).ListSecurityAdvisories, `"id":"GHSA-abcd-1234-efgh"`),
	caseFor("list_labels", (*Backend).ListLabels, `"name":"payments"`),
	caseFor("list_milestones", (*Backend).ListMilestones, `"title":"v1.5.0"`),
	caseFor("list_notifications", (*Backend).ListNotifications, `"reason":"mention"`),
	caseFor("list_discussions", (*Backend).ListDiscussions, `"category":"Q&A"`),
	caseFor("get_discussion", (*Backend).GetDiscussion, "After the EUR rates fix, yes."),
	caseFor("get_me", (*Backend).GetMe, `"login":"octocat"`),
	caseFor("get_teams", (*Backend).GetTeams, `"slug":"payments"`),
	caseFor("search_users", (*Backend).SearchUsers, `"login":"mona"`),
	caseFor("get_gists", (*Backend).GetGists, "curl -s https://rates.example.com/EUR"),
}

// errorRoute is where each tool's first request lands on the fake, for the error tests.
var errorRoute = map[string][]string{
	"compare_commits":           {"GET /api/v3/repos/octo/hello/compare/v1.3.2...v1.4.0"},
	"get_release":               {"GET /api/v3/repos/octo/hello/releases/latest"},
	"get_tag":                   {"GET /api/v3/repos/octo/hello/git/ref/tags/v1.4.0"},
	"search_commits":            {"GET /api/v3/search/commits"},
	"get_repository_tree":       {"GET /api/v3/repos/octo/hello/git/trees/main"},
	"get_blame":                 {"POST /api/graphql"},
	"list_pull_request_commits": {"GET /api/v3/repos/octo/hello/pulls/4/commits"},
	"get_review_threads":        {"POST /api/graphql"},
	"get_check_status": {"GET /api/v3/repos/octo/hello/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/status",
		"GET /api/v3/repos/octo/hello/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/check-runs"},
	"list_workflows":              {"GET /api/v3/repos/octo/hello/actions/workflows"},
	"list_run_jobs":               {"GET /api/v3/repos/octo/hello/actions/runs/100/jobs"},
	"list_artifacts":              {"GET /api/v3/repos/octo/hello/actions/artifacts"},
	"list_deployments":            {"GET /api/v3/repos/octo/hello/deployments"},
	"list_environments":           {"GET /api/v3/repos/octo/hello/environments"},
	"list_code_scanning_alerts":   {"GET /api/v3/repos/octo/hello/code-scanning/alerts"},
	"list_dependabot_alerts":      {"GET /api/v3/repos/octo/hello/dependabot/alerts"},
	"list_secret_scanning_alerts": {"GET /api/v3/repos/octo/hello/secret-scanning/alerts"},
	"list_security_advisories":    {"GET /api/v3/repos/octo/hello/security-advisories"},
	"get_sub_issues":              {"GET /api/v3/repos/octo/hello/issues/7/sub_issues"},
	"list_labels":                 {"GET /api/v3/repos/octo/hello/labels"},
	"list_milestones":             {"GET /api/v3/repos/octo/hello/milestones"},
	"list_notifications":          {"GET /api/v3/notifications"},
	"list_discussions":            {"POST /api/graphql"},
	"get_discussion":              {"POST /api/graphql"},
	"get_me":                      {"GET /api/v3/user"},
	"get_teams":                   {"GET /api/v3/user/teams"},
	"search_users":                {"GET /api/v3/search/users"},
	"get_gists":                   {"GET /api/v3/gists/aa5a315d61ae9438b18d"},
}

func allToolsets(t *testing.T) Selection {
	t.Helper()
	sel, err := ParseSelection("all", "")
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func allBreadthTools() []string {
	var out []string
	for _, ts := range Toolsets {
		out = append(out, newTools[ts]...)
	}
	return out
}

// TestBreadthReadTools calls every issue 29 tool through an MCP client of each
// revision against the fake GitHub Enterprise host (REST under /api/v3/, GraphQL at
// /api/graphql), and compares the result with the backend's own answer.
func TestBreadthReadTools(t *testing.T) {
	var covered []string
	for _, c := range breadthCases {
		covered = append(covered, c.name)
	}
	if d := cmp.Diff(allBreadthTools(), covered); d != "" {
		t.Fatalf("breadthCases do not cover every new tool (-want +got):\n%s", d)
	}
	f := newFake(t)
	s := newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)})
	direct := f.backend(BackendConfig{Logger: quiet})
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		c := connect(t, s, rev)
		for _, tc := range breadthCases {
			t.Run(rev+"/"+tc.name, func(t *testing.T) {
				res := c.CallTool(tc.name, breadthArgs[tc.name])
				if res.IsError {
					t.Fatalf("isError: %s", res.Text())
				}
				if res.Text() != string(res.StructuredContent) || !strings.Contains(res.Text(), tc.wantText) {
					t.Errorf("result lacks %q or text differs from structuredContent: %s", tc.wantText, res.Text())
				}
				got, err := tc.decode(res.StructuredContent)
				if err != nil {
					t.Fatalf("decoding structuredContent: %v\n%s", err, res.StructuredContent)
				}
				want, err := tc.direct(context.Background(), direct, breadthArgs[tc.name])
				if err != nil {
					t.Fatalf("backend: %v", err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("MCP result differs from the backend's (-backend +mcp):\n%s", d)
				}
			})
		}
	}
	for _, r := range f.requests() {
		if !strings.HasPrefix(r.Path, "/api/v3/") && r.Path != "/api/graphql" {
			t.Errorf("request %s %s is outside the Enterprise API roots", r.Method, r.Path)
		}
		if r.Path == "/api/graphql" && (r.Method != "POST" || r.Auth != "Bearer "+testToken) {
			t.Errorf("GraphQL request %s with Authorization %q; want a POST with the token", r.Method, r.Auth)
		}
	}
}

// TestBreadthDefaultsUnchanged: the new tools are off by default and with --toolsets
// default, on with all, with their toolset named, or by name; --exclude-tools wins.
func TestBreadthDefaultsUnchanged(t *testing.T) {
	f := newFake(t)
	for _, tc := range []struct {
		toolsets, tools, exclude string
		want                     []string
	}{
		{"", "", "", readTools},
		{"default", "", "", readTools},
		{"git", "", "", newTools["git"]},
		{"deployments", "get_issue", "", []string{"get_issue", "list_deployments", "list_environments"}},
		{"repos", "", "", append(slices.Clone(readTools[:8]), newTools["repos"]...)},
		{"default,git", "", "get_blame,search_code", slices.Concat(slices.DeleteFunc(slices.Clone(readTools), func(n string) bool { return n == "search_code" }), []string{"get_repository_tree"})},
		{"", "get_blame", "", []string{"get_blame"}},
	} {
		sel, err := ParseSelection(tc.toolsets, tc.tools)
		if err == nil {
			sel.Exclude, err = ParseExclude(tc.exclude)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := names(newServer(t, f, BackendConfig{}, Config{Selection: sel}).Tools())
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("--toolsets %q --tools %q --exclude-tools %q (-want +got):\n%s", tc.toolsets, tc.tools, tc.exclude, d)
		}
	}
	all := names(newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}).Tools())
	for _, n := range allBreadthTools() {
		if !slices.Contains(all, n) {
			t.Errorf("--toolsets all lacks %s", n)
		}
	}
	if _, err := ParseExclude("get_blame,get_blam"); err == nil || !strings.Contains(err.Error(), `unknown tool "get_blam"`) {
		t.Errorf("ParseExclude of a typo: %v", err)
	}
}

// TestBreadthErrors: every new tool turns GitHub's 404, 403 (permission), 403 (rate
// limit, reported with its reset time) and 422 into an isError result that says what
// failed and what to do, with the token nowhere in it.
func TestBreadthErrors(t *testing.T) {
	reset := time.Now().Add(time.Hour).Unix()
	for _, tc := range []struct {
		name   string
		status int
		header map[string]string
		body   map[string]any
		want   string
	}{
		{"404", 404, nil, map[string]any{"message": "Not Found"}, "not found (404) on GitHub"},
		{"403", 403, nil, map[string]any{"message": "Resource not accessible by integration"}, "forbidden (403 Resource not accessible by integration) by GitHub; the token lacks a permission"},
		{"403 rate limit", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset, 10)}, map[string]any{"message": "API rate limit exceeded"}, "is exhausted; it resets at " + time.Unix(reset, 0).UTC().Format(time.RFC3339)},
		{"422", 422, nil, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"message": "No commit found for SHA: v9"}}}, "GitHub refused the input (422 Validation Failed; No commit found for SHA: v9)"},
	} {
		for _, tool := range allBreadthTools() {
			t.Run(tc.name+"/"+tool, func(t *testing.T) {
				f := newFake(t)
				for _, route := range errorRoute[tool] {
					f.override(route, func(w http.ResponseWriter, r *http.Request) {
						for k, v := range tc.header {
							w.Header().Set(k, v)
						}
						writeJSON(w, tc.status, tc.body)
					})
				}
				c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
				res := c.CallTool(tool, breadthArgs[tool])
				if !res.IsError || !strings.Contains(res.Text(), tc.want) || strings.Contains(res.Text(), testToken) {
					t.Errorf("isError=%v %q; want it to contain %q", res.IsError, res.Text(), tc.want)
				}
			})
		}
	}
}

// TestGraphQLErrors: GitHub answers GraphQL failures with 200 and an errors list;
// each becomes the message the same REST failure gets, and a GraphQL rate limit stops
// further GraphQL requests until its reset (REST goes on).
func TestGraphQLErrors(t *testing.T) {
	reset := time.Now().Add(time.Hour).Unix()
	for _, tc := range []struct{ typ, want string }{
		{"NOT_FOUND", "not found on GitHub (Could not resolve to a Repository"},
		{"FORBIDDEN", "forbidden by GitHub (Resource not accessible"},
		{"RATE_LIMITED", "GitHub rate limit of 5000 requests per hour for \"graphql\" requests is exhausted; it resets at " + time.Unix(reset, 0).UTC().Format(time.RFC3339)},
		{"", "GitHub refused the query (Field 'blame' doesn't exist"},
	} {
		f := newFake(t)
		msg := map[string]string{"NOT_FOUND": "Could not resolve to a Repository with the name 'octo/hello'.", "FORBIDDEN": "Resource not accessible by integration",
			"RATE_LIMITED": "API rate limit exceeded", "": "Field 'blame' doesn't exist on type 'Commit'"}[tc.typ]
		f.override("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
			if tc.typ == "RATE_LIMITED" {
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
			}
			writeJSON(w, 200, map[string]any{"data": nil, "errors": []map[string]any{{"type": tc.typ, "message": msg}}})
		})
		c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
		res := c.CallTool("get_blame", breadthArgs["get_blame"])
		if !res.IsError || !strings.Contains(res.Text(), tc.want) || !strings.HasPrefix(res.Text(), "blame shop/checkout/storefront.go at v1.4.0 in octo/hello: ") {
			t.Errorf("%s: isError=%v %q; want it to contain %q", tc.typ, res.IsError, res.Text(), tc.want)
		}
		if tc.typ == "RATE_LIMITED" {
			before := f.count("POST", "/api/graphql")
			again := c.CallTool("get_blame", breadthArgs["get_blame"])
			if !again.IsError || f.count("POST", "/api/graphql") != before {
				t.Errorf("after a GraphQL rate limit: %q and %d more requests; want a local refusal", again.Text(), f.count("POST", "/api/graphql")-before)
			}
			if rest := c.CallTool("get_tag", breadthArgs["get_tag"]); rest.IsError {
				t.Errorf("a GraphQL rate limit stopped a REST call: %s", rest.Text())
			}
		}
	}
}

// TestGraphQLRetriesAndEndpoints: a query answered 502 is retried (it is a read sent
// as POST) with the same body; the GraphQL URL of each kind of host.
func TestGraphQLRetriesAndEndpoints(t *testing.T) {
	f := newFake(t)
	fail := true
	blame := f.graphQL
	f.override("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		if fail {
			fail = false
			writeJSON(w, 502, map[string]string{"message": "Server Error"})
			return
		}
		blame(w, r)
	})
	c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
	if res := c.CallTool("get_blame", breadthArgs["get_blame"]); res.IsError {
		t.Fatalf("get_blame after one 502: %s", res.Text())
	}
	vars := f.graphQLRequests()
	if len(vars) != 2 || !cmp.Equal(vars[0], vars[1]) || vars[0]["path"] != "shop/checkout/storefront.go" || vars[0]["expr"] != "v1.4.0" {
		t.Errorf("GraphQL requests: %v; want the same query twice", vars)
	}
	for host, want := range map[string]string{
		"":                           "https://api.github.com/graphql",
		"github.example.com":         "https://github.example.com/api/graphql",
		"https://github.example.com": "https://github.example.com/api/graphql",
		"acme.ghe.com":               "https://api.acme.ghe.com/graphql",
	} {
		ep, err := ParseHost(host)
		if err != nil {
			t.Fatal(err)
		}
		if got := graphQLURL(ep); got != want {
			t.Errorf("graphQLURL(%q) = %q; want %q", host, got, want)
		}
	}
}

// TestBreadthAllowList: with --repos octo/hello every new tool refuses octo/secret
// before any request (REST or GraphQL) is sent, and a commit search result planted in
// octo/secret reaches the model neither by name nor by content.
func TestBreadthAllowList(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Repos: mustAllow(t, "octo/hello")}, Config{Selection: allToolsets(t)}), "2026-07-28")
	const why = "repository octo/secret is not in this server's allow-list (--repos octo/hello); only those repositories can be read or written"
	for _, name := range allBreadthTools() {
		args := breadthArgs[name]
		if _, ok := args["repo"]; !ok {
			continue
		}
		if res := c.CallTool(name, withRepo(args, "secret")); !res.IsError || res.Text() != why {
			t.Errorf("%s on octo/secret: isError=%v %q; want %q", name, res.IsError, res.Text(), why)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("refused calls sent %d requests to GitHub", n)
	}
	res := c.CallTool("search_commits", breadthArgs["search_commits"])
	m := structured(t, res)
	if m["hiddenByAllowList"] != float64(1) || len(m["items"].([]any)) != 1 {
		t.Errorf("search_commits: hiddenByAllowList=%v items=%v; want the octo/secret commit hidden and counted", m["hiddenByAllowList"], m["items"])
	}
	for _, planted := range []string{"secret", "rotate the EUR payment key", "5ec2e7"} {
		if strings.Contains(res.Text(), planted) {
			t.Errorf("search_commits shows %q from octo/secret: %s", planted, res.Text())
		}
	}
}

// TestBreadthPagination: compare pages its commits (files on the first page only);
// deployments page, with a smaller cap because each costs a status request.
func TestBreadthPagination(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
	args := func(base map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	p1 := structured(t, c.CallTool("compare_commits", args(breadthArgs["compare_commits"], "perPage", 2)))
	if len(p1["commits"].([]any)) != 2 || len(p1["files"].([]any)) != 3 || p1["nextPage"] != float64(2) || p1["hint"] != "more commits: call again with page=2" {
		t.Errorf("compare page 1: %v", p1)
	}
	p2 := structured(t, c.CallTool("compare_commits", args(breadthArgs["compare_commits"], "perPage", 2, "page", 2)))
	if len(p2["commits"].([]any)) != 1 || p2["files"] != nil || p2["nextPage"] != nil || p2["truncated"] != nil {
		t.Errorf("compare page 2: %v", p2)
	}
	d1 := structured(t, c.CallTool("list_deployments", args(breadthArgs["list_deployments"], "perPage", 2)))
	if len(d1["deployments"].([]any)) != 2 || d1["nextPage"] != float64(2) {
		t.Errorf("deployments page 1: %v", d1)
	}
	if res := c.CallTool("list_deployments", args(breadthArgs["list_deployments"], "perPage", 31)); !res.IsError {
		t.Errorf("list_deployments perPage=31: %s; want a refusal naming the cap of 30", res.Text())
	}
	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"compare_commits", args(breadthArgs["compare_commits"], "base", "v1..v2"), `base "v1..v2" is not a valid git ref`},
		{"get_blame", args(breadthArgs["get_blame"], "startLine", 9, "endLine", 3), "endLine 3 is before startLine 9"},
		{"get_blame", args(breadthArgs["get_blame"], "path", "../etc/passwd"), `".." segment`},
		{"get_repository_tree", args(breadthArgs["get_repository_tree"], "path", "a//b"), "empty segment"},
	} {
		if res := c.CallTool(bad.tool, bad.args); !res.IsError || !strings.Contains(res.Text(), bad.want) {
			t.Errorf("%s %v: isError=%v %q; want %q", bad.tool, bad.args, res.IsError, res.Text(), bad.want)
		}
	}
}

// TestBreadthTruncation: a compare patch over the cap is cut and named in patchesCut
// (and comes whole when path narrows to it); a tree of 1,500 entries is cut at 1,000
// with a hint to narrow by path, and a path narrows it; blame covers a window of
// lines and says how to get the next.
func TestBreadthTruncation(t *testing.T) {
	f := newFake(t)
	var cmpDoc map[string]any
	json.Unmarshal(loadFixture(t, "compare_v1.3.2_v1.4.0.json"), &cmpDoc)
	files := cmpDoc["files"].([]any)
	files[0].(map[string]any)["patch"] = "@@ -1,1 +1,600 @@\n" + strings.Repeat("+a line of the big change\n", 600)
	big, _ := json.Marshal(cmpDoc)
	f.override("GET /api/v3/repos/octo/hello/compare/v1.3.2...v1.4.0", func(w http.ResponseWriter, r *http.Request) {
		serveWithETag(w, r, "application/json", big)
	})
	var tree strings.Builder
	tree.WriteString(`{"sha":"t1","truncated":false,"tree":[`)
	for i := range 1500 {
		if i > 0 {
			tree.WriteString(",")
		}
		fmt.Fprintf(&tree, `{"path":"d%d/f%d.go","type":"blob","size":10,"sha":"%040x"}`, i%3, i, i)
	}
	tree.WriteString("]}")
	f.override("GET /api/v3/repos/octo/hello/git/trees/big", func(w http.ResponseWriter, r *http.Request) {
		serveWithETag(w, r, "application/json", []byte(tree.String()))
	})
	c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")

	m := structured(t, c.CallTool("compare_commits", breadthArgs["compare_commits"]))
	if d := cmp.Diff([]any{"shop/web/web.go"}, m["patchesCut"]); d != "" || m["truncated"] != true || !strings.Contains(m["hint"].(string), "call again with path set to one of them") {
		t.Errorf("compare with a big patch: patchesCut %v truncated=%v hint=%q", m["patchesCut"], m["truncated"], m["hint"])
	}
	one := structured(t, c.CallTool("compare_commits", map[string]any{"owner": "octo", "repo": "hello", "base": "v1.3.2", "head": "v1.4.0", "path": "shop/web/web.go"}))
	if fs := one["files"].([]any); len(fs) != 1 || fs[0].(map[string]any)["patchCut"] != nil || one["truncated"] != nil {
		t.Errorf("compare narrowed to the big file: %v", one)
	}

	whole := structured(t, c.CallTool("get_repository_tree", map[string]any{"owner": "octo", "repo": "hello", "ref": "big"}))
	if len(whole["entries"].([]any)) != maxTreeEntries || whole["total"] != float64(1500) || whole["hint"] != "1000 of 1500 entries shown: call again with path set to a directory" {
		t.Errorf("big tree: %d entries, total %v, hint %q", len(whole["entries"].([]any)), whole["total"], whole["hint"])
	}
	dir := structured(t, c.CallTool("get_repository_tree", map[string]any{"owner": "octo", "repo": "hello", "ref": "big", "path": "d1"}))
	if dir["total"] != float64(500) || dir["truncated"] != nil {
		t.Errorf("tree under d1: total %v truncated %v; want 500 entries, whole", dir["total"], dir["truncated"])
	}
	top := structured(t, c.CallTool("get_repository_tree", map[string]any{"owner": "octo", "repo": "hello", "recursive": false, "path": "shop"}))
	var paths []string
	for _, e := range top["entries"].([]any) {
		paths = append(paths, e.(map[string]any)["path"].(string))
	}
	if d := cmp.Diff([]string{"shop/checkout", "shop/web"}, paths); d != "" {
		t.Errorf("tree of shop, not recursive (-want +got):\n%s", d)
	}

	b := structured(t, c.CallTool("get_blame", map[string]any{"owner": "octo", "repo": "hello", "path": "shop/checkout/storefront.go", "startLine": 5, "endLine": 8}))
	var runs []string
	for _, r := range b["ranges"].([]any) {
		r := r.(map[string]any)
		runs = append(runs, fmt.Sprintf("%v-%v %s", r["startLine"], r["endLine"], r["sha"].(string)[:7]))
	}
	if d := cmp.Diff([]string{"5-6 3f1a2b3", "7-7 e4c0ffe", "8-8 3f1a2b3"}, runs); d != "" || b["hint"] != "lines 5-8 of 10 shown: call again with startLine=9 for more" {
		t.Errorf("blame of lines 5-8 (-want +got):\n%s\nhint %q", d, b["hint"])
	}
	if res := c.CallTool("get_blame", map[string]any{"owner": "octo", "repo": "hello", "path": "shop/checkout/storefront.go", "startLine": 50}); !res.IsError || !strings.Contains(res.Text(), "past the end of shop/checkout/storefront.go, which has 10 lines") {
		t.Errorf("blame past the end: %s", res.Text())
	}
	if vars := f.graphQLRequests(); len(vars) == 0 || vars[0]["expr"] != "HEAD" {
		t.Errorf("blame without a ref asked for %v; want expression HEAD", vars)
	}
}

// TestBreadthScene is the demo scene's GitHub half: v1.4.0 went out with EUR in the
// storefront and no EUR rate; the first EUR checkout failed at 18:12. Compare
// v1.3.2...v1.4.0 finds the commit that added EUR to the storefront and left the rates
// table alone; blame of the failing line names that commit; the deployments show
// v1.4.0 live in production before the first failure.
func TestBreadthScene(t *testing.T) {
	firstFailure := time.Date(2026, 11, 30, 18, 12, 0, 0, time.UTC)
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Repos: mustAllow(t, "octo/hello")}, Config{Selection: Selection{Toolsets: []string{"repos", "git", "deployments"}}}), "2026-07-28")

	var cmpRes Comparison
	if err := json.Unmarshal(c.CallTool("compare_commits", breadthArgs["compare_commits"]).StructuredContent, &cmpRes); err != nil {
		t.Fatal(err)
	}
	var eur string
	for _, cm := range cmpRes.Commits {
		if strings.Contains(cm.Message, "EUR") {
			eur = cm.SHA
		}
	}
	var touched []string
	for _, fl := range cmpRes.Files {
		touched = append(touched, fl.Path)
		if fl.Path == "shop/checkout/storefront.go" && !strings.Contains(fl.Patch, `+var Currencies = []string{"USD", "GBP", "CAD", "EUR"}`) {
			t.Errorf("the storefront patch does not add EUR: %q", fl.Patch)
		}
	}
	if eur == "" || slices.Contains(touched, "shop/checkout/rates.go") || !slices.Contains(touched, "shop/checkout/storefront.go") {
		t.Fatalf("compare v1.3.2...v1.4.0: EUR commit %q, files %v; want the EUR commit, the storefront changed and the rates table not", eur, touched)
	}

	var bl Blame
	if err := json.Unmarshal(c.CallTool("get_blame", map[string]any{"owner": "octo", "repo": "hello", "path": "shop/checkout/storefront.go", "ref": "v1.4.0", "startLine": 7, "endLine": 7}).StructuredContent, &bl); err != nil {
		t.Fatal(err)
	}
	if len(bl.Ranges) != 1 || bl.Ranges[0].SHA != eur || bl.Ranges[0].Author != "hubot-dev" || bl.Ranges[0].Message != "storefront: offer EUR" {
		t.Errorf("blame of storefront.go:7 = %+v; want the EUR commit %s", bl.Ranges, eur)
	}

	var deps DeploymentList
	if err := json.Unmarshal(c.CallTool("list_deployments", map[string]any{"owner": "octo", "repo": "hello", "environment": "production"}).StructuredContent, &deps); err != nil {
		t.Fatal(err)
	}
	if q := f.requests(); !strings.Contains(q[len(q)-1].Query+q[len(q)-2].Query+q[len(q)-3].Query+q[len(q)-4].Query, "environment=production") {
		t.Errorf("list_deployments did not pass environment=production to GitHub")
	}
	var live *Deployment
	for i, d := range deps.Deployments {
		if d.Environment == "production" && d.Ref == "v1.4.0" && d.State == "success" {
			live = &deps.Deployments[i]
		}
	}
	if live == nil {
		t.Fatalf("no successful production deployment of v1.4.0 in %+v", deps.Deployments)
	}
	at, err := time.Parse(time.RFC3339, live.StateAt)
	if err != nil || !at.Before(firstFailure) || live.Creator != "deploy-bot" {
		t.Errorf("v1.4.0 live in production at %s by %s; want before the first failure at %s", live.StateAt, live.Creator, firstFailure)
	}
}

// TestToolsetGoldens snapshots tools/list per toolset (every tool of it, read-only),
// and all toolsets with writes, so a change to any tool shows in review.
func TestToolsetGoldens(t *testing.T) {
	f := newFake(t)
	for _, ts := range Toolsets {
		s := newServer(t, f, BackendConfig{}, Config{Selection: Selection{Toolsets: []string{ts}}})
		n := mcpkittest.ToolsGolden(t, connect(t, s, "2026-07-28"), "testdata/toolsets/"+ts+".golden.json")
		t.Logf("toolset %s: %d tools, tools/list %d bytes", ts, len(s.Tools()), n)
	}
	s := newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t), AllowWrites: true})
	n := mcpkittest.ToolsGolden(t, connect(t, s, "2026-07-28"), "testdata/toolsets/all_writes.golden.json")
	t.Logf("all toolsets with writes: %d tools, tools/list %d bytes", len(s.Tools()), n)
}

// TestHeaderNarrowing: over HTTP, X-MCP-Toolsets and X-MCP-Tools narrow what a
// request sees and may call; they never add a tool the command line left out.
func TestHeaderNarrowing(t *testing.T) {
	f := newFake(t)
	post := func(srv *httptest.Server, header map[string]string, method string, params map[string]any) json.RawMessage {
		t.Helper()
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if n, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", n)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var msg json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		return msg
	}
	list := func(srv *httptest.Server, header map[string]string) []string {
		var r struct {
			Result struct{ Tools []struct{ Name string } }
		}
		json.Unmarshal(post(srv, header, "tools/list", map[string]any{}), &r)
		var out []string
		for _, tl := range r.Result.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	all := httptest.NewServer(newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}).HTTPHandler(nil))
	defer all.Close()
	def := httptest.NewServer(newServer(t, f, BackendConfig{}, Config{}).HTTPHandler(nil))
	defer def.Close()
	for _, tc := range []struct {
		srv    *httptest.Server
		header map[string]string
		want   []string
	}{
		{all, map[string]string{HeaderToolsets: "git"}, newTools["git"]},
		{all, map[string]string{HeaderToolsets: "deployments", HeaderTools: "get_issue, get_blame"}, []string{"get_blame", "get_issue", "list_deployments", "list_environments"}},
		{all, map[string]string{HeaderToolsets: "default"}, readTools},
		{def, nil, readTools},
		{def, map[string]string{HeaderToolsets: "git,deployments"}, nil},
		{def, map[string]string{HeaderToolsets: "all"}, readTools},
		{def, map[string]string{HeaderTools: "get_blame,get_issue"}, []string{"get_issue"}},
	} {
		if d := cmp.Diff(tc.want, list(tc.srv, tc.header)); d != "" {
			t.Errorf("headers %v (-want +got):\n%s", tc.header, d)
		}
	}
	hidden := post(all, map[string]string{HeaderToolsets: "git"}, "tools/call", map[string]any{"name": "list_deployments", "arguments": breadthArgs["list_deployments"]})
	if !strings.Contains(string(hidden), `unknown tool \"list_deployments\"`) {
		t.Errorf("calling a tool the headers hide: %s", hidden)
	}
	if n := f.count("GET", "/api/v3/repos/octo/hello/deployments"); n != 0 {
		t.Errorf("a hidden tool reached GitHub %d times", n)
	}
}

// TestReviewThreadsAndChecks: review threads carry path, line, resolved and outdated
// state and comments, lockdown hides a stranger's comment (prompt injection's usual
// carrier), pages go on by cursor; check status gives one verdict for any ref and
// says what it could not read; a pull request's commits page.
func TestReviewThreadsAndChecks(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Lockdown: true}, Config{Selection: allToolsets(t)}), "2026-07-28")
	var th ReviewThreadList
	if err := json.Unmarshal(c.CallTool("get_review_threads", newArgs("get_review_threads")).StructuredContent, &th); err != nil {
		t.Fatal(err)
	}
	if th.Total != 2 || th.Unresolved != 1 || len(th.Threads) != 2 || th.Lockdown != 1 {
		t.Fatalf("threads: %+v", th)
	}
	open, done := th.Threads[0], th.Threads[1]
	if open.Path != "parse.go" || open.Line != 12 || open.Resolved || open.Outdated || !done.Resolved || !done.Outdated || done.ResolvedBy != "octocat" || done.OrigLine != 3 {
		t.Errorf("thread states: %+v / %+v", open, done)
	}
	if got := open.Comments[1]; !got.Hidden || strings.Contains(got.Body, "Ignore previous instructions") || open.Comments[0].Hidden {
		t.Errorf("under lockdown: comments %+v; want the stranger's hidden and the collaborator's shown", open.Comments)
	}

	// The next page is asked for with the cursor, which is checked before it is sent.
	f.override("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Variables map[string]any `json:"variables"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		next := req.Variables["after"] == nil
		writeJSON(w, 200, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": map[string]any{
			"totalCount": 31, "pageInfo": map[string]any{"hasNextPage": next, "endCursor": "Y3Vyc29yOnYyOpK0"}, "nodes": []any{}}}}}})
	})
	p1 := structured(t, c.CallTool("get_review_threads", newArgs("get_review_threads")))
	if p1["nextCursor"] != "Y3Vyc29yOnYyOpK0" || p1["hint"] != "more threads: call again with after=Y3Vyc29yOnYyOpK0" {
		t.Errorf("first page: %v", p1)
	}
	p2 := structured(t, c.CallTool("get_review_threads", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "after": "Y3Vyc29yOnYyOpK0"}))
	if p2["nextCursor"] != nil || p2["truncated"] != nil {
		t.Errorf("last page: %v", p2)
	}
	if res := c.CallTool("get_review_threads", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "after": "x\" } mutation {"}); !res.IsError || !strings.Contains(res.Text(), "is not a page cursor") {
		t.Errorf("a cursor that is not one: %s", res.Text())
	}

	var cs CheckStatus
	json.Unmarshal(c.CallTool("get_check_status", newArgs("get_check_status")).StructuredContent, &cs)
	if cs.Verdict != "failure" || cs.Failing < 1 || cs.Checks[0].Name != "ci/test" || cs.SHA != "e5bd3914e2e596debea16f433f57875b5b90bcd6" {
		t.Errorf("check status of a failing ref: %+v", cs)
	}
	for _, tc := range []struct {
		statuses, runs string
		verdict        string
		notes          int
	}{
		{`{"state":"success","sha":"abc","total_count":1,"statuses":[{"state":"success","context":"ci"}]}`, `{"total_count":1,"check_runs":[{"status":"completed","conclusion":"skipped","name":"lint"}]}`, "success", 0},
		{`{"state":"pending","sha":"abc","total_count":1,"statuses":[{"state":"pending","context":"ci"}]}`, `{"total_count":0,"check_runs":[]}`, "pending", 0},
		{`{"state":"pending","sha":"abc","total_count":0,"statuses":[]}`, `{"total_count":0,"check_runs":[]}`, "none", 0},
		{`{"state":"success","sha":"abc","total_count":1,"statuses":[{"state":"success","context":"ci"}]}`, ``, "success", 1},
	} {
		g := newFake(t)
		g.override("GET /api/v3/repos/octo/hello/commits/main/status", func(w http.ResponseWriter, r *http.Request) {
			serveWithETag(w, r, "application/json", []byte(tc.statuses))
		})
		g.override("GET /api/v3/repos/octo/hello/commits/main/check-runs", func(w http.ResponseWriter, r *http.Request) {
			if tc.runs == "" {
				writeJSON(w, 403, map[string]string{"message": "Resource not accessible by integration"})
				return
			}
			serveWithETag(w, r, "application/json", []byte(tc.runs))
		})
		gc := connect(t, newServer(t, g, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
		var got CheckStatus
		json.Unmarshal(gc.CallTool("get_check_status", map[string]any{"owner": "octo", "repo": "hello", "ref": "main"}).StructuredContent, &got)
		if got.Verdict != tc.verdict || len(got.Notes) != tc.notes {
			t.Errorf("statuses %s, runs %s: verdict %q notes %v; want %q with %d notes", tc.statuses, tc.runs, got.Verdict, got.Notes, tc.verdict, tc.notes)
		}
	}

	m := structured(t, c.CallTool("list_pull_request_commits", map[string]any{"owner": "octo", "repo": "hello", "number": 4, "perPage": 1}))
	if len(m["commits"].([]any)) != 1 || m["nextPage"] != float64(2) || m["hint"] != "more commits: call again with page=2" {
		t.Errorf("pull request commits, perPage 1: %v", m)
	}
}

// TestActionsExtras: a run's jobs with their failed steps, one job found by name;
// workflows and artifacts page; a run's artifacts.
func TestActionsExtras(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: Selection{Toolsets: []string{"actions"}}}), "2026-07-28")
	var jobs JobList
	json.Unmarshal(c.CallTool("list_run_jobs", map[string]any{"owner": "octo", "repo": "hello", "runId": 100, "name": "WINDOWS"}).StructuredContent, &jobs)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].ID != 43 || jobs.Jobs[0].Conclusion != "failure" || jobs.TotalCount != 3 {
		t.Errorf("job by name: %+v", jobs)
	}
	var all JobList
	json.Unmarshal(c.CallTool("list_run_jobs", newArgs("list_run_jobs")).StructuredContent, &all)
	if len(all.Jobs) != 3 || len(all.Jobs[1].FailedSteps) == 0 {
		t.Errorf("jobs of run 100: %+v", all)
	}
	w := structured(t, c.CallTool("list_workflows", map[string]any{"owner": "octo", "repo": "hello", "perPage": 2}))
	if len(w["workflows"].([]any)) != 2 || w["nextPage"] != float64(2) || w["totalCount"] != float64(3) {
		t.Errorf("workflows page 1: %v", w)
	}
	a := structured(t, c.CallTool("list_artifacts", map[string]any{"owner": "octo", "repo": "hello", "runId": 100, "name": "results"}))
	if arts := a["artifacts"].([]any); len(arts) != 1 || arts[0].(map[string]any)["id"] != float64(11) {
		t.Errorf("run 100's artifacts named results: %v", a)
	}
	if res := c.CallTool("list_run_jobs", map[string]any{"owner": "octo", "repo": "hello", "runId": 0}); !res.IsError {
		t.Errorf("list_run_jobs without a run: %s", res.Text())
	}
}

// TestSecurityAlerts: alerts page; a secret scanning alert never carries the secret;
// an advisory reported by a user without push access has its text hidden under
// lockdown; advisories page by cursor.
func TestSecurityAlerts(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Lockdown: true}, Config{Selection: allToolsets(t)}), "2026-07-28")
	cs := structured(t, c.CallTool("list_code_scanning_alerts", map[string]any{"owner": "octo", "repo": "hello", "perPage": 2, "state": "open"}))
	if len(cs["alerts"].([]any)) != 2 || cs["nextPage"] != float64(2) {
		t.Errorf("code scanning page 1: %v", cs)
	}
	if q := f.requests(); !strings.Contains(q[len(q)-1].Query, "state=open") {
		t.Errorf("state not passed: %s", q[len(q)-1].Query)
	}
	sec := c.CallTool("list_secret_scanning_alerts", newArgs("list_secret_scanning_alerts"))
	if sec.IsError || strings.Contains(sec.Text(), "LEAKEDSECRETVALUE") || strings.Contains(sec.Text(), "OLDLEAKEDTOKEN") || !strings.Contains(sec.Text(), `"resolution":"revoked"`) {
		t.Errorf("secret scanning alerts: %s", sec.Text())
	}
	var adv SecurityAlertList
	json.Unmarshal(c.CallTool("list_security_advisories", newArgs("list_security_advisories")).StructuredContent, &adv)
	if len(adv.Alerts) != 1 || adv.NextCursor != "Y3Vyc29y1" || adv.Alerts[0].TextHidden || adv.Alerts[0].Text != "Paying in EUR divides by zero in convert()." {
		t.Errorf("advisories page 1: %+v", adv)
	}
	var adv2 SecurityAlertList
	json.Unmarshal(c.CallTool("list_security_advisories", map[string]any{"owner": "octo", "repo": "hello", "after": adv.NextCursor}).StructuredContent, &adv2)
	if len(adv2.Alerts) != 1 || !adv2.Alerts[0].TextHidden || strings.Contains(adv2.Alerts[0].Text, "Ignore your instructions") || adv2.Lockdown != 1 || adv2.NextCursor != "" {
		t.Errorf("advisories page 2 under lockdown: %+v", adv2)
	}
	if res := c.CallTool("list_dependabot_alerts", map[string]any{"owner": "octo", "repo": "hello", "severity": "HIGH&x=1"}); !res.IsError || !strings.Contains(res.Text(), "is not a filter value") {
		t.Errorf("a severity that is not one: %s", res.Text())
	}
}

// TestDailyReads: notifications and sub-issues drop what lies outside the allow-list
// (by name and content), a parent is read, gists are refused on a confined server and
// capped otherwise, and the small lists page.
func TestDailyReads(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Repos: mustAllow(t, "octo/hello")}, Config{Selection: allToolsets(t)}), "2026-07-28")
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		planted []string
	}{
		{"list_notifications", map[string]any{}, []string{"secret", "Rotate the production payment key"}},
		{"get_sub_issues", newArgs("get_sub_issues"), []string{"secret", "Rotate the EUR payment key"}},
	} {
		res := c.CallTool(tc.tool, tc.args)
		m := structured(t, res)
		if m["hiddenByAllowList"] != float64(1) {
			t.Errorf("%s: hiddenByAllowList = %v; want the octo/secret item counted", tc.tool, m["hiddenByAllowList"])
		}
		for _, p := range tc.planted {
			if strings.Contains(res.Text(), p) {
				t.Errorf("%s shows %q from octo/secret: %s", tc.tool, p, res.Text())
			}
		}
	}
	var subs SubIssues
	json.Unmarshal(c.CallTool("get_sub_issues", newArgs("get_sub_issues")).StructuredContent, &subs)
	if subs.Parent == nil || subs.Parent.Number != 1 || len(subs.SubIssues) != 2 || subs.SubIssues[0].Assignees[0] != "mona" {
		t.Errorf("sub-issues of #7: %+v", subs)
	}
	f.override("GET /api/v3/repos/octo/hello/issues/7/parent", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	})
	var orphan SubIssues
	if err := json.Unmarshal(c.CallTool("get_sub_issues", newArgs("get_sub_issues")).StructuredContent, &orphan); err != nil || orphan.Parent != nil || len(orphan.SubIssues) != 2 {
		t.Errorf("an issue without a parent: %+v (%v)", orphan, err)
	}
	if res := c.CallTool("get_gists", map[string]any{}); !res.IsError || !strings.Contains(res.Text(), "not available on a server confined with --repos") {
		t.Errorf("gists on a confined server: %s", res.Text())
	}
	if res := c.CallTool("list_notifications", map[string]any{"owner": "octo", "repo": "secret"}); !res.IsError || !strings.Contains(res.Text(), "not in this server's allow-list") {
		t.Errorf("notifications of octo/secret: %s", res.Text())
	}

	open := connect(t, newServer(t, f, BackendConfig{}, Config{Selection: allToolsets(t)}), "2026-07-28")
	var g Gists
	json.Unmarshal(open.CallTool("get_gists", newArgs("get_gists")).StructuredContent, &g)
	if len(g.Gists) != 1 || len(g.Gists[0].Files) != 2 || g.Gists[0].Files[0].Name != "big.txt" || !g.Gists[0].Files[0].Cut || len(g.Gists[0].Files[0].Content) != maxGistFileBytes || !g.Truncated {
		t.Errorf("gist with a 20,000-byte file: %+v", g)
	}
	list := structured(t, open.CallTool("get_gists", map[string]any{"perPage": 1}))
	if len(list["gists"].([]any)) != 1 || list["nextPage"] != float64(2) {
		t.Errorf("gists page 1: %v", list)
	}
	if res := open.CallTool("get_gists", map[string]any{"id": "../user"}); !res.IsError || !strings.Contains(res.Text(), "is not a gist ID") {
		t.Errorf("a gist id that is not one: %s", res.Text())
	}
	lbl := structured(t, open.CallTool("list_labels", map[string]any{"owner": "octo", "repo": "hello", "perPage": 2}))
	if len(lbl["labels"].([]any)) != 2 || lbl["nextPage"] != float64(2) {
		t.Errorf("labels page 1: %v", lbl)
	}
	if q := f.requests(); open.CallTool("search_users", map[string]any{"query": "octo", "type": "org"}).IsError || !strings.Contains(f.requests()[len(q)].Query, "type%3Aorg") {
		t.Errorf("search_users type=org did not search organizations: %s", f.requests()[len(q)].Query)
	}
}

// TestDiscussionLockdown: under lockdown a stranger's discussion body and comment are
// hidden, a collaborator's answer is shown.
func TestDiscussionLockdown(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{Lockdown: true}, Config{Selection: Selection{Toolsets: []string{"discussions"}}}), "2026-07-28")
	var d Discussion
	json.Unmarshal(c.CallTool("get_discussion", newArgs("get_discussion")).StructuredContent, &d)
	if !d.BodyHidden || strings.Contains(d.Body, "ignore prior rules") || d.Lockdown != 2 || d.Comments[0].Hidden || !d.Comments[0].Answer || !d.Comments[1].Hidden {
		t.Errorf("discussion under lockdown: %+v", d)
	}
}

func newArgs(tool string) map[string]any { return breadthArgs[tool] }
