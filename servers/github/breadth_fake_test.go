package github

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// breadthRoutes are the fake's answers for the issue 29 tools: the scene repository
// octo/hello with tags v1.3.2 and v1.4.0 (compare, tree, tags, releases, blame,
// deployments), commit search with a result planted in octo/secret, and GitHub
// Enterprise's GraphQL endpoint /api/graphql.
func (f *fakeGitHub) breadthRoutes() {
	const r = "/api/v3/repos/octo/hello"
	f.handle("GET "+r+"/compare/{basehead}", f.compare("compare_v1.3.2_v1.4.0.json"))
	f.handle("GET "+r+"/git/trees/{sha}", f.fixture("tree_main.json"))
	f.handle("GET "+r+"/releases/latest", f.fixture("release_latest.json"))
	f.handle("GET "+r+"/releases/tags/v1.4.0", f.fixture("release_latest.json"))
	f.handle("GET "+r+"/git/ref/tags/v1.4.0", f.fixture("ref_tag_v1.4.0.json"))
	f.handle("GET "+r+"/git/ref/tags/v1.3.2", f.fixture("ref_tag_v1.3.2.json"))
	f.handle("GET "+r+"/git/tags/7a9b000000000000000000000000000000000140", f.fixture("tag_object_v1.4.0.json"))
	f.handle("GET /api/v3/search/commits", f.fixture("search_commits.json"))
	f.handle("GET "+r+"/deployments", f.paged("deployments.json"))
	f.handle("GET "+r+"/deployments/{id}/statuses", func(w http.ResponseWriter, req *http.Request) {
		f.fixture("deployment_"+req.PathValue("id")+"_statuses.json")(w, req)
	})
	f.handle("GET "+r+"/pulls/4/commits", f.paged("commits.json"))
	f.handle("GET "+r+"/actions/workflows", f.pagedObject("workflows.json", "workflows"))
	f.handle("GET "+r+"/actions/artifacts", f.pagedObject("artifacts.json", "artifacts"))
	f.handle("GET "+r+"/actions/runs/100/artifacts", f.pagedObject("artifacts_run_100.json", "artifacts"))
	f.handle("GET "+r+"/code-scanning/alerts", f.paged("code_scanning_alerts.json"))
	f.handle("GET "+r+"/dependabot/alerts", f.paged("dependabot_alerts.json"))
	f.handle("GET "+r+"/secret-scanning/alerts", f.paged("secret_scanning_alerts.json"))
	f.handle("GET "+r+"/security-advisories", f.cursorPaged("security_advisories.json"))
	f.handle("GET /api/v3/notifications", f.paged("notifications.json"))
	f.handle("GET "+r+"/notifications", f.paged("notifications.json"))
	f.handle("GET "+r+"/labels", f.paged("labels.json"))
	f.handle("GET "+r+"/milestones", f.paged("milestones.json"))
	f.handle("GET "+r+"/issues/7/sub_issues", f.paged("sub_issues_7.json"))
	f.handle("GET "+r+"/issues/7/parent", f.fixture("issue_7_parent.json"))
	f.handle("GET /api/v3/user", f.fixture("user_me.json"))
	f.handle("GET /api/v3/user/teams", f.paged("user_teams.json"))
	f.handle("GET /api/v3/search/users", f.fixture("search_users.json"))
	f.handle("GET /api/v3/gists", f.paged("gists.json"))
	f.handle("GET /api/v3/gists/aa5a315d61ae9438b18d", f.fixture("gist_aa5a.json"))
	f.handle("PATCH "+r+"/issues/7", func(w http.ResponseWriter, req *http.Request) {
		var is map[string]any
		json.Unmarshal(loadFixture(f.t, "issue_7.json"), &is)
		var patch map[string]any
		json.NewDecoder(req.Body).Decode(&patch)
		for k, v := range patch {
			is[k] = v
		}
		writeJSON(w, 200, is)
	})
	labels := func(w http.ResponseWriter, req *http.Request) {
		writeJSON(w, 200, []map[string]any{{"id": 1, "name": "bug", "color": "f29513"}, {"id": 3, "name": "payments", "color": "0e8a16"}})
	}
	f.handle("POST "+r+"/issues/7/labels", labels)
	f.handle("DELETE "+r+"/issues/7/labels/{name}", labels)
	f.handle("GET "+r+"/issues/7/labels", labels)
	f.handle("POST "+r+"/pulls/4/comments", f.created("created_review_reply.json"))
	f.handle("POST "+r+"/pulls/4/reviews", f.fixture("created_review.json"))
	f.handle("PUT "+r+"/notifications", func(w http.ResponseWriter, req *http.Request) { w.WriteHeader(http.StatusResetContent) })
	f.handle("PUT /api/v3/notifications", func(w http.ResponseWriter, req *http.Request) { w.WriteHeader(http.StatusResetContent) })
	f.handle("GET "+r+"/environments", f.pagedObject("environments.json", "environments"))
	f.handle("POST /api/graphql", f.graphQL)
}

