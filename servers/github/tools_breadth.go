package github

// breadthTools are the reads issue 29 adds, all off by default: in new toolsets, or
// marked extra in a default toolset (then naming the toolset enables them).
func breadthTools(b *Backend) []toolEntry {
	var all []toolEntry
	for _, group := range [][]toolEntry{reposExtraTools(b), gitTools(b), pullsExtraTools(b), actionsExtraTools(b), deploymentsTools(b), securityTools(b), dailyTools(b)} {
		all = append(all, group...)
	}
	return all
}

// extra marks a tool of a default toolset that the default selection leaves out.
func extra(e toolEntry) toolEntry {
	e.extra = true
	return e
}

// reposExtraTools: what changed between two refs, a release, a tag, commit search.
func reposExtraTools(b *Backend) []toolEntry {
	const ts = "repos"
	return []toolEntry{
		extra(read(b, ts, "compare_commits", "Compare base...head (e.g. v1.3.2...v1.4.0): commits, files, patches.", (*Backend).CompareCommits)),
		extra(read(b, ts, "get_release", "Get a release by tag, or the latest release.", (*Backend).GetRelease)),
		extra(read(b, ts, "get_tag", "Get a tag: its commit and, if annotated, message and tagger.", (*Backend).GetTag)),
		extra(read(b, ts, "search_commits", "Search commits with GitHub search syntax.", (*Backend).SearchCommits)),
	}
}

// gitTools: a repository's tree and who changed which lines.
func gitTools(b *Backend) []toolEntry {
	const ts = "git"
	return []toolEntry{
		read(b, ts, "get_repository_tree", "List a repository's files and directories, recursively by default.", (*Backend).GetRepositoryTree),
		read(b, ts, "get_blame", "Blame lines of a file: per run of lines, the commit, author, time and message.", (*Backend).GetBlame),
	}
}

// pullsExtraTools: a pull request's commits and review threads, and CI on any ref.
func pullsExtraTools(b *Backend) []toolEntry {
	const ts = "pull_requests"
	return []toolEntry{
		extra(read(b, ts, "list_pull_request_commits", "List a pull request's commits, oldest first.", (*Backend).ListPullRequestCommits)),
		extra(read(b, ts, "get_review_threads", "Get a pull request's inline review threads: path, line, resolved, outdated, comments.", (*Backend).GetReviewThreads)),
		extra(read(b, ts, "get_check_status", "Is CI green on a ref? One verdict over its statuses and check runs, failing first.", (*Backend).GetCheckStatus)),
	}
}

// actionsExtraTools: workflows, the jobs of a run (or one by name), artifacts.
func actionsExtraTools(b *Backend) []toolEntry {
	const ts = "actions"
	return []toolEntry{
		extra(read(b, ts, "list_workflows", "List a repository's Actions workflows.", (*Backend).ListWorkflows)),
		extra(read(b, ts, "list_run_jobs", "List the jobs of an Actions run with their failed steps; name finds a job.", (*Backend).ListRunJobs)),
		extra(read(b, ts, "list_artifacts", "List Actions artifacts of a repository or run (not their contents).", (*Backend).ListArtifacts)),
	}
}

// deploymentsTools: the Deployments API.
func deploymentsTools(b *Backend) []toolEntry {
	return []toolEntry{
		read(b, "deployments", "list_deployments", "List deployments, newest first, each with its latest status.", (*Backend).ListDeployments),
		read(b, "deployments", "list_environments", "List deployment environments and their protection rules.", (*Backend).ListEnvironments),
	}
}

// securityTools: one list per security toolset, named as github-mcp-server names them.
func securityTools(b *Backend) []toolEntry {
	return []toolEntry{
		read(b, "code_security", "list_code_scanning_alerts", "List code scanning alerts: rule, severity, where found.", (*Backend).ListCodeScanningAlerts),
		read(b, "dependabot", "list_dependabot_alerts", "List Dependabot alerts: package, advisory, fixed version.", (*Backend).ListDependabotAlerts),
		read(b, "secret_protection", "list_secret_scanning_alerts", "List secret scanning alerts (never the secret itself).", (*Backend).ListSecretScanningAlerts),
		read(b, "security_advisories", "list_security_advisories", "List a repository's security advisories.", (*Backend).ListSecurityAdvisories),
	}
}

// dailyTools: sub-issues, labels and milestones, notifications, the token's user and
// teams, user and organization search, gists.
func dailyTools(b *Backend) []toolEntry {
	return []toolEntry{
		extra(read(b, "issues", "get_sub_issues", "Get an issue's parent and sub-issues.", (*Backend).GetSubIssues)),
		read(b, "labels", "list_labels", "List a repository's labels.", (*Backend).ListLabels),
		read(b, "labels", "list_milestones", "List milestones with open and closed issue counts.", (*Backend).ListMilestones),
		read(b, "notifications", "list_notifications", "List your notifications, newest first (unread unless all).", (*Backend).ListNotifications),
		read(b, "discussions", "list_discussions", "List a repository's discussions, recently updated first.", (*Backend).ListDiscussions),
		read(b, "discussions", "get_discussion", "Get a discussion with its first comments and answer.", (*Backend).GetDiscussion),
		read(b, "context", "get_me", "Get the user this server acts as.", (*Backend).GetMe),
		read(b, "context", "get_teams", "List your teams across organizations.", (*Backend).GetTeams),
		read(b, "users", "search_users", "Search users, or organizations with type=org.", (*Backend).SearchUsers),
		read(b, "gists", "get_gists", "Read a gist by id, or list your gists.", (*Backend).GetGists),
	}
}

// breadthWriteTools are issue 29's writes, confirmed like every write (no merge, no
// delete); like its reads they come only with their toolset named.
func breadthWriteTools(b *Backend, confirm bool) []toolEntry {
	asks := " The user confirms first."
	if !confirm {
		asks = " Runs without asking the user (--no-confirm: the host confirms each call)."
	}
	return []toolEntry{
		extra(write(b, "issues", "update_issue", "Edit an issue's title or body, close or reopen it."+asks, true,
			(*Backend).DescribeUpdateIssue, (*Backend).UpdateIssue)),
		write(b, "labels", "edit_labels", "Add and remove labels of an issue or pull request."+asks, false,
			(*Backend).DescribeEditLabels, (*Backend).EditLabels),
		extra(write(b, "pull_requests", "reply_to_review_comment", "Reply in a pull request review thread."+asks, false,
			(*Backend).DescribeReply, (*Backend).Reply)),
		extra(write(b, "pull_requests", "resolve_review_thread", "Resolve or unresolve a review thread."+asks, false,
			(*Backend).DescribeResolveThread, (*Backend).ResolveThread)),
		extra(write(b, "pull_requests", "submit_review", "Approve, request changes or comment on a pull request."+asks, false,
			(*Backend).DescribeSubmitReview, (*Backend).SubmitReview)),
		write(b, "notifications", "mark_notifications_read", "Mark your notifications read, of one repository or all."+asks, false,
			(*Backend).DescribeMarkRead, (*Backend).MarkRead),
	}
}
