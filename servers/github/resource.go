package github

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// FileURITemplate is the resource template for file contents.
//
// URI form: repo://OWNER/REPO/PATH or repo://OWNER/REPO/PATH@REF.
//
//   - PATH is the file or directory path from the repository root; an empty PATH
//     (repo://OWNER/REPO/) is the root directory.
//   - REF (branch, tag or commit SHA; it may contain '/') follows the last '@' that is
//     not at the start of a path segment. So repo://o/r/src/main.go@v1.2.0 reads
//     src/main.go at v1.2.0, and repo://o/r/node_modules/@types/x/index.d.ts has no
//     ref (an '@' opening a segment, as in npm scopes, belongs to the path).
//   - A literal '@' inside a file name, '?', '#' and '%' are written percent-encoded
//     (%40, %3F, %23, %25); PATH and REF are percent-decoded after the split.
const FileURITemplate = "repo://{owner}/{repo}/{+path}"

// RepoFile is a parsed repo:// URI.
type RepoFile struct {
	Owner, Repo, Path, Ref string
}

// ParseRepoURI parses a repo:// URI (see FileURITemplate).
func ParseRepoURI(uri string) (RepoFile, error) {
	rest, ok := strings.CutPrefix(uri, "repo://")
	if !ok {
		return RepoFile{}, fmt.Errorf("URI %q does not start with repo://; expected repo://OWNER/REPO/PATH[@REF]", clip(uri))
	}
	if strings.ContainsAny(rest, "?#") {
		return RepoFile{}, fmt.Errorf("URI %q has a query or fragment; percent-encode '?' as %%3F and '#' as %%23 in paths", clip(uri))
	}
	owner, rest, ok1 := strings.Cut(rest, "/")
	repo, p, ok2 := strings.Cut(rest, "/")
	if !ok1 || !ok2 {
		return RepoFile{}, fmt.Errorf("URI %q has no path part; expected repo://OWNER/REPO/PATH[@REF] (repo://OWNER/REPO/ for the root)", clip(uri))
	}
	var f RepoFile
	f.Owner, f.Repo = owner, repo
	if i := refSeparator(p); i >= 0 {
		p, f.Ref = p[:i], p[i+1:]
		if f.Ref == "" {
			return RepoFile{}, fmt.Errorf("URI %q ends with '@' but names no ref; expected PATH@REF such as README.md@main", clip(uri))
		}
	}
	var err error
	if f.Path, err = url.PathUnescape(p); err != nil {
		return RepoFile{}, fmt.Errorf("URI %q has a bad percent-escape in its path: %v", clip(uri), err)
	}
	if f.Ref, err = url.PathUnescape(f.Ref); err != nil {
		return RepoFile{}, fmt.Errorf("URI %q has a bad percent-escape in its ref: %v", clip(uri), err)
	}
	if err := validateRepo(f.Owner, f.Repo); err != nil {
		return RepoFile{}, err
	}
	if f.Path, err = validatePath(f.Path); err != nil {
		return RepoFile{}, err
	}
	if f.Ref != "" {
		if err := validateRef("ref", f.Ref); err != nil {
			return RepoFile{}, err
		}
	}
	return f, nil
}

// refSeparator returns the index of the '@' that starts the ref, or -1: the last '@'
// that is not at the start of a path segment.
func refSeparator(p string) int {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '@' && p[i-1] != '/' {
			return i
		}
	}
	return -1
}

// addFileResource registers the repo:// template. Reads go through the backend like
// get_file_contents, so the allow-list, caps and sanitizing all apply.
func addFileResource(s *mcpkit.Server, b *Backend) {
	s.AddResourceTemplate(&mcpkit.ResourceTemplate{
		URITemplate: FileURITemplate,
		Name:        "file",
		Title:       "Repository file",
		Description: "A file or directory of a repository; append @REF for a branch, tag or SHA (e.g. repo://octo/hello/README.md@v1.0). Text only; at most 64 KiB.",
	}, func(ctx context.Context, req *mcpkit.Request, uri string, _ map[string]string) (*mcpkit.ReadResourceResult, error) {
		f, err := ParseRepoURI(uri)
		if err != nil {
			return nil, mcpkit.InvalidParams("%v", err)
		}
		if !b.HasToken() {
			return nil, mcpkit.Errorf(mcpkit.CodeInternalError, "%v", errNoToken)
		}
		fc, err := b.GetFileContents(ctx, FileContentsInput{Owner: f.Owner, Repo: f.Repo, Path: f.Path, Ref: f.Ref})
		if err != nil {
			return nil, resourceError(uri, err)
		}
		return fileResource(uri, fc)
	})
}

// resourceError maps a backend failure to the protocol error a resource read gives:
// refusals and bad names are invalid params, a 404 is "not found", and the rest keep
// the backend's message.
func resourceError(uri string, err error) error {
	var na *NotAllowedError
	var er *gh.ErrorResponse
	switch {
	case errors.As(err, &na):
		return mcpkit.InvalidParams("%v", err)
	case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == 404:
		return mcpkit.ResourceNotFound(uri)
	}
	var api *apiError
	if errors.As(err, &api) {
		return mcpkit.Errorf(mcpkit.CodeInternalError, "%v", err)
	}
	return mcpkit.InvalidParams("%v", err) // input the backend refused before sending
}

// fileResource renders a file as text contents, or a directory as a listing with one
// path per line (directories end in '/'). A cut file says so in _meta.
func fileResource(uri string, fc FileContents) (*mcpkit.ReadResourceResult, error) {
	switch fc.Type {
	case "dir":
		var s strings.Builder
		for _, e := range fc.Entries {
			s.WriteString(e.Path)
			if e.Type == "dir" {
				s.WriteByte('/')
			}
			s.WriteByte('\n')
		}
		c := mcpkit.TextContents(uri, "text/plain", s.String())
		c.Meta = truncationMeta(fc.Truncation)
		return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{c}}, nil
	case "file":
		if fc.Binary {
			return nil, mcpkit.InvalidParams("%s is a binary file; this server reads text files only", fc.Path)
		}
		c := mcpkit.TextContents(uri, textMIME(fc.Path), fc.Content)
		c.Meta = truncationMeta(fc.Truncation)
		return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{c}}, nil
	}
	return nil, mcpkit.InvalidParams("%s is a %s, not a file or directory (target %s)", fc.Path, fc.Type, fc.Target)
}

func truncationMeta(t mcpkit.Truncation) map[string]any {
	if !t.Truncated {
		return nil
	}
	return map[string]any{"truncated": true, "hint": t.Hint + " (use get_file_contents with startLine for the rest)"}
}

// textMIMEs is a fixed table (not the system's mime.types, which differs between
// machines): types a client may render specially; everything else is text/plain.
var textMIMEs = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".json": "application/json",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".xml": "application/xml", ".yaml": "application/yaml", ".yml": "application/yaml",
}

// textMIME guesses a text MIME type from the file name, defaulting to text/plain.
func textMIME(p string) string {
	if t, ok := textMIMEs[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return "text/plain"
}
