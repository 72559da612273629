package errorserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// IssueURITemplate is the resource template of one issue.
const IssueURITemplate = "errors://issues/{issueId}"

const (
	issueURIPrefix = "errors://issues/"
	// Resources carry a short latest event: the full one is get_event's job.
	resourceMaxFrames      = 10
	resourceMaxBreadcrumbs = 5
	// resourcesListed bounds resources/list to the most recently seen issues.
	resourcesListed = 20
)

// IssueURI is the resource URI of an issue.
func IssueURI(issueID string) string { return issueURIPrefix + issueID }

// IssueResource is what an issue resource holds: the issue with its top tags and a
// summary of its latest event.
type IssueResource struct {
	Issue       *backend.IssueDetail `json:"issue"`
	LatestEvent *backend.Event       `json:"latestEvent,omitempty"`
	// LatestEventError says why the latest event is missing (for example it was
	// dropped by retention or Sentry failed to return it).
	LatestEventError string `json:"latestEventError,omitempty"`
}

// addIssueResource registers errors://issues/{issueId} and lists the most recently
// seen issues as resources, so a host can offer them for attaching.
func addIssueResource(s *mcpkit.Server, b backend.Backend) {
	s.AddResourceTemplate(&mcpkit.ResourceTemplate{
		URITemplate: IssueURITemplate,
		Name:        "issue",
		Title:       "Error issue",
		Description: "One issue as JSON: its details with top tag values and a summary of its latest event (10 frames, 5 breadcrumbs; get_event gives more).",
		MIMEType:    "application/json",
	}, func(ctx context.Context, _ *mcpkit.Request, uri string, vars map[string]string) (*mcpkit.ReadResourceResult, error) {
		id := vars["issueId"]
		if err := backend.CheckID("issueId", id); err != nil {
			return nil, mcpkit.InvalidParams("%v; expected %s", err, IssueURITemplate)
		}
		text, err := issueResourceJSON(ctx, b, id)
		if err != nil {
			return nil, resourceError(uri, err)
		}
		return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{mcpkit.TextContents(uri, "application/json", text)}}, nil
	})
	s.SetResourceLister(func(ctx context.Context, _ *mcpkit.Request, cursor string) ([]mcpkit.Resource, string, error) {
		if cursor != "" {
			return nil, "", mcpkit.InvalidParams("invalid cursor: resources/list has one page of issues")
		}
		list, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Limit: resourcesListed})
		if err != nil {
			return nil, "", mcpkit.Errorf(mcpkit.CodeInternalError, "listing recent issues: %v", err)
		}
		out := make([]mcpkit.Resource, 0, len(list.Issues))
		for _, is := range list.Issues {
			out = append(out, issueResourceEntry(is))
		}
		return out, "", nil
	})
}

// issueResourceEntry describes an issue in resources/list. The title comes from the
// event data and was sanitised by the view layer like every result.
func issueResourceEntry(is backend.Issue) mcpkit.Resource {
	name := is.ShortID
	if name == "" {
		name = is.ID
	}
	desc := fmt.Sprintf("%d events", is.Count)
	if is.Level != "" {
		desc = is.Level + ", " + desc
	}
	if is.LastSeen != "" {
		desc += ", last seen " + is.LastSeen
	}
	if is.Project != "" {
		desc += ", project " + is.Project
	}
	return mcpkit.Resource{URI: IssueURI(is.ID), Name: name, Title: is.Title, Description: desc, MIMEType: "application/json"}
}

// issueResourceJSON loads an issue and its latest event as compact JSON. A missing
// latest event does not fail the read: the issue itself is still worth showing.
func issueResourceJSON(ctx context.Context, b backend.Backend, id string) (string, error) {
	detail, err := b.GetIssue(ctx, backend.GetIssueInput{IssueID: id})
	if err != nil {
		return "", err
	}
	res := IssueResource{Issue: detail}
	ev, err := b.GetEvent(ctx, backend.GetEventInput{IssueID: detail.ID, EventID: "latest", MaxFrames: resourceMaxFrames, MaxBreadcrumbs: resourceMaxBreadcrumbs})
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		res.LatestEventError = err.Error()
	} else {
		res.LatestEvent = ev
	}
	return mcpkit.JSONText(res)
}

// resourceError maps a backend failure to the protocol error of a resource read: an
// unknown issue is "resource not found", bad input is invalid params, and the rest
// keep the backend's message.
func resourceError(uri string, err error) error {
	switch {
	case errors.Is(err, backend.ErrNotFound):
		return mcpkit.ResourceNotFound(uri)
	case errors.Is(err, backend.ErrInvalidInput):
		return mcpkit.InvalidParams("%v", err)
	}
	return mcpkit.Errorf(mcpkit.CodeInternalError, "%s", strings.TrimSpace(err.Error()))
}
