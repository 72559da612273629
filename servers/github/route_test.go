package github

import "testing"

// TestRoute: values become placeholders; API words and the Enterprise prefix stay.
func TestRoute(t *testing.T) {
	for path, want := range map[string]string{
		"/repos/octo/hello/issues/42":                 "/repos/{owner}/{repo}/issues/{number}",
		"/api/v3/repos/octo/hello/pulls/4/files":      "/api/v3/repos/{owner}/{repo}/pulls/{number}/files",
		"/repos/octo/hello/contents/docs/secret.md":   "/repos/{owner}/{repo}/contents/{name}/{name}",
		"/search/issues":                              "/search/issues",
		"/users/alice":                                "/users/{user}",
		"/repos/octo/hello/git/refs/heads/sk-live-42": "/repos/{owner}/{repo}/git/refs/heads/{name}",
		"/": "/",
	} {
		if got := Route(path); got != want {
			t.Errorf("Route(%q) = %q, want %q", path, got, want)
		}
	}
}
