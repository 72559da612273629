package github

// issuesTools: reading issues. Pull requests are issues too, so get_issue also reads a
// pull request's conversation.
func issuesTools(b *Backend) []toolEntry {
	const ts = "issues"
	return []toolEntry{
		read(b, ts, "list_issues", "List issues; pull requests are included and marked.", (*Backend).ListIssues),
		read(b, ts, "get_issue", "Get an issue (or pull request conversation) with comments.", (*Backend).GetIssue),
		read(b, ts, "search_issues", "Search issues and pull requests with GitHub search syntax.", (*Backend).SearchIssues),
	}
}
