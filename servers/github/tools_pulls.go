package github

// pullsTools: reading pull requests.
func pullsTools(b *Backend) []toolEntry {
	const ts = "pull_requests"
	return []toolEntry{
		read(b, ts, "list_pull_requests", "List a repository's pull requests.", (*Backend).ListPullRequests),
		read(b, ts, "get_pull_request", "Get a pull request with its files, reviews and checks.", (*Backend).GetPullRequest),
		read(b, ts, "get_pull_request_diff", "Get a window of a pull request's unified diff.", (*Backend).GetPullRequestDiff),
	}
}
