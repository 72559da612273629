package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// maxTreeEntries bounds one answer of get_repository_tree; a path narrows it.
const maxTreeEntries = 1000

// TreeInput names a tree: a ref, and optionally a path that narrows the entries.
type TreeInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	Ref       string `json:"ref,omitempty"`
	Path      string `json:"path,omitempty" jsonschema_description:"Only entries under this directory"`
	Recursive *bool  `json:"recursive,omitempty" jsonschema:"default=true"`
}

// TreeEntry is one file, directory or submodule.
type TreeEntry struct {
	Path string `json:"path" jsonschema_description:"Path from the repository root"`
	Type string `json:"type" jsonschema_description:"blob (file) or tree (directory) or commit (submodule)"`
	Size int    `json:"size,omitempty" jsonschema_description:"File size in bytes"`
}

// Tree is the entries of a repository tree at one commit.
type Tree struct {
	Ref     string      `json:"ref" jsonschema_description:"The ref read"`
	SHA     string      `json:"sha" jsonschema_description:"SHA of the tree"`
	Entries []TreeEntry `json:"entries" jsonschema_description:"Entries, at most 1000"`
	Total   int         `json:"total" jsonschema_description:"Entries that matched, before the cap"`
	mcpkit.Truncation
}

// GetRepositoryTree lists a repository's tree at ref (recursively unless told not
// to), keeping the entries under path, at most maxTreeEntries of them.
func (b *Backend) GetRepositoryTree(ctx context.Context, in TreeInput) (Tree, error) {
	out := Tree{Entries: []TreeEntry{}}
	if in.Ref != "" {
		if err := validateRef("ref", in.Ref); err != nil {
			return out, err
		}
	}
	prefix, err := validatePath(in.Path)
	if err != nil {
		return out, err
	}
	recursive := in.Recursive == nil || *in.Recursive
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	ref := in.Ref
	if ref == "" {
		r, _, err := b.gh.Repositories.Get(ctx, in.Owner, in.Repo)
		if err != nil {
			return out, b.fail(err, "get repository "+repoName(in.Owner, in.Repo))
		}
		ref = r.GetDefaultBranch()
	}
	// A path is filtered here from the whole tree (recursive=false then keeps its
	// direct children): a path pasted into the URL as "ref:path" would need escaping
	// go-github does not do.
	t, _, err := b.gh.Git.GetTree(ctx, in.Owner, in.Repo, ref, recursive || prefix != "")
	if err != nil {
		return out, b.fail(err, fmt.Sprintf("get tree %s of %s", ref, repoName(in.Owner, in.Repo)))
	}
	out.Ref, out.SHA = name(ref), name(t.GetSHA())
	for _, e := range t.Entries {
		p := e.GetPath()
		if prefix != "" && (p == prefix || !underPath(p, prefix)) {
			continue
		}
		if !recursive && strings.Contains(strings.TrimPrefix(strings.TrimPrefix(p, prefix), "/"), "/") {
			continue
		}
		out.Total++
		if len(out.Entries) < maxTreeEntries {
			clean, _ := mcpkit.CleanText(p, 4096)
			out.Entries = append(out.Entries, TreeEntry{Path: clean, Type: name(e.GetType()), Size: e.GetSize()})
		}
	}
	if out.Total > maxTreeEntries {
		out.Cut(fmt.Sprintf("%d of %d entries shown: call again with path set to a directory", maxTreeEntries, out.Total))
	}
	if t.GetTruncated() {
		out.Cut("GitHub cut this tree (over 100,000 entries or 7 MB), so entries are missing: list directories with get_file_contents instead")
	}
	return out, nil
}
