package github

import (
	"fmt"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Page sizes: GitHub's default is 30 and its maximum 100.
const (
	DefaultPerPage = 30
	MaxPerPage     = 100
)

// listOptions validates page/perPage (0 means the default) into go-github's options.
func listOptions(page, perPage int) (gh.ListOptions, error) {
	if page < 0 {
		return gh.ListOptions{}, fmt.Errorf("page is %d; expected 1 or more (omit it for the first page)", page)
	}
	if perPage < 0 || perPage > MaxPerPage {
		return gh.ListOptions{}, fmt.Errorf("perPage is %d; expected 1 to %d (omit it for %d)", perPage, MaxPerPage, DefaultPerPage)
	}
	if page == 0 {
		page = 1
	}
	if perPage == 0 {
		perPage = DefaultPerPage
	}
	return gh.ListOptions{Page: page, PerPage: perPage}, nil
}

// nextPage reads the next page from GitHub's Link header and, when there is one,
// marks the result truncated with an explicit hint naming it.
func nextPage(t *mcpkit.Truncation, resp *gh.Response, what string) int {
	if resp == nil || resp.NextPage == 0 {
		return 0
	}
	t.Cut(fmt.Sprintf("more %s: call again with page=%d", what, resp.NextPage))
	return resp.NextPage
}
