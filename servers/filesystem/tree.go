package filesystem

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultTreeDepth is how deep directory_tree goes when maxDepth is not given.
	DefaultTreeDepth = 3
	// MaxTreeDepth is the deepest directory_tree goes.
	MaxTreeDepth = 64
	// DefaultTreeEntries is how many entries directory_tree returns by default.
	DefaultTreeEntries = 500
	// MaxTreeEntries is the most entries directory_tree returns.
	MaxTreeEntries = 10000
)

// DirectoryTreeInput asks for a bounded view of a directory tree.
type DirectoryTreeInput struct {
	Path             string   `json:"path,omitempty"`
	MaxDepth         int      `json:"maxDepth,omitempty" jsonschema_description:"1: direct children only" jsonschema:"minimum=0,maximum=64,default=3"`
	MaxEntries       int      `json:"maxEntries,omitempty" jsonschema:"minimum=0,maximum=10000,default=500"`
	Exclude          []string `json:"excludePatterns,omitempty"`
	RespectGitignore *bool    `json:"respectGitignore,omitempty" jsonschema:"default=true"`
	// Details adds sizes and times to the text; structuredContent always has them.
	Details bool `json:"details,omitempty"`
}

// TreeEntry is one entry of a tree, named by its path relative to the top.
type TreeEntry struct {
	Path     string `json:"path" jsonschema_description:"Path relative to the top of the tree with / separators"`
	Type     string `json:"type" jsonschema_description:"Entry type; symlinks are not followed" jsonschema:"enum=file,enum=directory,enum=symlink,enum=other"`
	Size     int64  `json:"size,omitempty" jsonschema_description:"Size in bytes of a file"`
	Modified string `json:"modified,omitempty" jsonschema_description:"Last modification time (RFC 3339)"`
}

// DirectoryTreeOutput is a flat, path-sorted list of the tree's entries.
type DirectoryTreeOutput struct {
	Path    string      `json:"path" jsonschema_description:"Absolute path of the top of the tree"`
	Entries []TreeEntry `json:"entries" jsonschema_description:"Entries sorted by path; directories appear before their contents"`
	Visited int         `json:"visited" jsonschema_description:"Entries examined before the walk ended"`
	mcpkit.Truncation

	details bool // the text shows sizes and times (listing_text.go)
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// DirectoryTree walks breadth first, so when maxEntries cuts it the shallow levels are
// complete, and it stops walking as soon as the cap is passed.
func (rs *Roots) DirectoryTree(ctx context.Context, in DirectoryTreeInput) (DirectoryTreeOutput, error) {
	depth, err := boundArg("maxDepth", in.MaxDepth, DefaultTreeDepth, MaxTreeDepth)
	if err != nil {
		return DirectoryTreeOutput{}, err
	}
	maxEntries, err := boundArg("maxEntries", in.MaxEntries, DefaultTreeEntries, MaxTreeEntries)
	if err != nil {
		return DirectoryTreeOutput{}, err
	}
	exclude, err := compileGlobs(in.Exclude)
	if err != nil {
		return DirectoryTreeOutput{}, err
	}
	root, rel, display, err := rs.startDir(in.Path)
	if err != nil {
		return DirectoryTreeOutput{}, err
	}
	out := DirectoryTreeOutput{Path: display, Entries: []TreeEntry{}, details: in.Details}
	deepest := false
	visited, err := walkTree(ctx, root, rel, walkOptions{maxDepth: depth, gitignore: boolOr(in.RespectGitignore, true), exclude: exclude, progress: "entries listed"},
		func(e *walkEntry) error {
			if len(out.Entries) == maxEntries {
				out.Cut(fmt.Sprintf("stopped at maxEntries=%d; raise maxEntries (at most %d) or call again on a subdirectory or with exclude patterns", maxEntries, MaxTreeEntries))
				return errStopWalk
			}
			te := TreeEntry{Path: e.rel, Type: entryType(e.info.Mode()), Modified: formatTime(e.info.ModTime())}
			if te.Type == "file" {
				te.Size = e.info.Size()
			}
			if e.depth == depth && e.info.IsDir() {
				deepest = true
			}
			out.Entries = append(out.Entries, te)
			return nil
		})
	if err != nil {
		return DirectoryTreeOutput{}, rs.explain(display, err)
	}
	out.Visited = visited
	sort.Slice(out.Entries, func(i, j int) bool { return pathLess(out.Entries[i].Path, out.Entries[j].Path) })
	if deepest && !out.Truncated {
		out.Hint = fmt.Sprintf("directories at depth %d were not expanded; raise maxDepth or call again on one of them", depth)
	}
	return out, nil
}

// pathLess orders slash paths segment by segment, so a directory's contents follow it
// directly ("a", "a/b", "a-c" rather than "a", "a-c", "a/b").
func pathLess(a, b string) bool {
	for {
		ha, ra, okA := strings.Cut(a, "/")
		hb, rb, okB := strings.Cut(b, "/")
		if ha != hb {
			return ha < hb
		}
		if !okA || !okB {
			return !okA && okB
		}
		a, b = ra, rb
	}
}

// boundArg applies a default for 0 and refuses values out of range.
func boundArg(name string, v, def, max int) (int, error) {
	switch {
	case v < 0:
		return 0, fmt.Errorf("%s must not be negative", name)
	case v > max:
		return 0, fmt.Errorf("%s %d is over the maximum of %d", name, v, max)
	case v == 0:
		return def, nil
	}
	return v, nil
}

// startDir resolves a directory a walk starts from and checks it is one.
func (rs *Roots) startDir(path string) (*Root, string, string, error) {
	root, rel, display, err := rs.resolveDisplay(path)
	if err != nil {
		return nil, "", "", err
	}
	st, err := root.os.Stat(rel)
	if err != nil {
		return nil, "", "", rs.explain(display, err)
	}
	if !st.IsDir() {
		return nil, "", "", fmt.Errorf("%s is not a directory", display)
	}
	return root, rel, display, nil
}
