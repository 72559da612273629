package github

import (
	"context"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	maxFragmentsPerFile = 3
	maxFragmentBytes    = 600
)

// SearchCodeInput is a code search in GitHub's search syntax.
type SearchCodeInput struct {
	Query   string `json:"query" jsonschema_description:"Such as 'repo:octo/hello language:go ParseConfig'"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// CodeMatch is one file that matched, with a few matching fragments.
type CodeMatch struct {
	Repository string   `json:"repository" jsonschema_description:"owner/name of the repository"`
	Path       string   `json:"path" jsonschema_description:"File path"`
	SHA        string   `json:"sha,omitempty" jsonschema_description:"Blob SHA of the file"`
	URL        string   `json:"url" jsonschema_description:"Web page of the file"`
	Fragments  []string `json:"fragments,omitempty" jsonschema_description:"Matching text fragments (at most 3 per file)"`
}

// CodeSearchResult is one page of a code search.
type CodeSearchResult struct {
	TotalCount int         `json:"totalCount" jsonschema_description:"Number of matching files GitHub found in all pages (including any the allow-list hides)"`
	Items      []CodeMatch `json:"items" jsonschema_description:"Matches on this page"`
	Hidden     int         `json:"hiddenByAllowList,omitempty" jsonschema_description:"Results on this page left out because the server's repository allow-list excludes them"`
	Page       int         `json:"page" jsonschema_description:"This page number"`
	NextPage   int         `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more results"`
	mcpkit.Truncation
}

// SearchCode searches code. Results outside the allow-list are dropped from the page
// and counted in Hidden.
func (b *Backend) SearchCode(ctx context.Context, in SearchCodeInput) (CodeSearchResult, error) {
	out := CodeSearchResult{Items: []CodeMatch{}}
	opts, err := searchOptions(in.Query, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	opts.TextMatch = true
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	res, resp, err := b.gh.Search.Code(ctx, in.Query, opts)
	if err != nil {
		return out, b.fail(err, "search code")
	}
	out.TotalCount, out.Page = res.GetTotal(), opts.Page
	for _, r := range res.CodeResults {
		repo := r.GetRepository()
		if !b.allow.Allowed(repo.GetOwner().GetLogin(), repo.GetName()) {
			out.Hidden++
			continue
		}
		m := CodeMatch{Repository: name(repo.GetFullName()), Path: name(r.GetPath()), SHA: name(r.GetSHA()), URL: name(r.GetHTMLURL())}
		matches, cut := mcpkit.CapSlice(r.TextMatches, maxFragmentsPerFile)
		for _, tm := range matches {
			m.Fragments = append(m.Fragments, out.CleanField("a fragment", tm.GetFragment(), maxFragmentBytes))
		}
		if cut {
			out.Cut("more fragments matched than are shown; read the file for the rest")
		}
		out.Items = append(out.Items, m)
	}
	finishSearch(&out.Truncation, res.GetIncompleteResults())
	out.NextPage = nextPage(&out.Truncation, resp, "results")
	return out, nil
}
