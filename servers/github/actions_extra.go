package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Workflow is one workflow file of a repository.
type Workflow struct {
	ID    int64  `json:"id" jsonschema_description:"Workflow ID"`
	Name  string `json:"name" jsonschema_description:"Workflow name"`
	Path  string `json:"path" jsonschema_description:"File, such as .github/workflows/ci.yml"`
	State string `json:"state" jsonschema_description:"active or disabled_manually or disabled_inactivity"`
	URL   string `json:"url,omitempty" jsonschema_description:"Web page"`
}

// WorkflowList is one page of workflows.
type WorkflowList struct {
	TotalCount int        `json:"totalCount" jsonschema_description:"Workflows in all pages"`
	Workflows  []Workflow `json:"workflows" jsonschema_description:"Workflows on this page"`
	Page       int        `json:"page" jsonschema_description:"This page number"`
	NextPage   int        `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListWorkflows lists a repository's Actions workflows.
func (b *Backend) ListWorkflows(ctx context.Context, in ListRepoInput) (WorkflowList, error) {
	out := WorkflowList{Workflows: []Workflow{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Actions.ListWorkflows(ctx, in.Owner, in.Repo, &lo)
	if err != nil {
		return out, b.fail(err, "list workflows of "+repoName(in.Owner, in.Repo))
	}
	out.TotalCount = list.GetTotalCount()
	for _, w := range list.Workflows {
		out.Workflows = append(out.Workflows, Workflow{ID: w.GetID(), Name: out.CleanField("a workflow name", w.GetName(), maxTitleBytes),
			Path: name(w.GetPath()), State: name(w.GetState()), URL: name(w.GetHTMLURL())})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "workflows")
	return out, nil
}

// RunJobsInput names a run and, optionally, a job by name.
type RunJobsInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	RunID   int64  `json:"runId" jsonschema:"minimum=1"`
	Name    string `json:"name,omitempty" jsonschema_description:"Only jobs whose name contains it"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Job is one job of a run.
type Job struct {
	ID          int64     `json:"id" jsonschema_description:"Job ID (get_job_log's jobId)"`
	Name        string    `json:"name" jsonschema_description:"Job name"`
	Status      string    `json:"status" jsonschema_description:"queued or in_progress or completed"`
	Conclusion  string    `json:"conclusion,omitempty" jsonschema_description:"success or failure or cancelled or skipped or timed_out"`
	StartedAt   string    `json:"startedAt,omitempty" jsonschema_description:"Start time (RFC 3339)"`
	CompletedAt string    `json:"completedAt,omitempty" jsonschema_description:"End time (RFC 3339)"`
	Runner      string    `json:"runner,omitempty" jsonschema_description:"Runner name"`
	FailedSteps []JobStep `json:"failedSteps,omitempty" jsonschema_description:"Steps that did not pass"`
	URL         string    `json:"url,omitempty" jsonschema_description:"Web page"`
}

// JobList is one page of a run's jobs.
type JobList struct {
	TotalCount int   `json:"totalCount" jsonschema_description:"Jobs of the run (latest attempt)"`
	Jobs       []Job `json:"jobs" jsonschema_description:"Jobs on this page (matching name when given)"`
	Page       int   `json:"page" jsonschema_description:"This page number"`
	NextPage   int   `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListRunJobs lists the jobs of a run's latest attempt, failed steps named; name
// finds a job by (part of) its name, case-insensitively.
func (b *Backend) ListRunJobs(ctx context.Context, in RunJobsInput) (JobList, error) {
	out := JobList{Jobs: []Job{}}
	if in.RunID < 1 {
		return out, fmt.Errorf("runId is %d; expected a run ID from list_workflow_runs", in.RunID)
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	jobs, resp, err := b.gh.Actions.ListWorkflowJobs(ctx, in.Owner, in.Repo, in.RunID, &gh.ListWorkflowJobsOptions{Filter: "latest", ListOptions: lo})
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("list jobs of run %d in %s", in.RunID, repoName(in.Owner, in.Repo)))
	}
	out.TotalCount = jobs.GetTotalCount()
	want := strings.ToLower(in.Name)
	for _, j := range jobs.Jobs {
		if want != "" && !strings.Contains(strings.ToLower(j.GetName()), want) {
			continue
		}
		job := Job{ID: j.GetID(), Name: name(j.GetName()), Status: name(j.GetStatus()), Conclusion: name(j.GetConclusion()),
			StartedAt: ts(j.StartedAt), CompletedAt: ts(j.CompletedAt), Runner: name(j.GetRunnerName()), URL: name(j.GetHTMLURL())}
		for _, s := range j.Steps {
			if failed(s.GetConclusion()) {
				job.FailedSteps = append(job.FailedSteps, JobStep{Number: s.GetNumber(), Name: name(s.GetName()), Conclusion: name(s.GetConclusion())})
			}
		}
		out.Jobs = append(out.Jobs, job)
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "jobs")
	return out, nil
}

// ArtifactsInput names a repository or one run of it, and optionally an artifact name.
type ArtifactsInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	RunID   int64  `json:"runId,omitempty"`
	Name    string `json:"name,omitempty" jsonschema_description:"Name contains it"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// Artifact is one build artifact.
type Artifact struct {
	ID        int64  `json:"id" jsonschema_description:"Artifact ID"`
	Name      string `json:"name" jsonschema_description:"Artifact name"`
	Bytes     int64  `json:"bytes" jsonschema_description:"Size in bytes"`
	Expired   bool   `json:"expired,omitempty" jsonschema_description:"True when it can no longer be downloaded"`
	RunID     int64  `json:"runId,omitempty" jsonschema_description:"Run that made it"`
	Branch    string `json:"branch,omitempty" jsonschema_description:"Head branch of that run"`
	CreatedAt string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	ExpiresAt string `json:"expiresAt,omitempty" jsonschema_description:"Expiry time (RFC 3339)"`
}

// ArtifactList is one page of artifacts, newest first.
type ArtifactList struct {
	TotalCount int        `json:"totalCount" jsonschema_description:"Artifacts in all pages"`
	Artifacts  []Artifact `json:"artifacts" jsonschema_description:"Artifacts on this page (matching name when given)"`
	Page       int        `json:"page" jsonschema_description:"This page number"`
	NextPage   int        `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListArtifacts lists a repository's (or one run's) Actions artifacts; it does not
// download them.
func (b *Backend) ListArtifacts(ctx context.Context, in ArtifactsInput) (ArtifactList, error) {
	out := ArtifactList{Artifacts: []Artifact{}}
	if in.RunID < 0 {
		return out, fmt.Errorf("runId is %d; expected a run ID from list_workflow_runs", in.RunID)
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	var list *gh.ArtifactList
	var resp *gh.Response
	what := "list artifacts of " + repoName(in.Owner, in.Repo)
	if in.RunID != 0 {
		what = fmt.Sprintf("list artifacts of run %d in %s", in.RunID, repoName(in.Owner, in.Repo))
		list, resp, err = b.gh.Actions.ListWorkflowRunArtifacts(ctx, in.Owner, in.Repo, in.RunID, &lo)
	} else {
		list, resp, err = b.gh.Actions.ListArtifacts(ctx, in.Owner, in.Repo, &lo)
	}
	if err != nil {
		return out, b.fail(err, what)
	}
	out.TotalCount = int(list.GetTotalCount())
	want := strings.ToLower(in.Name)
	for _, a := range list.Artifacts {
		if want != "" && !strings.Contains(strings.ToLower(a.GetName()), want) {
			continue
		}
		out.Artifacts = append(out.Artifacts, Artifact{ID: a.GetID(), Name: name(a.GetName()), Bytes: a.GetSizeInBytes(), Expired: a.GetExpired(),
			RunID: a.GetWorkflowRun().GetID(), Branch: name(a.GetWorkflowRun().GetHeadBranch()), CreatedAt: ts(a.CreatedAt), ExpiresAt: ts(a.ExpiresAt)})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "artifacts")
	return out, nil
}