// cursorPaged serves an array fixture one item a page, paged by cursor as the
// security advisories API is: Link rel="next" carries after=<cursor>.
func (f *fakeGitHub) cursorPaged(name string) http.HandlerFunc {
	var items []json.RawMessage
	if err := json.Unmarshal(loadFixture(f.t, name), &items); err != nil {
		f.t.Fatalf("fixture %s: %v", name, err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		i := 0
		if a := r.URL.Query().Get("after"); a != "" {
			i, _ = strconv.Atoi(strings.TrimPrefix(a, "Y3Vyc29y"))
		}
		if i+1 < len(items) {
			q := r.URL.Query()
			q.Set("after", "Y3Vyc29y"+strconv.Itoa(i+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, f.srv.URL, r.URL.Path, q.Encode()))
		}
		body, _ := json.Marshal(items[min(i, len(items)):min(i+1, len(items))])
		serveWithETag(w, r, "application/json; charset=utf-8", body)
	}
}

// pagedObject serves an object fixture whose key holds the list ({"total_count": n,
// key: [...]}, as Actions lists are) a page at a time, with GitHub's Link header.
func (f *fakeGitHub) pagedObject(name, key string) http.HandlerFunc {
	var full map[string]json.RawMessage
	if err := json.Unmarshal(loadFixture(f.t, name), &full); err != nil {
		f.t.Fatalf("fixture %s: %v", name, err)
	}
	var items []json.RawMessage
	json.Unmarshal(full[key], &items)
	return func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, per = max(page, 1), max(per, 1)
		lo, hi := min((page-1)*per, len(items)), min(page*per, len(items))
		out := map[string]json.RawMessage{}
		for k, v := range full {
			out[k] = v
		}
		out[key], _ = json.Marshal(items[lo:hi])
		if hi < len(items) {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(page+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, f.srv.URL, r.URL.Path, q.Encode()))
		}
		body, _ := json.Marshal(out)
		serveWithETag(w, r, "application/json; charset=utf-8", body)
	}
}

// graphQLOp finds a query's operation name ("query Blame(" gives Blame).
var graphQLOp = regexp.MustCompile(`^\s*(?:query|mutation)\s+(\w+)`)

// graphQL answers a GraphQL request with testdata/graphql_<Operation>.json, as GitHub
// does: 200 with {"data": ...}. An unknown operation is a test failure.
func (f *fakeGitHub) graphQL(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("GraphQL request is not JSON: %v", err)
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	m := graphQLOp.FindStringSubmatch(req.Query)
	if m == nil {
		f.t.Errorf("GraphQL query has no operation name: %s", req.Query)
		writeJSON(w, 400, map[string]string{"message": "no operation"})
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", "graphql_"+m[1]+".json"))
	if err != nil {
		f.t.Errorf("no fixture for GraphQL operation %s", m[1])
		writeJSON(w, 200, map[string]any{"errors": []map[string]string{{"type": "NOT_FOUND", "message": "no fixture"}}})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(data)
}

// compare serves a comparison as GitHub does: its commits paged (page, per_page, with
// a Link header), its files on the first page only.
func (f *fakeGitHub) compare(name string) http.HandlerFunc {
	var full map[string]json.RawMessage
	if err := json.Unmarshal(loadFixture(f.t, name), &full); err != nil {
		f.t.Fatalf("fixture %s: %v", name, err)
	}
	var commits []json.RawMessage
	json.Unmarshal(full["commits"], &commits)
	return func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("basehead") != "v1.3.2...v1.4.0" {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, per = max(page, 1), max(per, 1)
		lo, hi := min((page-1)*per, len(commits)), min(page*per, len(commits))
		out := map[string]json.RawMessage{}
		for k, v := range full {
			out[k] = v
		}
		out["commits"], _ = json.Marshal(commits[lo:hi])
		if page > 1 {
			delete(out, "files")
		}
		if hi < len(commits) {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(page+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, f.srv.URL, r.URL.Path, q.Encode()))
		}
		body, _ := json.Marshal(out)
		serveWithETag(w, r, "application/json; charset=utf-8", body)
	}
}

// graphQLRequests returns the GraphQL requests the fake received, their variables
// decoded.
func (f *fakeGitHub) graphQLRequests() []map[string]any {
	var out []map[string]any
	for _, r := range f.requests() {
		if r.Path != "/api/graphql" {
			continue
		}
		var req struct {
			Variables map[string]any `json:"variables"`
		}
		json.Unmarshal(r.Body, &req)
		out = append(out, req.Variables)
	}
	return out
}
