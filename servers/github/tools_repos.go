package github

// reposTools: repositories, files, branches, tags, releases and commits.
func reposTools(b *Backend) []toolEntry {
	const ts = "repos"
	return []toolEntry{
		read(b, ts, "search_repositories", "Find repositories with GitHub search syntax.", (*Backend).SearchRepositories),
		read(b, ts, "get_repository", "Get a repository: default branch, visibility, topics, counts.", (*Backend).GetRepository),
		read(b, ts, "get_file_contents", "Read a file or lines of it (startLine to endLine, as many as fit in 64 KiB), or list a directory.", (*Backend).GetFileContents),
		read(b, ts, "list_branches", "List branches with their head SHAs.", (*Backend).ListBranches),
		read(b, ts, "list_tags", "List tags with their commit SHAs.", (*Backend).ListTags),
		read(b, ts, "list_releases", "List releases, newest first.", (*Backend).ListReleases),
		read(b, ts, "list_commits", "List commits, newest first.", (*Backend).ListCommits),
		read(b, ts, "get_commit", "Get a commit with its changed files (paged) and diff (bounded).", (*Backend).GetCommit),
	}
}
