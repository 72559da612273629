package github

// reposTools: repositories, files, branches, tags, releases and commits.
func reposTools() []toolEntry {
	const ts = "repos"
	return []toolEntry{
		read(ts, "search_repositories", "Find repositories with GitHub search syntax.", (*Backend).SearchRepositories),
		read(ts, "get_repository", "Get a repository: default branch, visibility, topics, counts.", (*Backend).GetRepository),
		read(ts, "get_file_contents", "Read a file or a line range of it, or list a directory.", (*Backend).GetFileContents),
		read(ts, "list_branches", "List branches with their head SHAs.", (*Backend).ListBranches),
		read(ts, "list_tags", "List tags with their commit SHAs.", (*Backend).ListTags),
		read(ts, "list_releases", "List releases, newest first.", (*Backend).ListReleases),
		read(ts, "list_commits", "List commits, newest first.", (*Backend).ListCommits),
		read(ts, "get_commit", "Get a commit with its changed files and diff (bounded).", (*Backend).GetCommit),
	}
}
