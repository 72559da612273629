package github

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Who the token is, its teams, user and organization search, and gists.

// NoInput is the input of a tool that takes no arguments.
type NoInput struct{}

// Me is the token's user.
type Me struct {
	Login     string `json:"login" jsonschema_description:"Login"`
	Name      string `json:"name,omitempty" jsonschema_description:"Display name"`
	Type      string `json:"type" jsonschema_description:"User or Bot"`
	Company   string `json:"company,omitempty" jsonschema_description:"Company"`
	Email     string `json:"email,omitempty" jsonschema_description:"Public email"`
	SiteAdmin bool   `json:"siteAdmin,omitempty" jsonschema_description:"True for an Enterprise Server site administrator"`
	URL       string `json:"url" jsonschema_description:"Profile page"`
	mcpkit.Truncation
}

// GetMe returns the user the token belongs to.
func (b *Backend) GetMe(ctx context.Context, _ NoInput) (Me, error) {
	var out Me
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	u, _, err := b.gh.Users.Get(ctx, "")
	if err != nil {
		return out, b.fail(err, "get the token's user")
	}
	out = Me{Login: login(u), Type: name(u.GetType()), Email: name(u.GetEmail()), SiteAdmin: u.GetSiteAdmin(), URL: name(u.GetHTMLURL())}
	out.Name = out.CleanField("the name", u.GetName(), maxShortBytes)
	out.Company = out.CleanField("the company", u.GetCompany(), maxShortBytes)
	return out, nil
}

// Team is one team the token's user belongs to.
type Team struct {
	Org        string `json:"org" jsonschema_description:"Organization login"`
	Slug       string `json:"slug" jsonschema_description:"Team slug"`
	Name       string `json:"name" jsonschema_description:"Team name"`
	Permission string `json:"permission,omitempty" jsonschema_description:"Default repository permission"`
}

