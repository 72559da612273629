package github

// actionsTools: GitHub Actions runs and job logs.
func actionsTools(b *Backend) []toolEntry {
	const ts = "actions"
	return []toolEntry{
		read(b, ts, "list_workflow_runs", "List GitHub Actions runs, newest first.", (*Backend).ListWorkflowRuns),
		read(b, ts, "get_job_log", "Read the end of an Actions job log, failed steps and error lines first.", (*Backend).GetJobLogTail),
	}
}
