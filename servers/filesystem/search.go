package filesystem

import (
	"context"
	"fmt"
	"path/filepath"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultSearchResults is how many matches search_files returns by default.
	DefaultSearchResults = 200
	// MaxSearchResults is the most matches search_files returns.
	MaxSearchResults = 5000
)

// SearchFilesInput finds files and directories by name or relative path.
type SearchFilesInput struct {
	Path             string   `json:"path,omitempty"`
	Pattern          string   `json:"pattern" jsonschema_description:"Without a slash it matches names at any depth, with one the path relative to path; ** spans directories, {a,b} gives alternatives"`
	Exclude          []string `json:"excludePatterns,omitempty"`
	RespectGitignore *bool    `json:"respectGitignore,omitempty" jsonschema:"default=true"`
	MaxResults       int      `json:"maxResults,omitempty" jsonschema:"minimum=0,maximum=5000,default=200"`
}

// FileMatch is one file or directory whose name or path matched.
type FileMatch struct {
	Path string `json:"path" jsonschema_description:"Absolute path"`
	Type string `json:"type" jsonschema_description:"Entry type" jsonschema:"enum=file,enum=directory,enum=symlink,enum=other"`
}

// SearchFilesOutput lists matches, shallowest first.
type SearchFilesOutput struct {
	Path    string      `json:"path" jsonschema_description:"Absolute path of the directory searched"`
	Matches []FileMatch `json:"matches" jsonschema_description:"Matching entries; shallower ones first"`
	Visited int         `json:"visited" jsonschema_description:"Entries examined before the search ended"`
	mcpkit.Truncation
}

// SearchFiles walks breadth first and stops as soon as it has one match more than
// maxResults (that one proves the result was cut).
func (rs *Roots) SearchFiles(ctx context.Context, in SearchFilesInput) (res SearchFilesOutput, err error) {
	ctx, end := traceOp(ctx, "filesystem.search_files")
	defer func() {
		end(err, attribute.Int("filesystem.search.matches", len(res.Matches)), attribute.Int("filesystem.walk.entries", res.Visited),
			attribute.Bool("filesystem.search.truncated", res.Truncated))
	}()
	maxResults, err := boundArg("maxResults", in.MaxResults, DefaultSearchResults, MaxSearchResults)
	if err != nil {
		return SearchFilesOutput{}, err
	}
	pattern, err := compileGlob(in.Pattern)
	if err != nil {
		return SearchFilesOutput{}, err
	}
	exclude, err := compileGlobs(in.Exclude)
	if err != nil {
		return SearchFilesOutput{}, err
	}
	root, rel, display, err := rs.startDir(in.Path)
	if err != nil {
		return SearchFilesOutput{}, err
	}
	out := SearchFilesOutput{Path: display, Matches: []FileMatch{}}
	visited, err := walkTree(ctx, root, rel, walkOptions{gitignore: boolOr(in.RespectGitignore, true), exclude: exclude, progress: "entries examined"},
		func(e *walkEntry) error {
			if !pattern.match(e.rel) {
				return nil
			}
			if len(out.Matches) == maxResults {
				out.Cut(fmt.Sprintf("stopped at maxResults=%d; narrow the pattern, search a subdirectory or raise maxResults (at most %d)", maxResults, MaxSearchResults))
				return errStopWalk
			}
			out.Matches = append(out.Matches, FileMatch{Path: filepath.Join(display, filepath.FromSlash(e.rel)), Type: entryType(e.info.Mode())})
			return nil
		})
	if err != nil {
		return SearchFilesOutput{}, rs.explain(display, err)
	}
	out.Visited = visited
	return out, nil
}