// TeamList is one page of teams.
type TeamList struct {
	Teams    []Team `json:"teams" jsonschema_description:"Teams on this page"`
	Page     int    `json:"page" jsonschema_description:"This page number"`
	NextPage int    `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// PageInput is a page of a list that needs nothing else.
type PageInput struct {
	Page    int `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// GetTeams lists the teams of the token's user, across organizations.
func (b *Backend) GetTeams(ctx context.Context, in PageInput) (TeamList, error) {
	out := TeamList{Teams: []Team{}}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.Teams.ListUserTeams(ctx, &lo)
	if err != nil {
		return out, b.fail(err, "list the token's teams")
	}
	for _, t := range list {
		out.Teams = append(out.Teams, Team{Org: name(t.GetOrganization().GetLogin()), Slug: name(t.GetSlug()),
			Name: out.CleanField("a team name", t.GetName(), maxTitleBytes), Permission: name(t.GetPermission())})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "teams")
	return out, nil
}

// SearchUsersInput is a user or organization search.
type SearchUsersInput struct {
	Query   string `json:"query" jsonschema_description:"Such as 'location:berlin language:go'"`
	Type    string `json:"type,omitempty" jsonschema:"enum=user,enum=org"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// UserHit is one user or organization a search found.
type UserHit struct {
	Login string `json:"login" jsonschema_description:"Login"`
	Type  string `json:"type" jsonschema_description:"User or Organization"`
	URL   string `json:"url" jsonschema_description:"Profile page"`
}

// UserSearchResult is one page of a user search.
type UserSearchResult struct {
	TotalCount int       `json:"totalCount" jsonschema_description:"Accounts found in all pages"`
	Items      []UserHit `json:"items" jsonschema_description:"Accounts on this page"`
	Page       int       `json:"page" jsonschema_description:"This page number"`
	NextPage   int       `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

// SearchUsers searches users, or organizations with type=org.
func (b *Backend) SearchUsers(ctx context.Context, in SearchUsersInput) (UserSearchResult, error) {
	out := UserSearchResult{Items: []UserHit{}}
	opts, err := searchOptions(in.Query, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	q := in.Query
	switch in.Type {
	case "":
	case "user", "org":
		q += " type:" + in.Type
	default:
		return out, fmt.Errorf("type %q is not user or org", clip(in.Type))
	}
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	res, resp, err := b.gh.Search.Users(ctx, q, opts)
	if err != nil {
		return out, b.fail(err, "search users")
	}
	out.TotalCount, out.Page = res.GetTotal(), opts.Page
	for _, u := range res.Users {
		out.Items = append(out.Items, UserHit{Login: login(u), Type: name(u.GetType()), URL: name(u.GetHTMLURL())})
	}
	finishSearch(&out.Truncation, res.GetIncompleteResults())
	out.NextPage = nextPage(&out.Truncation, resp, "accounts")
	return out, nil
}

// Gist caps: bytes of content per file and in total.
const (
	maxGistFileBytes  = 16 << 10
	maxGistTotalBytes = 48 << 10
)

// errGistsConfined refuses gists on a server confined to repositories: a gist belongs
// to no repository, so an allow-list cannot vouch for it.
var errGistsConfined = errors.New("gists are not available on a server confined with --repos: a gist belongs to no repository the allow-list could name")

// GistInput names a gist; no ID lists the token user's gists.
type GistInput struct {
	ID      string `json:"id,omitempty" jsonschema_description:"Omit to list your gists"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// GistFile is one file of a gist; its content only when one gist is read.
type GistFile struct {
	Name     string `json:"name" jsonschema_description:"File name"`
	Language string `json:"language,omitempty" jsonschema_description:"Language"`
	Size     int    `json:"size" jsonschema_description:"Size in bytes"`
	Content  string `json:"content,omitempty" jsonschema_description:"Content (capped)"`
	Cut      bool   `json:"cut,omitempty" jsonschema_description:"True when the content was cut"`
}

// Gist is one gist.
type Gist struct {
	ID          string     `json:"id" jsonschema_description:"Gist ID"`
	Description string     `json:"description,omitempty" jsonschema_description:"Description"`
	Public      bool       `json:"public" jsonschema_description:"True when public"`
	Owner       string     `json:"owner,omitempty" jsonschema_description:"Login of the owner"`
	UpdatedAt   string     `json:"updatedAt,omitempty" jsonschema_description:"Last update (RFC 3339)"`
	Files       []GistFile `json:"files" jsonschema_description:"Files"`
	URL         string     `json:"url" jsonschema_description:"Web page"`
}

// Gists is one gist with contents, or a page of the user's gists without.
type Gists struct {
	Gists    []Gist `json:"gists" jsonschema_description:"The gist, or gists on this page"`
	Page     int    `json:"page,omitempty" jsonschema_description:"This page number"`
	NextPage int    `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	mcpkit.Truncation
}

var gistID = regexp.MustCompile(`^[0-9a-fA-F]{1,64}$`)

// GetGists reads one gist (files with capped contents) or lists the token user's
// gists. On a server with an allow-list it refuses: gists are outside every
// repository.
func (b *Backend) GetGists(ctx context.Context, in GistInput) (Gists, error) {
	out := Gists{Gists: []Gist{}}
	if b.allow != nil {
		return out, errGistsConfined
	}
	if in.ID != "" && !gistID.MatchString(in.ID) {
		return out, fmt.Errorf("id %q is not a gist ID; expected the hex ID from a gist's URL", clip(in.ID))
	}
	lo, err := listOptions(in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	ctx, cancel, err := b.start(ctx, "", "")
	if err != nil {
		return out, err
	}
	defer cancel()
	if in.ID != "" {
		g, _, err := b.gh.Gists.Get(ctx, in.ID)
		if err != nil {
			return out, b.fail(err, "get gist "+in.ID)
		}
		out.Gists = append(out.Gists, b.gist(&out.Truncation, g, true))
		return out, nil
	}
	list, resp, err := b.gh.Gists.List(ctx, "", &gh.GistListOptions{ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list gists")
	}
	for _, g := range list {
		out.Gists = append(out.Gists, b.gist(&out.Truncation, g, false))
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "gists")
	return out, nil
}

func (b *Backend) gist(t *mcpkit.Truncation, g *gh.Gist, content bool) Gist {
	out := Gist{ID: name(g.GetID()), Description: t.CleanField("a gist description", g.GetDescription(), maxShortBytes), Public: g.GetPublic(),
		Owner: login(g.GetOwner()), UpdatedAt: ts(g.UpdatedAt), URL: name(g.GetHTMLURL()), Files: []GistFile{}}
	budget := maxGistTotalBytes
	// go-github gives the files as a map: read them in name order, so the content
	// budget is spent the same way every time.
	fnames := slices.Sorted(maps.Keys(g.Files))
	for _, fname := range fnames {
		f := g.Files[fname]
		gf := GistFile{Name: name(string(fname)), Language: name(f.GetLanguage()), Size: f.GetSize()}
		if content && f.GetContent() != "" {
			text, cut := mcpkit.CleanText(f.GetContent(), max(0, min(maxGistFileBytes, budget)))
			gf.Content, gf.Cut = text, cut
			budget -= len(text)
			if gf.Cut {
				t.Cut(fmt.Sprintf("the content of %s was cut; its raw URL has it whole", gf.Name))
			}
		}
		out.Files = append(out.Files, gf)
	}
	return out
}
