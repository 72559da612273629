package filesystem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// MaxDeleteEntries is the most entries one delete_directory removes.
	MaxDeleteEntries = 10_000
	// deleteShown is how many of a tree's entries its confirmation names.
	deleteShown = 10
)

// DeleteFileInput names one file (or link) to delete.
type DeleteFileInput struct {
	Path string `json:"path"`
}

// DeleteFileOutput says what was deleted.
type DeleteFileOutput struct {
	Path string `json:"path" jsonschema_description:"Absolute path deleted"`
	Type string `json:"type" jsonschema_description:"What it was; a symlink is deleted itself, never what it points to" jsonschema:"enum=file,enum=symlink,enum=other"`
	Size int64  `json:"size" jsonschema_description:"Its size in bytes"`
}

// DeleteFile removes one file, symbolic link (the link itself) or special file,
// through its directory's root with unlinkat(2), which never removes a directory even
// if one was swapped in. DeleteFile itself asks nothing; the delete_file tool confirms
// first, showing the file's size and first lines.
func (rs *Roots) DeleteFile(ctx context.Context, in DeleteFileInput) (DeleteFileOutput, error) {
	return rs.deleteFile(ctx, in, nil)
}

func (rs *Roots) deleteFile(ctx context.Context, in DeleteFileInput, confirm confirmFunc) (DeleteFileOutput, error) {
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return DeleteFileOutput{}, err
	}
	if rel == "." {
		return DeleteFileOutput{}, fmt.Errorf("%s is an allowed directory itself and cannot be deleted", display)
	}
	st, err := root.os.Lstat(rel)
	if err != nil {
		return DeleteFileOutput{}, rs.explain(display, err)
	}
	if st.IsDir() {
		return DeleteFileOutput{}, fmt.Errorf("%s is a directory; use delete_directory", display)
	}
	version, err := fileVersion(root.os, rel, st)
	if err != nil {
		return DeleteFileOutput{}, rs.explain(display, err)
	}
	if confirm != nil {
		what := "the file"
		if st.Mode()&fs.ModeSymlink != 0 {
			what = "the symbolic link"
		}
		msg := fmt.Sprintf("Delete %s %s? This cannot be undone.\n\nIt is %s", what, display, describeExisting(root.os, rel, st))
		if err := confirm(msg, version); err != nil {
			return DeleteFileOutput{}, err
		}
	}
	dir, err := root.os.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return DeleteFileOutput{}, rs.explain(display, err)
	}
	defer dir.Close()
	base := filepath.Base(rel)
	// What is there now must be what was shown (the user may have taken a while).
	now, err := dir.Lstat(base)
	if err != nil {
		return DeleteFileOutput{}, rs.explain(display, err)
	}
	if v, err := fileVersion(dir, base, now); err != nil || v != version || !os.SameFile(now, st) {
		return DeleteFileOutput{}, fmt.Errorf("%s changed since it was shown; nothing was deleted (call again to see it as it is now)", display)
	}
	if err := unlinkFile(dir, base); err != nil {
		return DeleteFileOutput{}, rs.explain(display, err)
	}
	return DeleteFileOutput{Path: display, Type: entryType(st.Mode()), Size: st.Size()}, nil
}

// DeleteDirectoryInput names a directory to delete.
type DeleteDirectoryInput struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

// DeleteDirectoryOutput says what was deleted.
type DeleteDirectoryOutput struct {
	Path        string `json:"path" jsonschema_description:"Absolute path deleted"`
	Files       int    `json:"files" jsonschema_description:"Files deleted inside it"`
	Directories int    `json:"directories" jsonschema_description:"Directories deleted inside it"`
	Symlinks    int    `json:"symlinks,omitempty" jsonschema_description:"Symbolic links deleted inside it (the links, not what they point to)"`
	Other       int    `json:"other,omitempty" jsonschema_description:"Special files deleted inside it"`
	Bytes       int64  `json:"bytes" jsonschema_description:"Bytes of the files deleted"`
}

// dirSnapshot is what a directory holds: counts, size, the first entries and a
// digest of every entry's path, type, size and time, which binds a confirmation.
type dirSnapshot struct {
	out    DeleteDirectoryOutput
	first  []string
	digest string
}

// DeleteDirectory removes an empty directory, or with Recursive a directory and
// everything in it (at most MaxDeleteEntries entries). It refuses an allowed directory
// and a directory holding one, and a symbolic link (delete_file removes a link). The
// tree is counted first; right before deleting it is counted again and must be as it
// was shown. The removal goes through the root with os.Root.RemoveAll, which opens
// every directory without following links (O_NOFOLLOW at each level): a directory
// swapped for a link is removed as a link, and nothing outside is reached.
// DeleteDirectory itself asks nothing; the delete_directory tool confirms first,
// showing the counts, the size and the first entries.
func (rs *Roots) DeleteDirectory(ctx context.Context, in DeleteDirectoryInput) (DeleteDirectoryOutput, error) {
	return rs.deleteDirectory(ctx, in, nil)
}

