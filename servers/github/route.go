package github

import "strings"

// routeWords are the literal segments of the REST API paths this server calls;
// any other segment is a value (an owner, a repository, a branch, a file path, a
// number) and is replaced by a placeholder.
var routeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`repos search users user orgs issues pulls comments commits contents branches
		actions runs jobs logs workflows reviews files labels releases tags git refs trees blobs code repositories
		members collaborators permission readme compare merge merges requested_reviewers check-runs check-suites
		status statuses events timeline artifacts latest notifications assignees milestones reactions forks
		subscription stargazers languages topics teams rate_limit graphql attempts pending_deployments rerun
		rerun-failed-jobs cancel dispatches threads update-branch ref heads`) {
		routeWords[w] = true
	}
}

// Route is a GitHub REST API path's template for telemetry: /repos/{owner}/{repo}
// for the repository, literal API words kept, and every other segment a
// placeholder, so that no name, number or path a caller chose appears in a span.
// An Enterprise host's /api/v3 prefix is kept.
func Route(path string) string {
	var b strings.Builder
	rest := strings.Trim(path, "/")
	if p, ok := strings.CutPrefix(rest, "api/v3"); ok && (p == "" || p[0] == '/') {
		b.WriteString("/api/v3")
		rest = strings.TrimPrefix(p, "/")
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if s == "" {
			continue
		}
		b.WriteByte('/')
		switch {
		case i == 1 && segs[0] == "repos":
			b.WriteString("{owner}")
		case i == 2 && segs[0] == "repos":
			b.WriteString("{repo}")
		case i == 1 && (segs[0] == "users" || segs[0] == "orgs"):
			b.WriteString("{" + strings.TrimSuffix(segs[0], "s") + "}")
		case routeWords[s]:
			b.WriteString(s)
		case strings.Trim(s, "0123456789") == "":
			b.WriteString("{number}")
		default:
			b.WriteString("{name}")
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
