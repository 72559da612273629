package github

import (
	"context"
	"fmt"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Discussions are GraphQL only.

const (
	discussionsPerPage   = 25
	discussionComments   = 30
	discussionsQueryText = `query Discussions($owner: String!, $repo: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    discussions(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes { number title updatedAt url isAnswered closed category { name } author { login } comments { totalCount } }
    }
  }
}`
	discussionQueryText = `query Discussion($owner: String!, $repo: String!, $number: Int!, $comments: Int!) {
  repository(owner: $owner, name: $repo) {
    discussion(number: $number) {
      number title body url createdAt closed isAnswered category { name } author { login } authorAssociation
      comments(first: $comments) {
        totalCount
        nodes { databaseId author { login } authorAssociation body createdAt isAnswer replies { totalCount } }
      }
    }
  }
}`
)

// ListDiscussionsInput names a repository and, to go on, a page cursor.
type ListDiscussionsInput struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	After string `json:"after,omitempty" jsonschema_description:"nextCursor of the previous page"`
}

// DiscussionSummary is one discussion in a list.
type DiscussionSummary struct {
	Number    int    `json:"number" jsonschema_description:"Discussion number"`
	Title     string `json:"title" jsonschema_description:"Title"`
	Category  string `json:"category,omitempty" jsonschema_description:"Category"`
	Author    string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Answered  bool   `json:"answered,omitempty" jsonschema_description:"True when an answer was chosen"`
	Closed    bool   `json:"closed,omitempty" jsonschema_description:"True when closed"`
	Comments  int    `json:"comments" jsonschema_description:"Number of comments"`
	UpdatedAt string `json:"updatedAt,omitempty" jsonschema_description:"Last update (RFC 3339)"`
	URL       string `json:"url" jsonschema_description:"Web page"`
}

// DiscussionList is one page of discussions, most recently updated first.
type DiscussionList struct {
	Total       int                 `json:"total" jsonschema_description:"Discussions in the repository"`
	Discussions []DiscussionSummary `json:"discussions" jsonschema_description:"Discussions on this page"`
	NextCursor  string              `json:"nextCursor,omitempty" jsonschema_description:"Pass as after for the next page"`
	mcpkit.Truncation
}