func (rs *Roots) deleteDirectory(ctx context.Context, in DeleteDirectoryInput, confirm confirmFunc) (DeleteDirectoryOutput, error) {
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return DeleteDirectoryOutput{}, err
	}
	if rel == "." {
		return DeleteDirectoryOutput{}, fmt.Errorf("%s is an allowed directory itself and cannot be deleted", display)
	}
	target := filepath.Join(root.real, rel)
	for _, other := range rs.roots {
		if _, inside := within(target, other.real); inside {
			return DeleteDirectoryOutput{}, fmt.Errorf("%s holds the allowed directory %s and cannot be deleted", display, other.dir)
		}
	}
	st, err := root.os.Lstat(rel)
	if err != nil {
		return DeleteDirectoryOutput{}, rs.explain(display, err)
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return DeleteDirectoryOutput{}, fmt.Errorf("%s is a symbolic link, not a directory; delete_file deletes the link itself", display)
	case !st.IsDir():
		return DeleteDirectoryOutput{}, fmt.Errorf("%s is not a directory; use delete_file", display)
	}
	snap, err := rs.snapshotTree(ctx, root, rel, display)
	if err != nil {
		return DeleteDirectoryOutput{}, err
	}
	n := snap.out.Files + snap.out.Directories + snap.out.Symlinks + snap.out.Other
	if n > 0 && !in.Recursive {
		return DeleteDirectoryOutput{}, fmt.Errorf("%s is not empty (%s); set recursive to delete it with everything in it", display, snap.counts())
	}
	if confirm != nil {
		msg := fmt.Sprintf("Delete the empty directory %s?", display)
		if n > 0 {
			msg = fmt.Sprintf("Delete the directory %s and everything in it? This cannot be undone.\n\nIt holds %s.\n\n%s", display, snap.counts(), snap.firstEntries(n))
		}
		if err := confirm(msg, snap.digest); err != nil {
			return DeleteDirectoryOutput{}, err
		}
	}
	now, err := rs.snapshotTree(ctx, root, rel, display)
	if err != nil {
		return DeleteDirectoryOutput{}, err
	}
	if now.digest != snap.digest {
		return DeleteDirectoryOutput{}, fmt.Errorf("%s changed since it was shown; nothing was deleted (call again to see it as it is now)", display)
	}
	if n == 0 {
		err = removeEmptyDir(root.os, rel)
	} else {
		err = root.os.RemoveAll(rel)
	}
	if err != nil {
		return DeleteDirectoryOutput{}, rs.explain(display, err)
	}
	snap.out.Path = display
	return snap.out, nil
}

// snapshotTree counts what the directory rel holds (every entry: ignored files, .git
// and this server's temporary files too), breadth first, without following links.
func (rs *Roots) snapshotTree(ctx context.Context, root *Root, rel, display string) (dirSnapshot, error) {
	d, top, err := openVerifiedDir(root.os, rel)
	if err != nil {
		return dirSnapshot{}, rs.explain(display, err)
	}
	d.Close()
	var s dirSnapshot
	h := sha256.New()
	fmt.Fprintf(h, "%s %d\n", top.Mode(), top.ModTime().UnixNano())
	entries := 0
	_, err = walkTree(ctx, root, rel, walkOptions{ownTemps: true}, func(e *walkEntry) error {
		entries++
		if entries > MaxDeleteEntries {
			return errStopWalk
		}
		m := e.info.Mode()
		switch {
		case m.IsDir():
			s.out.Directories++
		case m.IsRegular():
			s.out.Files++
			s.out.Bytes += e.info.Size()
		case m&fs.ModeSymlink != 0:
			s.out.Symlinks++
		default:
			s.out.Other++
		}
		if len(s.first) < deleteShown {
			name := quoteName(e.rel)
			if m.IsDir() {
				name += "/"
			}
			s.first = append(s.first, name)
		}
		fmt.Fprintf(h, "%q %s %d %d\n", e.rel, m, e.info.Size(), e.info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return dirSnapshot{}, rs.explain(display, err)
	}
	if entries > MaxDeleteEntries {
		return dirSnapshot{}, fmt.Errorf("%s holds more than %d entries, more than one delete_directory deletes; delete its subdirectories first", display, MaxDeleteEntries)
	}
	s.digest = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// counts says what a tree holds: "3 files (1,234 bytes), 1 directory and 1 symbolic
// link (the link is deleted, not what it points to)".
func (s dirSnapshot) counts() string {
	var parts []string
	if s.out.Files > 0 {
		parts = append(parts, fmt.Sprintf("%s (%d bytes)", plural(s.out.Files, "file", "files"), s.out.Bytes))
	}
	if s.out.Directories > 0 {
		parts = append(parts, plural(s.out.Directories, "directory", "directories"))
	}
	if s.out.Symlinks > 0 {
		parts = append(parts, plural(s.out.Symlinks, "symbolic link", "symbolic links")+" (deleted themselves, not what they point to)")
	}
	if s.out.Other > 0 {
		parts = append(parts, plural(s.out.Other, "special file", "special files"))
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// firstEntries names the first entries of a tree of n, shallowest first.
func (s dirSnapshot) firstEntries(n int) string {
	head := "Its entries:\n"
	if n > len(s.first) {
		head = fmt.Sprintf("Its first %d entries of %d:\n", len(s.first), n)
	}
	tail := ""
	if n > len(s.first) {
		tail = fmt.Sprintf("\n[… and %d more]", n-len(s.first))
	}
	return head + strings.Join(s.first, "\n") + tail
}

// errNotEmpty explains a directory that filled up between the check and the removal.
var errNotEmpty = errors.New("the directory is not empty any more (something was created in it meanwhile); nothing was deleted")
