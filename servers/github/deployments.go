package github

import (
	"context"
	"fmt"
	"sync"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Deployments per page: each costs one more request (its latest status), so the
// page is smaller than GitHub's lists'.
const (
	defaultDeployments = 10
	maxDeployments     = 30
	statusFetchers     = 4
)

// ListDeploymentsInput selects deployments of a repository, newest first.
type ListDeploymentsInput struct {
	Owner       string `json:"owner"`
	Repo        string `json:"repo"`
	Environment string `json:"environment,omitempty" jsonschema_description:"Such as production"`
	Ref         string `json:"ref,omitempty"`
	Page        int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage     int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=30,default=10"`
}

// Deployment is one deployment with its latest status.
type Deployment struct {
	ID          int64  `json:"id" jsonschema_description:"Deployment ID"`
	Environment string `json:"environment" jsonschema_description:"Target environment"`
	Ref         string `json:"ref" jsonschema_description:"Branch, tag or SHA deployed"`
	SHA         string `json:"sha" jsonschema_description:"Commit deployed"`
	Creator     string `json:"creator,omitempty" jsonschema_description:"Login of who deployed"`
	CreatedAt   string `json:"createdAt" jsonschema_description:"When the deployment was created (RFC 3339)"`
	Description string `json:"description,omitempty" jsonschema_description:"Deployment description"`
	State       string `json:"state,omitempty" jsonschema_description:"Latest status: success or failure or error or inactive or in_progress or queued or pending"`
	StateAt     string `json:"stateAt,omitempty" jsonschema_description:"When the latest status was set (RFC 3339)"`
	StateNote   string `json:"stateNote,omitempty" jsonschema_description:"Latest status description"`
	URL         string `json:"url,omitempty" jsonschema_description:"Environment or log URL of the latest status"`
}

// DeploymentList is one page of deployments.
type DeploymentList struct {
	Deployments []Deployment `json:"deployments" jsonschema_description:"Deployments on this page, newest first"`
	Notes       []string     `json:"notes,omitempty" jsonschema_description:"Statuses that could not be read and why"`
	Page        int          `json:"page" jsonschema_description:"This page number"`
	NextPage    int          `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListDeployments lists deployments, newest first, each with its latest status (read
// a few at a time): what was deployed where, when, by whom, and how it went.
func (b *Backend) ListDeployments(ctx context.Context, in ListDeploymentsInput) (DeploymentList, error) {
	out := DeploymentList{Deployments: []Deployment{}}
	if in.PerPage > maxDeployments {
		return out, fmt.Errorf("perPage is %d; expected 1 to %d (omit it for %d): each deployment's status is one more request", in.PerPage, maxDeployments, defaultDeployments)
	}
	if in.PerPage == 0 {
		in.PerPage = defaultDeployments
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	if in.Ref != "" {
		if err := validateRef("ref", in.Ref); err != nil {
			return out, err
		}
	}
	if len(in.Environment) > 255 {
		return out, fmt.Errorf("environment is %d bytes; expected an environment name such as production", len(in.Environment))
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Repositories.ListDeployments(ctx, in.Owner, in.Repo, &gh.DeploymentsListOptions{
		Environment: in.Environment, Ref: in.Ref, ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list deployments of "+repoName(in.Owner, in.Repo))
	}
	out.Deployments = make([]Deployment, len(list))
	notes := make([]string, len(list))
	var wg sync.WaitGroup
	sem := make(chan struct{}, statusFetchers)
	for i, d := range list {
		out.Deployments[i] = Deployment{
			ID:          d.GetID(),
			Environment: name(d.GetEnvironment()),
			Ref:         name(d.GetRef()),
			SHA:         name(d.GetSHA()),
			Creator:     login(d.GetCreator()),
			CreatedAt:   ts(d.CreatedAt),
			Description: out.CleanField("a deployment description", d.GetDescription(), maxShortBytes),
		}
		wg.Add(1)
		go func(i int, id int64) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st, _, err := b.gh.Repositories.ListDeploymentStatuses(ctx, in.Owner, in.Repo, id, &gh.ListOptions{PerPage: 1})
			if err != nil {
				notes[i] = b.fail(err, fmt.Sprintf("status of deployment %d", id)).Error()
				return
			}
			if len(st) > 0 {
				dep := &out.Deployments[i]
				dep.State, dep.StateAt = name(st[0].GetState()), ts(st[0].CreatedAt)
				dep.StateNote, _ = mcpkit.CleanText(st[0].GetDescription(), maxShortBytes)
				dep.URL = name(st[0].GetEnvironmentURL())
				if dep.URL == "" {
					dep.URL = name(st[0].GetLogURL())
				}
			}
		}(i, d.GetID())
	}
	wg.Wait()
	for _, n := range notes {
		if n != "" {
			out.Notes = append(out.Notes, n)
		}
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "deployments")
	return out, nil
}

// EnvironmentInfo is one deployment environment and what guards it.
type EnvironmentInfo struct {
	Name       string   `json:"name" jsonschema_description:"Environment name"`
	Protection []string `json:"protection,omitempty" jsonschema_description:"Protection rules: required_reviewers, wait_timer (minutes), branch_policy"`
	UpdatedAt  string   `json:"updatedAt,omitempty" jsonschema_description:"Last change (RFC 3339)"`
	URL        string   `json:"url,omitempty" jsonschema_description:"Web page"`
}

// EnvironmentList is one page of environments.
type EnvironmentList struct {
	TotalCount   int               `json:"totalCount" jsonschema_description:"Environments in all pages"`
	Environments []EnvironmentInfo `json:"environments" jsonschema_description:"Environments on this page"`
	Page         int               `json:"page" jsonschema_description:"This page number"`
	NextPage     int               `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// ListEnvironments lists a repository's deployment environments with their
// protection rules.
func (b *Backend) ListEnvironments(ctx context.Context, in ListRepoInput) (EnvironmentList, error) {
	out := EnvironmentList{Environments: []EnvironmentInfo{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	res, resp, err := b.gh.Repositories.ListEnvironments(ctx, in.Owner, in.Repo, &gh.EnvironmentListOptions{ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list environments of "+repoName(in.Owner, in.Repo))
	}
	out.TotalCount = res.GetTotalCount()
	for _, e := range res.Environments {
		env := EnvironmentInfo{Name: name(e.GetName()), UpdatedAt: ts(e.UpdatedAt), URL: name(e.GetHTMLURL())}
		for _, r := range e.ProtectionRules {
			rule := name(r.GetType())
			if r.GetType() == "wait_timer" {
				rule = fmt.Sprintf("wait_timer (%d)", r.GetWaitTimer())
			}
			env.Protection = append(env.Protection, rule)
		}
		if e.DeploymentBranchPolicy != nil {
			env.Protection = append(env.Protection, "branch_policy")
		}
		out.Environments = append(out.Environments, env)
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "environments")
	return out, nil
}