// ListDiscussions lists a repository's discussions, most recently updated first.
func (b *Backend) ListDiscussions(ctx context.Context, in ListDiscussionsInput) (DiscussionList, error) {
	out := DiscussionList{Discussions: []DiscussionSummary{}}
	if in.After != "" && !cursorPattern.MatchString(in.After) {
		return out, fmt.Errorf("after %q is not a page cursor; pass nextCursor from the previous page", clip(in.After))
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	vars := map[string]any{"owner": in.Owner, "repo": in.Repo, "first": discussionsPerPage, "after": nil}
	if in.After != "" {
		vars["after"] = in.After
	}
	var data struct {
		Repository *struct {
			Discussions struct {
				TotalCount int `json:"totalCount"`
				PageInfo   struct {
					HasNextPage bool   `json:"hasNextPage"`
					EndCursor   string `json:"endCursor"`
				} `json:"pageInfo"`
				Nodes []struct {
					Number     int    `json:"number"`
					Title      string `json:"title"`
					UpdatedAt  string `json:"updatedAt"`
					URL        string `json:"url"`
					IsAnswered bool   `json:"isAnswered"`
					Closed     bool   `json:"closed"`
					Category   struct {
						Name string `json:"name"`
					} `json:"category"`
					Author   *struct{ Login string } `json:"author"`
					Comments struct {
						TotalCount int `json:"totalCount"`
					} `json:"comments"`
				} `json:"nodes"`
			} `json:"discussions"`
		} `json:"repository"`
	}
	what := "list discussions of " + repoName(in.Owner, in.Repo)
	if err := b.graphQL(ctx, what, discussionsQueryText, vars, &data, false); err != nil {
		return out, err
	}
	if data.Repository == nil {
		return out, &apiError{msg: what + ": not found on GitHub; check the owner and repository"}
	}
	d := data.Repository.Discussions
	out.Total = d.TotalCount
	for _, n := range d.Nodes {
		s := DiscussionSummary{Number: n.Number, Title: out.CleanField("a discussion title", n.Title, maxTitleBytes), Category: name(n.Category.Name),
			Answered: n.IsAnswered, Closed: n.Closed, Comments: n.Comments.TotalCount, UpdatedAt: name(n.UpdatedAt), URL: name(n.URL)}
		if n.Author != nil {
			s.Author = name(n.Author.Login)
		}
		out.Discussions = append(out.Discussions, s)
	}
	if d.PageInfo.HasNextPage {
		out.NextCursor = name(d.PageInfo.EndCursor)
		out.Cut("more discussions: call again with after=" + out.NextCursor)
	}
	return out, nil
}

// DiscussionComment is one top-level comment of a discussion.
type DiscussionComment struct {
	ID        int64  `json:"id" jsonschema_description:"Comment ID"`
	Author    string `json:"author,omitempty" jsonschema_description:"Login of the author"`
	CreatedAt string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	Answer    bool   `json:"answer,omitempty" jsonschema_description:"True for the chosen answer"`
	Replies   int    `json:"replies,omitempty" jsonschema_description:"Replies to it"`
	Body      string `json:"body" jsonschema_description:"Comment text (capped at 8 KiB)"`
	Hidden    bool   `json:"hidden,omitempty" jsonschema_description:"True when lockdown mode replaced the text with a notice"`
}

// Discussion is one discussion with its first comments.
type Discussion struct {
	Number     int                 `json:"number" jsonschema_description:"Discussion number"`
	Title      string              `json:"title" jsonschema_description:"Title"`
	Category   string              `json:"category,omitempty" jsonschema_description:"Category"`
	Author     string              `json:"author,omitempty" jsonschema_description:"Login of the author"`
	Answered   bool                `json:"answered,omitempty" jsonschema_description:"True when an answer was chosen"`
	Closed     bool                `json:"closed,omitempty" jsonschema_description:"True when closed"`
	CreatedAt  string              `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	URL        string              `json:"url" jsonschema_description:"Web page"`
	Body       string              `json:"body" jsonschema_description:"Text (capped at 16 KiB)"`
	BodyHidden bool                `json:"bodyHidden,omitempty" jsonschema_description:"True when lockdown mode replaced the body with a notice"`
	Comments   []DiscussionComment `json:"comments" jsonschema_description:"The first 30 comments"`
	Lockdown   int                 `json:"hiddenByLockdown,omitempty" jsonschema_description:"Texts lockdown mode hid"`
	mcpkit.Truncation
}

// GetDiscussionInput names a discussion.
type GetDiscussionInput struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number" jsonschema:"minimum=1"`
}

// GetDiscussion reads a discussion and its first comments; under lockdown the text
// of users without push access is hidden.
func (b *Backend) GetDiscussion(ctx context.Context, in GetDiscussionInput) (Discussion, error) {
	out := Discussion{Comments: []DiscussionComment{}}
	if in.Number < 1 {
		return out, fmt.Errorf("number is %d; expected a discussion number of 1 or more", in.Number)
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	type person struct{ Login string }
	var data struct {
		Repository *struct {
			Discussion *struct {
				Number            int     `json:"number"`
				Title             string  `json:"title"`
				Body              string  `json:"body"`
				URL               string  `json:"url"`
				CreatedAt         string  `json:"createdAt"`
				Closed            bool    `json:"closed"`
				IsAnswered        bool    `json:"isAnswered"`
				Author            *person `json:"author"`
				AuthorAssociation string  `json:"authorAssociation"`
				Category          struct {
					Name string `json:"name"`
				} `json:"category"`
				Comments struct {
					TotalCount int `json:"totalCount"`
					Nodes      []struct {
						DatabaseID        int64   `json:"databaseId"`
						Author            *person `json:"author"`
						AuthorAssociation string  `json:"authorAssociation"`
						Body              string  `json:"body"`
						CreatedAt         string  `json:"createdAt"`
						IsAnswer          bool    `json:"isAnswer"`
						Replies           struct {
							TotalCount int `json:"totalCount"`
						} `json:"replies"`
					} `json:"nodes"`
				} `json:"comments"`
			} `json:"discussion"`
		} `json:"repository"`
	}
	what := fmt.Sprintf("get discussion %s#%d", repoName(in.Owner, in.Repo), in.Number)
	vars := map[string]any{"owner": in.Owner, "repo": in.Repo, "number": in.Number, "comments": discussionComments}
	if err := b.graphQL(ctx, what, discussionQueryText, vars, &data, false); err != nil {
		return out, err
	}
	if data.Repository == nil || data.Repository.Discussion == nil {
		return out, &apiError{msg: what + ": not found on GitHub; check the owner, repository and discussion number"}
	}
	d := data.Repository.Discussion
	filter := b.filterFor(ctx, in.Owner, in.Repo)
	login := func(p *person) string {
		if p == nil {
			return ""
		}
		return name(p.Login)
	}
	out.Number, out.Title, out.Category = d.Number, out.CleanField("the title", d.Title, maxTitleBytes), name(d.Category.Name)
	out.Author, out.Answered, out.Closed, out.CreatedAt, out.URL = login(d.Author), d.IsAnswered, d.Closed, name(d.CreatedAt), name(d.URL)
	body, hidden := filter.text(ctx, out.Author, d.AuthorAssociation, "discussion body", d.Body)
	out.Body, out.BodyHidden = out.CleanField("the discussion body", body, maxBodyBytes), hidden
	for _, c := range d.Comments.Nodes {
		dc := DiscussionComment{ID: c.DatabaseID, Author: login(c.Author), CreatedAt: name(c.CreatedAt), Answer: c.IsAnswer, Replies: c.Replies.TotalCount}
		text, hidden := filter.text(ctx, dc.Author, c.AuthorAssociation, "comment", c.Body)
		dc.Body, dc.Hidden = out.CleanField(fmt.Sprintf("comment %d", dc.ID), text, maxCommentBytes), hidden
		out.Comments = append(out.Comments, dc)
	}
	if d.Comments.TotalCount > len(d.Comments.Nodes) {
		out.Cut(fmt.Sprintf("the first %d of %d comments are shown; read the rest on the web page", len(d.Comments.Nodes), d.Comments.TotalCount))
	}
	out.Lockdown = filter.count()
	return out, nil
}
