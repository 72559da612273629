package github

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// Log caps: lines returned by default and at most, bytes per line and in total, error
// lines collected, and how much of a log is read (job logs can reach hundreds of MB).
const (
	DefaultLogLines  = 100
	MaxLogLines      = 500
	maxLogLineBytes  = 512
	MaxLogBytes      = 48 << 10
	maxErrorLines    = 20
	maxLogReadBytes  = 64 << 20
	maxJobsInRunList = 100
)

// ListWorkflowRunsInput selects GitHub Actions runs of a repository, newest first.
type ListWorkflowRunsInput struct {
	Owner    string `json:"owner"`
	Repo     string `json:"repo"`
	Workflow string `json:"workflow,omitempty" jsonschema_description:"File name (ci.yml) or ID"`
	Branch   string `json:"branch,omitempty"`
	Event    string `json:"event,omitempty" jsonschema_description:"Such as push"`
	Status   string `json:"status,omitempty" jsonschema_description:"Or conclusion, such as failure"`
	Actor    string `json:"actor,omitempty" jsonschema_description:"Login that started it"`
	Page     int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage  int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// WorkflowRun is one run of a workflow.
type WorkflowRun struct {
	ID         int64  `json:"id" jsonschema_description:"Run ID (pass as runId to read its failed job's log)"`
	Workflow   string `json:"workflow" jsonschema_description:"Workflow name"`
	Title      string `json:"title,omitempty" jsonschema_description:"Run title (commit message or pull request title)"`
	Event      string `json:"event" jsonschema_description:"Triggering event"`
	Status     string `json:"status" jsonschema_description:"queued or in_progress or completed"`
	Conclusion string `json:"conclusion,omitempty" jsonschema_description:"success or failure or cancelled or skipped or timed_out"`
	Branch     string `json:"branch,omitempty" jsonschema_description:"Head branch"`
	HeadSHA    string `json:"headSha" jsonschema_description:"Head commit SHA"`
	RunNumber  int    `json:"runNumber" jsonschema_description:"Run number within the workflow"`
	Attempt    int    `json:"attempt,omitempty" jsonschema_description:"Attempt number when re-run"`
	Actor      string `json:"actor,omitempty" jsonschema_description:"Login that triggered the run"`
	CreatedAt  string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	URL        string `json:"url" jsonschema_description:"Web page of the run"`
}

// WorkflowRunList is one page of runs.
type WorkflowRunList struct {
	TotalCount int           `json:"totalCount" jsonschema_description:"Number of runs in all pages"`
	Runs       []WorkflowRun `json:"runs" jsonschema_description:"Runs on this page"`
	Page       int           `json:"page" jsonschema_description:"This page number"`
	NextPage   int           `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more"`
	mcpkit.Truncation
}

// JobLogInput names a job, or a run whose first failed job should be read.
type JobLogInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	JobID int64  `json:"jobId,omitempty" jsonschema_description:"Or give runId"`
	RunID int64  `json:"runId,omitempty" jsonschema_description:"Reads its first failed job"`
	Lines int    `json:"lines,omitempty" jsonschema_description:"From the end" jsonschema:"minimum=1,maximum=500,default=100"`
}

// JobStep is one step of a job.
type JobStep struct {
	Number     int64  `json:"number" jsonschema_description:"Step number"`
	Name       string `json:"name" jsonschema_description:"Step name"`
	Conclusion string `json:"conclusion,omitempty" jsonschema_description:"success or failure or cancelled or skipped"`
}

// LogLine is one numbered log line.
type LogLine struct {
	Line int    `json:"line" jsonschema_description:"Line number in the log (1-based)"`
	Text string `json:"text" jsonschema_description:"Line text without its timestamp"`
}

// JobRef names another job of the same run.
type JobRef struct {
	ID         int64  `json:"id" jsonschema_description:"Job ID"`
	Name       string `json:"name" jsonschema_description:"Job name"`
	Conclusion string `json:"conclusion,omitempty" jsonschema_description:"Job conclusion"`
}

