package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// RepoInput names one repository.
type RepoInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
}

// SearchRepositoriesInput is a repository search in GitHub's search syntax.
type SearchRepositoriesInput struct {
	Query   string `json:"query" jsonschema_description:"Such as 'mcp language:go stars:>100'"`
	Sort    string `json:"sort,omitempty" jsonschema:"enum=stars,enum=forks,enum=help-wanted-issues,enum=updated"`
	Order   string `json:"order,omitempty" jsonschema:"enum=asc,enum=desc"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// RepoSummary is one repository in a search result.
type RepoSummary struct {
	FullName    string `json:"fullName" jsonschema_description:"owner/name"`
	Description string `json:"description,omitempty" jsonschema_description:"Repository description"`
	Visibility  string `json:"visibility,omitempty" jsonschema_description:"public or private or internal"`
	Language    string `json:"language,omitempty" jsonschema_description:"Main language"`
	Stars       int    `json:"stars" jsonschema_description:"Stargazer count"`
	Archived    bool   `json:"archived,omitempty" jsonschema_description:"True when the repository is read-only archived"`
	Fork        bool   `json:"fork,omitempty" jsonschema_description:"True when the repository is a fork"`
	PushedAt    string `json:"pushedAt,omitempty" jsonschema_description:"Last push time (RFC 3339)"`
	URL         string `json:"url" jsonschema_description:"Web page of the repository"`
}

// RepoSearchResult is one page of a repository search.
type RepoSearchResult struct {
	TotalCount int           `json:"totalCount" jsonschema_description:"Number of repositories GitHub found in all pages (including any the allow-list hides)"`
	Items      []RepoSummary `json:"items" jsonschema_description:"Repositories on this page"`
	Hidden     int           `json:"hiddenByAllowList,omitempty" jsonschema_description:"Results on this page left out because the server's repository allow-list excludes them"`
	Page       int           `json:"page" jsonschema_description:"This page number"`
	NextPage   int           `json:"nextPage,omitempty" jsonschema_description:"Next page number when there are more results"`
	mcpkit.Truncation
}

// Repository describes one repository.
type Repository struct {
	FullName      string   `json:"fullName" jsonschema_description:"owner/name"`
	Description   string   `json:"description,omitempty" jsonschema_description:"Repository description"`
	Visibility    string   `json:"visibility" jsonschema_description:"public or private or internal"`
	DefaultBranch string   `json:"defaultBranch,omitempty" jsonschema_description:"Branch used when no ref is given"`
	Language      string   `json:"language,omitempty" jsonschema_description:"Main language"`
	Topics        []string `json:"topics,omitempty" jsonschema_description:"Repository topics"`
	License       string   `json:"license,omitempty" jsonschema_description:"SPDX license identifier"`
	Stars         int      `json:"stars" jsonschema_description:"Stargazer count"`
	Forks         int      `json:"forks" jsonschema_description:"Fork count"`
	OpenIssues    int      `json:"openIssues" jsonschema_description:"Open issues plus open pull requests"`
	Archived      bool     `json:"archived,omitempty" jsonschema_description:"True when the repository is read-only archived"`
	Fork          bool     `json:"fork,omitempty" jsonschema_description:"True when the repository is a fork"`
	Parent        string   `json:"parent,omitempty" jsonschema_description:"owner/name of the repository this one was forked from"`
	Homepage      string   `json:"homepage,omitempty" jsonschema_description:"Project home page"`
	PushedAt      string   `json:"pushedAt,omitempty" jsonschema_description:"Last push time (RFC 3339)"`
	URL           string   `json:"url" jsonschema_description:"Web page of the repository"`
	mcpkit.Truncation
}

// SearchRepositories runs a repository search. Results outside the allow-list are
// dropped from the page and counted in Hidden.
func (b *Backend) SearchRepositories(ctx context.Context, in SearchRepositoriesInput) (RepoSearchResult, error) {
	var out RepoSearchResult
	opts, err := searchOptions(in.Query, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	opts.Sort, opts.Order = in.Sort, in.Order
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	res, resp, err := b.gh.Search.Repositories(ctx, in.Query, opts)
	if err != nil {
		return out, b.fail(err, "search repositories")
	}
	out.TotalCount, out.Page = res.GetTotal(), opts.Page
	out.Items = []RepoSummary{}
	for _, r := range res.Repositories {
		if !b.allow.Allowed(r.GetOwner().GetLogin(), r.GetName()) {
			out.Hidden++
			continue
		}
		out.Items = append(out.Items, RepoSummary{
			FullName:    name(r.GetFullName()),
			Description: out.CleanField("a description", r.GetDescription(), maxShortBytes),
			Visibility:  visibility(r),
			Language:    name(r.GetLanguage()),
			Stars:       r.GetStargazersCount(),
			Archived:    r.GetArchived(),
			Fork:        r.GetFork(),
			PushedAt:    ts(r.PushedAt),
			URL:         name(r.GetHTMLURL()),
		})
	}
	finishSearch(&out.Truncation, res.GetIncompleteResults())
	out.NextPage = nextPage(&out.Truncation, resp, "repositories")
	return out, nil
}

// GetRepository returns one repository's description.
func (b *Backend) GetRepository(ctx context.Context, in RepoInput) (Repository, error) {
	var out Repository
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	r, _, err := b.gh.Repositories.Get(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, b.fail(err, "get repository "+repoName(in.Owner, in.Repo))
	}
	out = Repository{
		FullName:      name(r.GetFullName()),
		Visibility:    visibility(r),
		DefaultBranch: name(r.GetDefaultBranch()),
		Language:      name(r.GetLanguage()),
		License:       name(r.GetLicense().GetSPDXID()),
		Stars:         r.GetStargazersCount(),
		Forks:         r.GetForksCount(),
		OpenIssues:    r.GetOpenIssuesCount(),
		Archived:      r.GetArchived(),
		Fork:          r.GetFork(),
		Parent:        name(r.GetParent().GetFullName()),
		PushedAt:      ts(r.PushedAt),
		URL:           name(r.GetHTMLURL()),
	}
	out.Description = out.CleanField("the description", r.GetDescription(), maxShortBytes)
	out.Homepage = out.CleanField("the homepage", r.GetHomepage(), maxShortBytes)
	for _, t := range r.Topics {
		out.Topics = append(out.Topics, name(t))
	}
	return out, nil
}

func visibility(r *gh.Repository) string {
	if v := r.GetVisibility(); v != "" {
		return name(v)
	}
	if r.GetPrivate() {
		return "private"
	}
	return "public"
}

// searchOptions validates what every search takes.
func searchOptions(query string, page, perPage int) (*gh.SearchOptions, error) {
	if query == "" {
		return nil, fmt.Errorf("query is empty; expected GitHub search syntax such as 'repo:octo/hello is:open bug'")
	}
	if len(query) > 1024 {
		return nil, fmt.Errorf("query is %d bytes; GitHub accepts at most 256 characters of search text plus qualifiers (keep it under 1024 bytes)", len(query))
	}
	lo, err := listOptions(page, perPage)
	if err != nil {
		return nil, err
	}
	return &gh.SearchOptions{ListOptions: lo}, nil
}

// finishSearch marks partial search results. Results hidden by the allow-list are
// not truncation (no call can get them) and are counted in hiddenByAllowList instead.
func finishSearch(t *mcpkit.Truncation, incomplete bool) {
	if incomplete {
		t.Cut("GitHub's search timed out and returned partial results; narrow the query")
	}
}
