package github

import (
	"context"
	"fmt"
	"regexp"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// reviewThreadsQuery reads a page of a pull request's review threads with their
// first comments. REST lists review comments but not threads, nor whether a thread
// is resolved.
const reviewThreadsQuery = `query ReviewThreads($owner: String!, $repo: String!, $number: Int!, $first: Int!, $after: String, $comments: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine startLine
          resolvedBy { login }
          comments(first: $comments) {
            totalCount
            nodes { databaseId author { login } authorAssociation body createdAt }
          }
        }
      }
    }
  }
}`

// ReviewThreadsInput names a pull request and, to go on, the cursor of the next page.
type ReviewThreadsInput struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number" jsonschema:"minimum=1"`
	After  string `json:"after,omitempty" jsonschema_description:"nextCursor of the previous page"`
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	ID        int64  `json:"id" jsonschema_description:"Comment ID"`
	Author    string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	CreatedAt string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	Body      string `json:"body" jsonschema_description:"Comment text (capped at 8 KiB)"`
	Hidden    bool   `json:"hidden,omitempty" jsonschema_description:"True when lockdown mode replaced the text with a notice"`
}

// ReviewThread is one inline review thread: where it is, its state and comments.
type ReviewThread struct {
	ID         string          `json:"id" jsonschema_description:"Thread node ID"`
	Path       string          `json:"path" jsonschema_description:"File the thread is on"`
	Line       int             `json:"line,omitempty" jsonschema_description:"Line in the current diff (absent when outdated)"`
	StartLine  int             `json:"startLine,omitempty" jsonschema_description:"First line of a multi-line thread"`
	OrigLine   int             `json:"originalLine,omitempty" jsonschema_description:"Line when the thread was started"`
	Resolved   bool            `json:"resolved" jsonschema_description:"True when resolved"`
	ResolvedBy string          `json:"resolvedBy,omitempty" jsonschema_description:"Who resolved it"`
	Outdated   bool            `json:"outdated" jsonschema_description:"True when the code it is on has changed since"`
	Comments   []ThreadComment `json:"comments" jsonschema_description:"Comments, oldest first; at most 20"`
	More       int             `json:"moreComments,omitempty" jsonschema_description:"Comments left out past the first 20"`
}

// ReviewThreadList is one page of a pull request's review threads.
type ReviewThreadList struct {
	Total      int            `json:"total" jsonschema_description:"Threads on the pull request"`
	Unresolved int            `json:"unresolved" jsonschema_description:"Unresolved threads on this page"`
	Threads    []ReviewThread `json:"threads" jsonschema_description:"Threads on this page"`
	NextCursor string         `json:"nextCursor,omitempty" jsonschema_description:"Pass as after for the next page"`
	Lockdown   int            `json:"hiddenByLockdown,omitempty" jsonschema_description:"Comments lockdown mode hid"`
	mcpkit.Truncation
}

type reviewThreadsData struct {
	Repository *struct {
		PullRequest *struct {
			ReviewThreads struct {
				TotalCount int `json:"totalCount"`
				PageInfo   struct {
					HasNextPage bool   `json:"hasNextPage"`
					EndCursor   string `json:"endCursor"`
				} `json:"pageInfo"`
				Nodes []struct {
					ID           string `json:"id"`
					IsResolved   bool   `json:"isResolved"`
					IsOutdated   bool   `json:"isOutdated"`
					Path         string `json:"path"`
					Line         int    `json:"line"`
					OriginalLine int    `json:"originalLine"`
					StartLine    int    `json:"startLine"`
					ResolvedBy   *struct {
						Login string `json:"login"`
					} `json:"resolvedBy"`
					Comments struct {
						TotalCount int `json:"totalCount"`
						Nodes      []struct {
							DatabaseID int64 `json:"databaseId"`
							Author     *struct {
								Login string `json:"login"`
							} `json:"author"`
							AuthorAssociation string `json:"authorAssociation"`
							Body              string `json:"body"`
							CreatedAt         string `json:"createdAt"`
						} `json:"nodes"`
					} `json:"comments"`
				} `json:"nodes"`
			} `json:"reviewThreads"`
		} `json:"pullRequest"`
	} `json:"repository"`
}

// cursorPattern is what a GraphQL page cursor looks like (base64); anything else is
// refused before it is sent.
var cursorPattern = regexp.MustCompile(`^[A-Za-z0-9+/=_:-]{1,200}$`)

// GetReviewThreads lists a page of a pull request's review threads, each with its
// path, line, resolved and outdated state and first comments; under lockdown the
// comments of users without push access are hidden.
func (b *Backend) GetReviewThreads(ctx context.Context, in ReviewThreadsInput) (ReviewThreadList, error) {
	out := ReviewThreadList{Threads: []ReviewThread{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected a pull request number of 1 or more", in.Number)
	}
	if in.After != "" && !cursorPattern.MatchString(in.After) {
		return out, fmt.Errorf("after %q is not a page cursor; pass nextCursor from the previous page", clip(in.After))
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	vars := map[string]any{"owner": in.Owner, "repo": in.Repo, "number": in.Number, "first": reviewThreadsPerPage, "comments": commentsPerThread, "after": nil}
	if in.After != "" {
		vars["after"] = in.After
	}
	what := fmt.Sprintf("list review threads of %s#%d", repoName(in.Owner, in.Repo), in.Number)
	var data reviewThreadsData
	if err := b.graphQL(ctx, what, reviewThreadsQuery, vars, &data, false); err != nil {
		return out, err
	}
	if data.Repository == nil || data.Repository.PullRequest == nil {
		return out, &apiError{msg: what + ": not found on GitHub; check the owner, repository and pull request number"}
	}
	filter := b.filterFor(ctx, in.Owner, in.Repo)
	rt := data.Repository.PullRequest.ReviewThreads
	out.Total = rt.TotalCount
	for _, n := range rt.Nodes {
		th := ReviewThread{ID: name(n.ID), Path: name(n.Path), Line: n.Line, StartLine: n.StartLine, OrigLine: n.OriginalLine,
			Resolved: n.IsResolved, Outdated: n.IsOutdated, Comments: []ThreadComment{}}
		if n.ResolvedBy != nil {
			th.ResolvedBy = name(n.ResolvedBy.Login)
		}
		if !n.IsResolved {
			out.Unresolved++
		}
		for _, c := range n.Comments.Nodes {
			tc := ThreadComment{ID: c.DatabaseID, CreatedAt: name(c.CreatedAt)}
			if c.Author != nil {
				tc.Author = name(c.Author.Login)
			}
			text, hidden := filter.text(ctx, tc.Author, c.AuthorAssociation, "review comment", c.Body)
			tc.Body, tc.Hidden = out.CleanField(fmt.Sprintf("review comment %d", tc.ID), text, maxCommentBytes), hidden
			th.Comments = append(th.Comments, tc)
		}
		if more := n.Comments.TotalCount - len(n.Comments.Nodes); more > 0 {
			th.More = more
			out.Cut(fmt.Sprintf("threads show their first %d comments (moreComments counts the rest); read the conversation on the web page", commentsPerThread))
		}
		out.Threads = append(out.Threads, th)
	}
	if rt.PageInfo.HasNextPage {
		out.NextCursor = name(rt.PageInfo.EndCursor)
		out.Truncation = mcpkit.Truncation{}
		out.Cut("more threads: call again with after=" + out.NextCursor)
	}
	out.Lockdown = filter.count()
	return out, nil
}