// JobLogTail is the end of a job's log, led by what failed.
type JobLogTail struct {
	JobID       int64     `json:"jobId" jsonschema_description:"Job ID"`
	RunID       int64     `json:"runId,omitempty" jsonschema_description:"Run ID"`
	Name        string    `json:"name" jsonschema_description:"Job name"`
	Status      string    `json:"status" jsonschema_description:"queued or in_progress or completed"`
	Conclusion  string    `json:"conclusion,omitempty" jsonschema_description:"success or failure or cancelled or skipped or timed_out"`
	FailedSteps []JobStep `json:"failedSteps" jsonschema_description:"Steps that failed or timed out or were cancelled"`
	ErrorLines  []LogLine `json:"errorLines,omitempty" jsonschema_description:"Lines GitHub marked as errors (##[error]) anywhere in the log; at most 20"`
	OtherFailed []JobRef  `json:"otherFailedJobs,omitempty" jsonschema_description:"Other failed jobs of the run when runId was given"`
	TotalLines  int       `json:"totalLines" jsonschema_description:"Lines in the log that were read"`
	TailStart   int       `json:"tailStartLine,omitempty" jsonschema_description:"Line number of the first line of the tail"`
	Tail        string    `json:"tail" jsonschema_description:"The last lines of the log without timestamps"`
	URL         string    `json:"url,omitempty" jsonschema_description:"Web page of the job"`
	mcpkit.Truncation
}

