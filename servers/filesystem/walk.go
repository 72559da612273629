package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// errSkipDir from a walk callback keeps the walk out of that directory.
var errSkipDir = errors.New("skip this directory")

// errStopWalk from a walk callback ends the walk without an error.
var errStopWalk = errors.New("stop walking")

type walkOptions struct {
	maxDepth  int  // entries deeper than this are not visited; 0 means no limit
	gitignore bool // honour .gitignore files and skip .git directories
	exclude   []globPattern
	ownTemps  bool // also visit this server's temporary files (hidden otherwise: see isOwnTempFile)
	// progress names what the walk reports progress on ("entries searched"): it
	// reports entries visited of entries found so far (mcpkit.ReportProgress, when
	// the client asked for progress or the call may run as a task).
	progress string
}

// walkEntry is what a walk callback sees. dir is the open directory that holds the
// entry, valid only during the callback: open the entry with dir.Open(name), which is
// confined to that directory.
type walkEntry struct {
	rel   string // slash path relative to the walk start
	name  string
	info  fs.FileInfo // from Lstat: a symlink is reported as a symlink, never followed
	depth int         // 1 for the start's children
	dir   *os.Root
	ign   ignoreStack // .gitignore rules in force in the entry's directory
}

type walkDir struct {
	rel   string
	depth int
	ign   ignoreStack
}

// walkTree visits the tree under startRel breadth first, names sorted within a
// directory, so a capped walk shows the shallow levels first and pages are stable.
// It never follows symbolic links, opens every directory through the root (a directory
// swapped for a symlink between listing and opening is refused by os.Root), and stops as
// soon as fn returns errStopWalk or the context ends. It returns how many entries it
// visited.
func walkTree(ctx context.Context, root *Root, startRel string, opts walkOptions, fn func(*walkEntry) error) (visited int, err error) {
	ctx, end := traceOp(ctx, "filesystem.walk")
	defer func() {
		end(err, attribute.Int("filesystem.walk.entries", visited), attribute.Int("filesystem.walk.max_depth", opts.maxDepth),
			attribute.Bool("filesystem.walk.gitignore", opts.gitignore))
	}()
	return walkTreeUntraced(ctx, root, startRel, opts, fn)
}

func walkTreeUntraced(ctx context.Context, root *Root, startRel string, opts walkOptions, fn func(*walkEntry) error) (int, error) {
	start, err := root.os.OpenRoot(startRel)
	if err != nil {
		return 0, err
	}
	defer start.Close()
	var ign ignoreStack
	if opts.gitignore {
		ign = ancestorIgnores(root, startRel)
	}
	startSlash := filepath.ToSlash(startRel)
	if startSlash == "." {
		startSlash = ""
	}
	visited, found := 0, 0
	w := walker{ctx: ctx, opts: opts, visited: &visited, found: &found, report: opts.progress != "" && mcpkit.ProgressReported(ctx)}
	queue := []walkDir{{rel: "", depth: 0, ign: ign}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return visited, err
		}
		wd := queue[0]
		queue = queue[1:]
		d := start
		if wd.rel != "" {
			d, err = start.OpenRoot(filepath.FromSlash(wd.rel))
			if err != nil {
				continue // vanished or swapped for a link since it was listed
			}
		}
		subdirs, err := w.walkOneDir(d, wd, startSlash, fn)
		if d != start {
			d.Close()
		}
		if errors.Is(err, errStopWalk) {
			return visited, nil
		}
		if err != nil {
			return visited, err
		}
		queue = append(queue, subdirs...)
	}
	if w.report {
		mcpkit.ReportProgress(ctx, float64(visited), float64(max(found, visited)), fmt.Sprintf("%d of %d %s", visited, max(found, visited), opts.progress))
	}
	return visited, nil
}

// walker is one walk's state across directories.
type walker struct {
	ctx            context.Context
	opts           walkOptions
	visited, found *int
	report         bool // progress is reported
}

func (w *walker) walkOneDir(d *os.Root, wd walkDir, startSlash string, fn func(*walkEntry) error) ([]walkDir, error) {
	opts, visited := w.opts, w.visited
	names, err := readDirNames(d)
	if err != nil {
		return nil, nil // unreadable directory: skip it, keep walking
	}
	*w.found += len(names)
	ign := wd.ign
	if opts.gitignore {
		if i := sort.SearchStrings(names, ".gitignore"); i < len(names) && names[i] == ".gitignore" {
			ign = ign.push(parseGitignore(path.Join(startSlash, wd.rel), readSmallFile(d, ".gitignore", maxGitignoreBytes)))
		}
	}
	var subdirs []walkDir
	for i, name := range names {
		if i%256 == 255 { // a large directory: notice a cancellation within it
			if err := w.ctx.Err(); err != nil {
				return nil, err
			}
		}
		if w.report {
			v, f := *visited, *w.found
			mcpkit.ReportProgressFunc(w.ctx, float64(v), float64(f), func() string { return fmt.Sprintf("%d of %d %s", v, f, opts.progress) })
		}
		info, err := d.Lstat(name)
		if err != nil {
			*w.found--
			continue // removed since listing
		}
		if !opts.ownTemps && isOwnTempFile(name, info.Mode()) {
			*w.found--
			continue // an atomic write's temporary file, in flight or left by a killed server
		}
		isDir := info.IsDir()
		rel := path.Join(wd.rel, name)
		if opts.gitignore && isDir && name == ".git" {
			*w.found--
			continue
		}
		if opts.gitignore && ign.ignored(path.Join(startSlash, rel), isDir) {
			*w.found--
			continue
		}
		if anyGlobMatch(opts.exclude, rel) {
			*w.found--
			continue
		}
		*visited++
		depth := wd.depth + 1
		e := walkEntry{rel: rel, name: name, info: info, depth: depth, dir: d, ign: ign}
		err = fn(&e)
		descend := isDir && (opts.maxDepth <= 0 || depth < opts.maxDepth)
		switch {
		case errors.Is(err, errSkipDir):
			descend = false
		case err != nil:
			return nil, err
		}
		if descend {
			subdirs = append(subdirs, walkDir{rel: rel, depth: depth, ign: ign})
		}
	}
	return subdirs, nil
}

// readDirNames lists a directory through its confined handle, sorted. Only names are
// read: types come from Lstat on the same handle, never from a path-based call.
func readDirNames(d *os.Root) ([]string, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && len(names) == 0 {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// readSmallFile reads at most max bytes of a regular file; nil when it cannot.
func readSmallFile(d *os.Root, name string, max int64) []byte {
	f, err := openForRead(d, name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return b
}

// ancestorIgnores loads the .gitignore files of the root and of every directory above
// startRel, so a walk that starts in a subdirectory honours the rules of its parents.
func ancestorIgnores(root *Root, startRel string) ignoreStack {
	var stack ignoreStack
	slash := filepath.ToSlash(startRel)
	if slash == "." || slash == "" {
		return nil
	}
	parts := strings.Split(slash, "/")
	dir := ""
	for i := 0; i < len(parts); i++ {
		data := readRootFile(root, path.Join(dir, ".gitignore"))
		if data != nil {
			stack = stack.push(parseGitignore(dir, data))
		}
		dir = path.Join(dir, parts[i])
	}
	return stack
}

func readRootFile(root *Root, slashRel string) []byte {
	f, err := openForRead(root.os, filepath.FromSlash(slashRel))
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxGitignoreBytes))
	return b
}

// entryType names a file mode the way results report it.
func entryType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}
