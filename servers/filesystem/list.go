package filesystem

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultListLimit is how many entries one list_directory page holds by default.
	DefaultListLimit = 500
	// MaxListLimit is the largest page list_directory returns.
	MaxListLimit = 5000
)

// ListDirectoryInput pages through one directory.
type ListDirectoryInput struct {
	Path   string `json:"path,omitempty"`
	SortBy string `json:"sortBy,omitempty" jsonschema_description:"size: largest first; modified: newest first" jsonschema:"enum=name,enum=size,enum=modified,default=name"`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=5000,default=500"`
	// Details adds each entry's size and time to the text; structuredContent always
	// has them.
	Details bool `json:"details,omitempty"`
}

// DirEntry is one entry of a directory listing. Symbolic links are reported as links
// and never followed.
type DirEntry struct {
	Name     string `json:"name" jsonschema_description:"Entry name"`
	Type     string `json:"type" jsonschema_description:"Entry type; a symlink is not followed" jsonschema:"enum=file,enum=directory,enum=symlink,enum=other"`
	Size     int64  `json:"size" jsonschema_description:"Size in bytes (for a symlink the length of its target text)"`
	Modified string `json:"modified" jsonschema_description:"Last modification time (RFC 3339)"`
}

// ListDirectoryOutput is one page of a directory listing.
type ListDirectoryOutput struct {
	Path       string     `json:"path" jsonschema_description:"Absolute path of the directory"`
	Entries    []DirEntry `json:"entries" jsonschema_description:"Entries of this page"`
	Total      int        `json:"total" jsonschema_description:"Number of entries in the directory"`
	Offset     int        `json:"offset" jsonschema_description:"Offset of the first entry of this page"`
	NextOffset int        `json:"nextOffset,omitempty" jsonschema_description:"Offset of the next page; absent on the last page"`
	mcpkit.Truncation

	sortBy  string // the order, named in the text's header (listing_text.go)
	details bool   // the text shows sizes and times
}

// ListDirectory lists one directory with sizes, types and times, sorted and paged. Its
// text (MCPText) shows names and types, and sizes and times with details.
func (rs *Roots) ListDirectory(ctx context.Context, in ListDirectoryInput) (ListDirectoryOutput, error) {
	limit := in.Limit
	switch {
	case in.Offset < 0 || limit < 0:
		return ListDirectoryOutput{}, fmt.Errorf("offset and limit must not be negative")
	case limit > MaxListLimit:
		return ListDirectoryOutput{}, fmt.Errorf("limit %d is over the maximum of %d; page with offset", limit, MaxListLimit)
	case limit == 0:
		limit = DefaultListLimit
	}
	var less func(a, b fs.FileInfo) bool
	switch in.SortBy {
	case "", "name":
		less = func(a, b fs.FileInfo) bool { return a.Name() < b.Name() }
	case "size":
		less = func(a, b fs.FileInfo) bool {
			if a.Size() != b.Size() {
				return a.Size() > b.Size()
			}
			return a.Name() < b.Name()
		}
	case "modified":
		less = func(a, b fs.FileInfo) bool {
			if !a.ModTime().Equal(b.ModTime()) {
				return a.ModTime().After(b.ModTime())
			}
			return a.Name() < b.Name()
		}
	default:
		return ListDirectoryOutput{}, fmt.Errorf("sortBy %q is not one of name, size, modified", in.SortBy)
	}
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return ListDirectoryOutput{}, err
	}
	st, err := root.os.Stat(rel)
	if err != nil {
		return ListDirectoryOutput{}, rs.explain(display, err)
	}
	if !st.IsDir() {
		return ListDirectoryOutput{}, fmt.Errorf("%s is not a directory; use get_file_info or read_text_file", display)
	}
	dir, err := root.os.OpenRoot(rel)
	if err != nil {
		return ListDirectoryOutput{}, rs.explain(display, err)
	}
	defer dir.Close()
	names, err := readDirNames(dir)
	if err != nil {
		return ListDirectoryOutput{}, rs.explain(display, err)
	}
	infos := make([]fs.FileInfo, 0, len(names))
	for i, name := range names {
		if i%1024 == 0 && ctx.Err() != nil {
			return ListDirectoryOutput{}, ctx.Err()
		}
		if info, err := dir.Lstat(name); err == nil && !isOwnTempFile(name, info.Mode()) {
			infos = append(infos, info)
		}
	}
	sort.SliceStable(infos, func(i, j int) bool { return less(infos[i], infos[j]) })
	out := ListDirectoryOutput{Path: display, Total: len(infos), Offset: in.Offset, Entries: []DirEntry{}, sortBy: in.SortBy, details: in.Details}
	if in.Offset >= len(infos) {
		return out, nil
	}
	page, cut := mcpkit.CapSlice(infos[in.Offset:], limit)
	for _, info := range page {
		out.Entries = append(out.Entries, DirEntry{
			Name:     info.Name(),
			Type:     entryType(info.Mode()),
			Size:     info.Size(),
			Modified: formatTime(info.ModTime()),
		})
	}
	if cut {
		out.NextOffset = in.Offset + len(page)
		out.Cut(fmt.Sprintf("%d more entries; call again with offset=%d", len(infos)-out.NextOffset, out.NextOffset))
	}
	return out, nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