// ListWorkflowRuns lists GitHub Actions runs.
func (b *Backend) ListWorkflowRuns(ctx context.Context, in ListWorkflowRunsInput) (WorkflowRunList, error) {
	out := WorkflowRunList{Runs: []WorkflowRun{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	var workflowID int64
	if in.Workflow != "" {
		if id, err := strconv.ParseInt(in.Workflow, 10, 64); err == nil && id > 0 {
			workflowID = id
		} else if p, err := validatePath(in.Workflow); err != nil || strings.Contains(p, "/") {
			return out, fmt.Errorf("workflow %q is neither a numeric ID nor a workflow file name; expected e.g. ci.yml or 161335", clip(in.Workflow))
		}
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.ListWorkflowRunsOptions{Actor: in.Actor, Branch: in.Branch, Event: in.Event, Status: in.Status, ListOptions: lo}
	var runs *gh.WorkflowRuns
	var resp *gh.Response
	switch {
	case workflowID != 0:
		runs, resp, err = b.gh.Actions.ListWorkflowRunsByID(ctx, in.Owner, in.Repo, workflowID, opts)
	case in.Workflow != "":
		runs, resp, err = b.gh.Actions.ListWorkflowRunsByFileName(ctx, in.Owner, in.Repo, in.Workflow, opts)
	default:
		runs, resp, err = b.gh.Actions.ListRepositoryWorkflowRuns(ctx, in.Owner, in.Repo, opts)
	}
	if err != nil {
		return out, b.fail(err, "list workflow runs of "+repoName(in.Owner, in.Repo))
	}
	out.TotalCount = runs.GetTotalCount()
	for _, r := range runs.WorkflowRuns {
		out.Runs = append(out.Runs, WorkflowRun{
			ID:         r.GetID(),
			Workflow:   name(r.GetName()),
			Title:      out.CleanField("a run title", firstLine(r.GetDisplayTitle()), maxTitleBytes),
			Event:      name(r.GetEvent()),
			Status:     name(r.GetStatus()),
			Conclusion: name(r.GetConclusion()),
			Branch:     name(r.GetHeadBranch()),
			HeadSHA:    r.GetHeadSHA(),
			RunNumber:  r.GetRunNumber(),
			Attempt:    r.GetRunAttempt(),
			Actor:      login(r.GetActor()),
			CreatedAt:  ts(r.CreatedAt),
			URL:        name(r.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "runs")
	return out, nil
}

func failed(conclusion string) bool {
	switch conclusion {
	case "failure", "timed_out", "cancelled", "startup_failure":
		return true
	}
	return false
}

// GetJobLogTail reads a job's log and returns its failed steps, the lines GitHub
// marked as errors, and the last lines. Given a run ID instead of a job ID, it reads
// the run's first failed job and names the other failed ones.
func (b *Backend) GetJobLogTail(ctx context.Context, in JobLogInput) (JobLogTail, error) {
	out := JobLogTail{FailedSteps: []JobStep{}}
	switch {
	case in.JobID < 0 || in.RunID < 0:
		return out, fmt.Errorf("jobId and runId must be positive IDs")
	case in.JobID == 0 && in.RunID == 0:
		return out, fmt.Errorf("give jobId (a job to read) or runId (a run whose first failed job is read); list_workflow_runs shows run IDs")
	case in.Lines < 0 || in.Lines > MaxLogLines:
		return out, fmt.Errorf("lines is %d; expected 1 to %d (default %d)", in.Lines, MaxLogLines, DefaultLogLines)
	}
	want := in.Lines
	if want == 0 {
		want = DefaultLogLines
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	rn := repoName(in.Owner, in.Repo)

	var job *gh.WorkflowJob
	if in.JobID != 0 {
		if job, _, err = b.gh.Actions.GetWorkflowJobByID(ctx, in.Owner, in.Repo, in.JobID); err != nil {
			return out, b.fail(err, fmt.Sprintf("get job %d in %s", in.JobID, rn))
		}
	} else {
		jobs, _, err := b.gh.Actions.ListWorkflowJobs(ctx, in.Owner, in.Repo, in.RunID, &gh.ListWorkflowJobsOptions{Filter: "latest", ListOptions: gh.ListOptions{PerPage: maxJobsInRunList}})
		if err != nil {
			return out, b.fail(err, fmt.Sprintf("list jobs of run %d in %s", in.RunID, rn))
		}
		var names []string
		for _, j := range jobs.Jobs {
			state := j.GetConclusion()
			if state == "" {
				state = j.GetStatus()
			}
			names = append(names, fmt.Sprintf("%s (id %d, %s)", name(j.GetName()), j.GetID(), name(state)))
			if !failed(j.GetConclusion()) {
				continue
			}
			if job == nil {
				job = j
			} else {
				out.OtherFailed = append(out.OtherFailed, JobRef{ID: j.GetID(), Name: name(j.GetName()), Conclusion: name(j.GetConclusion())})
			}
		}
		if job == nil {
			return out, fmt.Errorf("run %d in %s has no failed job; its jobs: %s; pass jobId to read one", in.RunID, rn, strings.Join(names, ", "))
		}
	}
	out.JobID, out.RunID, out.Name = job.GetID(), job.GetRunID(), name(job.GetName())
	out.Status, out.Conclusion, out.URL = name(job.GetStatus()), name(job.GetConclusion()), name(job.GetHTMLURL())
	for _, s := range job.Steps {
		if failed(s.GetConclusion()) {
			out.FailedSteps = append(out.FailedSteps, JobStep{Number: s.GetNumber(), Name: name(s.GetName()), Conclusion: name(s.GetConclusion())})
		}
	}

	what := fmt.Sprintf("download the log of job %d in %s", out.JobID, rn)
	logURL, _, err := b.gh.Actions.GetWorkflowJobLogs(ctx, in.Owner, in.Repo, out.JobID, 1)
	if err != nil {
		return out, b.fail(err, what)
	}
	if err := checkDownloadURL(logURL); err != nil {
		return out, fmt.Errorf("%s: %v", what, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, logURL.String(), nil)
	if err != nil {
		return out, fmt.Errorf("%s: %v", what, err)
	}
	resp, err := b.download.Do(req)
	if err != nil {
		// Never echo the URL: a pre-signed log URL is a credential while it lives.
		var ue *url.Error
		if errors.As(err, &ue) && ctx.Err() == nil {
			e := upstream.NetworkError("GitHub's log storage", "HTTPS_PROXY and NO_PROXY", ue.Err)
			e.Op = what
			return out, e
		}
		return out, b.fail(err, what)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("%s: the log store answered %s; logs expire after the repository's retention period", what, resp.Status)
	}
	var body io.Reader = resp.Body
	if mcpkit.ProgressReported(ctx) {
		body = &progressReader{r: resp.Body, ctx: ctx, total: resp.ContentLength}
	}
	cr := newCappedReader(body, maxLogReadBytes)
	if err := scanLog(&out, cr, want); err != nil {
		return out, b.fail(err, what)
	}
	if cr.Hit {
		out.Cut(fmt.Sprintf("the log is larger than %d MiB; the tail shown ends at line %d, where reading stopped", maxLogReadBytes>>20, out.TotalLines))
	}
	return out, nil
}

// scanLog streams a log once, keeping the last want lines (ring buffer), the lines
// marked ##[error], and the line count. Memory is bounded by want * maxLogLineBytes.
func scanLog(out *JobLogTail, r io.Reader, want int) error {
	br := bufio.NewReaderSize(r, 64<<10)
	ring := make([]string, want)
	n := 0
	for {
		raw, size, err := readLine(br, maxLogLineBytes*2)
		if size == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		n++
		line, _ := mcpkit.CleanText(stripTimestamp(strings.TrimRight(string(raw), "\r\n")), maxLogLineBytes)
		if strings.Contains(line, "##[error]") {
			if len(out.ErrorLines) < maxErrorLines {
				out.ErrorLines = append(out.ErrorLines, LogLine{Line: n, Text: line})
			} else {
				out.Cut(fmt.Sprintf("more than %d error lines; only the first %d are listed", maxErrorLines, maxErrorLines))
			}
		}
		ring[(n-1)%want] = line
		if errors.Is(err, io.EOF) {
			break
		}
	}
	out.TotalLines = n
	// Walk back from the newest line while the byte budget lasts.
	var lines []string
	size := 0
	first := n
	for i := n; i >= 1 && n-i < want; i-- {
		l := ring[(i-1)%want]
		if size+len(l)+1 > MaxLogBytes {
			break
		}
		lines = append(lines, l)
		size += len(l) + 1
		first = i
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	out.Tail = strings.Join(lines, "\n")
	if len(lines) > 0 {
		out.TailStart = first
	}
	if len(lines) < n {
		out.Cut(fmt.Sprintf("showing the last %d of %d lines (at most %d lines and %d KiB); errorLines lists the marked errors from the whole log", len(lines), n, MaxLogLines, MaxLogBytes>>10))
	}
	return nil
}

// stripTimestamp drops the RFC 3339 timestamp GitHub puts before every log line
// ("2024-05-01T10:00:00.1234567Z "), which costs tokens and says little.
func stripTimestamp(s string) string {
	if len(s) < 21 || s[4] != '-' || s[7] != '-' || s[10] != 'T' {
		return s
	}
	if i := strings.Index(s[:min(len(s), 36)], "Z "); i > 0 {
		return s[i+2:]
	}
	return s
}

// progressReader reports the bytes of a download read so far, of its length when
// the server sent one (mcpkit.ReportProgress: rate-bounded, and nothing at all
// unless the client asked for progress or the call runs as a task).
type progressReader struct {
	r     io.Reader
	ctx   context.Context
	total int64 // -1: unknown
	n     int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	total := max(p.total, 0)
	msg := fmt.Sprintf("%d KiB of the log read", p.n>>10)
	if total > 0 {
		msg = fmt.Sprintf("%d of %d KiB of the log read", p.n>>10, total>>10)
	}
	mcpkit.ReportProgress(p.ctx, float64(p.n), float64(total), msg)
	return n, err
}
