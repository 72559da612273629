package github

import (
	"context"
	"fmt"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Blame windows: the lines one call covers by default, and at most.
const (
	defaultBlameLines = 200
	maxBlameLines     = 2000
)

// blameQuery asks for the blame of one file at one commit. REST has no blame.
const blameQuery = `query Blame($owner: String!, $repo: String!, $expr: String!, $path: String!) {
  repository(owner: $owner, name: $repo) {
    object(expression: $expr) {
      ... on Commit {
        oid
        blame(path: $path) {
          ranges {
            startingLine
            endingLine
            commit { oid messageHeadline committedDate author { name user { login } } }
          }
        }
      }
    }
  }
}`

// BlameInput names a file, a ref and a range of its lines.
type BlameInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	Path      string `json:"path"`
	Ref       string `json:"ref,omitempty"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"minimum=1"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"minimum=1"`
}

// BlameRange is a run of lines last changed by one commit.
type BlameRange struct {
	StartLine int    `json:"startLine" jsonschema_description:"First line of the run"`
	EndLine   int    `json:"endLine" jsonschema_description:"Last line of the run"`
	SHA       string `json:"sha" jsonschema_description:"Commit that last changed these lines"`
	Author    string `json:"author,omitempty" jsonschema_description:"GitHub login or else git author name"`
	Date      string `json:"date,omitempty" jsonschema_description:"Commit time (RFC 3339)"`
	Message   string `json:"message,omitempty" jsonschema_description:"First line of the commit message"`
}

// Blame is who last changed each line of a window of a file.
type Blame struct {
	Path      string       `json:"path" jsonschema_description:"File path"`
	Commit    string       `json:"commit" jsonschema_description:"SHA of the commit the ref named"`
	StartLine int          `json:"startLine" jsonschema_description:"First line covered"`
	EndLine   int          `json:"endLine" jsonschema_description:"Last line covered"`
	Lines     int          `json:"lines" jsonschema_description:"Lines in the file"`
	Ranges    []BlameRange `json:"ranges" jsonschema_description:"Runs of lines by commit, in line order"`
	mcpkit.Truncation
}

// blameData is the part of the answer blameQuery decodes.
type blameData struct {
	Repository *struct {
		Object *struct {
			OID   string `json:"oid"`
			Blame *struct {
				Ranges []struct {
					StartingLine int `json:"startingLine"`
					EndingLine   int `json:"endingLine"`
					Commit       struct {
						OID             string `json:"oid"`
						MessageHeadline string `json:"messageHeadline"`
						CommittedDate   string `json:"committedDate"`
						Author          struct {
							Name string `json:"name"`
							User *struct {
								Login string `json:"login"`
							} `json:"user"`
						} `json:"author"`
					} `json:"commit"`
				} `json:"ranges"`
			} `json:"blame"`
		} `json:"object"`
	} `json:"repository"`
}

// GetBlame returns, for lines startLine to endLine of a file at ref (the default
// branch's head when empty), the commits that last changed them: one range per run
// of lines, with commit, author, time and message.
func (b *Backend) GetBlame(ctx context.Context, in BlameInput) (Blame, error) {
	out := Blame{Ranges: []BlameRange{}}
	path, err := validatePath(in.Path)
	if err != nil {
		return out, err
	}
	if path == "" {
		return out, fmt.Errorf("path is empty; expected a file path such as src/main.go")
	}
	expr := "HEAD"
	if in.Ref != "" {
		if err := validateRef("ref", in.Ref); err != nil {
			return out, err
		}
		expr = in.Ref
	}
	start, end := max(in.StartLine, 1), in.EndLine
	switch {
	case in.StartLine < 0 || in.EndLine < 0:
		return out, fmt.Errorf("startLine and endLine are 1-based line numbers; got %d and %d", in.StartLine, in.EndLine)
	case end == 0:
		end = start + defaultBlameLines - 1
	case end < start:
		return out, fmt.Errorf("endLine %d is before startLine %d; expected startLine <= endLine", end, start)
	case end-start+1 > maxBlameLines:
		return out, fmt.Errorf("lines %d-%d are %d lines; one call covers at most %d", start, end, end-start+1, maxBlameLines)
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("blame %s at %s in %s", path, expr, repoName(in.Owner, in.Repo))
	var data blameData
	if err := b.graphQL(ctx, what, blameQuery, map[string]any{"owner": in.Owner, "repo": in.Repo, "expr": expr, "path": path}, &data, false); err != nil {
		return out, err
	}
	if data.Repository == nil || data.Repository.Object == nil || data.Repository.Object.Blame == nil {
		return out, &apiError{msg: fmt.Sprintf("%s: not found on GitHub; check the ref and that the path names a file", what)}
	}
	obj := data.Repository.Object
	out.Path, out.Commit = name(path), name(obj.OID)
	for _, r := range obj.Blame.Ranges {
		out.Lines = max(out.Lines, r.EndingLine)
		lo, hi := max(r.StartingLine, start), min(r.EndingLine, end)
		if lo > hi {
			continue
		}
		c := r.Commit
		author := name(c.Author.Name)
		if c.Author.User != nil && c.Author.User.Login != "" {
			author = name(c.Author.User.Login)
		}
		out.Ranges = append(out.Ranges, BlameRange{
			StartLine: lo, EndLine: hi, SHA: name(c.OID), Author: author, Date: name(c.CommittedDate),
			Message: out.CleanField("a commit message", c.MessageHeadline, maxTitleBytes),
		})
	}
	if start > out.Lines {
		return out, fmt.Errorf("startLine %d is past the end of %s, which has %d lines", start, path, out.Lines)
	}
	out.StartLine, out.EndLine = start, min(end, out.Lines)
	if out.EndLine < out.Lines {
		out.Cut(fmt.Sprintf("lines %d-%d of %d shown: call again with startLine=%d for more", out.StartLine, out.EndLine, out.Lines, out.EndLine+1))
	}
	return out, nil
}
