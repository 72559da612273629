package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const (
	// MaxCopyEntries is the most entries one copy_file of a directory copies.
	MaxCopyEntries = 10_000
	// MaxCopyBytes is the most file bytes one copy_file copies.
	MaxCopyBytes = 1 << 30
	// maxSkippedShown bounds the skipped entries a copy names.
	maxSkippedShown = 20
)

// CopyFileInput copies a file, or with recursive a directory.
type CopyFileInput struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Recursive   bool   `json:"recursive,omitempty"`
	Overwrite   bool   `json:"overwrite,omitempty"`
}

// CopyFileOutput says what was copied.
type CopyFileOutput struct {
	Source       string   `json:"source" jsonschema_description:"Absolute path copied from"`
	Destination  string   `json:"destination" jsonschema_description:"Absolute path of the copy"`
	Files        int      `json:"files" jsonschema_description:"Files copied"`
	Directories  int      `json:"directories,omitempty" jsonschema_description:"Directories created (the top one included)"`
	Bytes        int64    `json:"bytes" jsonschema_description:"Bytes copied"`
	Replaced     bool     `json:"replaced,omitempty" jsonschema_description:"True when an existing destination file was replaced"`
	Skipped      []string `json:"skipped,omitempty" jsonschema_description:"Symbolic links and special files left out of a directory copy (paths relative to the source; the first 20)"`
	SkippedCount int      `json:"skippedCount,omitempty" jsonschema_description:"How many entries were left out in all"`
}

// CopyFile copies a regular file, or with Recursive a directory tree, from one place
// in the allowed directories to another (the two may be in different allowed
// directories: both are allowed). Every read goes through the source's root and every
// write through the destination's, so neither side can be led outside. It never
// follows a symbolic link: a source that is a link is refused, and links and special
// files inside a copied tree are left out and named. A new file appears whole or not
// at all (filled under a temporary name, then linked into place without replacing
// anything); an existing file is replaced only with Overwrite, atomically, and never a
// link or directory. A directory is copied only to a path that does not exist, and a
// copy that fails midway removes what it created. CopyFile itself asks nothing; the
// copy_file tool confirms replacing a file first.
func (rs *Roots) CopyFile(ctx context.Context, in CopyFileInput) (CopyFileOutput, error) {
	return rs.copyFile(ctx, in, nil)
}

func (rs *Roots) copyFile(ctx context.Context, in CopyFileInput, confirm confirmFunc) (CopyFileOutput, error) {
	sroot, srel, sdisp, err := rs.resolveDisplay(in.Source)
	if err != nil {
		return CopyFileOutput{}, err
	}
	droot, drel, ddisp, err := rs.resolveDisplay(in.Destination)
	if err != nil {
		return CopyFileOutput{}, err
	}
	src, err := sroot.os.Lstat(srel)
	if err != nil {
		return CopyFileOutput{}, rs.explain(sdisp, err)
	}
	switch {
	case src.Mode()&fs.ModeSymlink != 0:
		return CopyFileOutput{}, fmt.Errorf("%s is a symbolic link; copy_file never follows links (copy the path it points to instead)", sdisp)
	case src.IsDir() && !in.Recursive:
		return CopyFileOutput{}, fmt.Errorf("%s is a directory; set recursive to copy it with everything in it", sdisp)
	case !src.IsDir() && !src.Mode().IsRegular():
		return CopyFileOutput{}, fmt.Errorf("%s is not a regular file (a device, pipe or socket); refusing to copy it", sdisp)
	}
	if dst, err := droot.os.Lstat(drel); err == nil && dst.IsDir() {
		base := filepath.Base(srel)
		if srel == "." {
			base = filepath.Base(sroot.dir)
		}
		drel = filepath.Join(drel, base)
		ddisp = droot.Join(drel)
	}
	if drel == "." {
		return CopyFileOutput{}, fmt.Errorf("%s is an allowed directory itself; name a path inside it", ddisp)
	}
	if err := refuseOwnTempName(ddisp); err != nil {
		return CopyFileOutput{}, err
	}
	sreal, dreal := filepath.Join(sroot.real, srel), filepath.Join(droot.real, drel)
	if sreal == dreal {
		return CopyFileOutput{}, fmt.Errorf("%s: source and destination are the same", sdisp)
	}
	if _, inside := within(sreal, dreal); inside && src.IsDir() {
		return CopyFileOutput{}, fmt.Errorf("cannot copy %s into itself (%s)", sdisp, ddisp)
	}
	if src.IsDir() {
		return rs.copyTree(ctx, sroot, srel, sdisp, droot, drel, ddisp)
	}
	out := CopyFileOutput{Source: sdisp, Destination: ddisp, Files: 1}
	var expect fs.FileInfo
	dst, err := droot.os.Lstat(drel)
	switch {
	case err == nil:
		if !in.Overwrite {
			return CopyFileOutput{}, fmt.Errorf("%s already exists; pass overwrite=true to replace it", ddisp)
		}
		if err := writableTarget(ddisp, dst); err != nil {
			return CopyFileOutput{}, err
		}
		out.Replaced, expect = true, dst
		if confirm != nil {
			sv, err := fileVersion(sroot.os, srel, src)
			if err != nil {
				return CopyFileOutput{}, rs.explain(sdisp, err)
			}
			dv, err := fileVersion(droot.os, drel, dst)
			if err != nil {
				return CopyFileOutput{}, rs.explain(ddisp, err)
			}
			msg := fmt.Sprintf("Copy %s (%d bytes) to %s, replacing the file that is there? Its content is lost.\n\nThe file replaced has %s",
				sdisp, src.Size(), ddisp, describeExisting(droot.os, drel, dst))
			if err := confirm(msg, sv, dv); err != nil {
				return CopyFileOutput{}, err
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := rs.checkParentDir(droot, drel, ddisp); err != nil {
			return CopyFileOutput{}, err
		}
	default:
		return CopyFileOutput{}, rs.explain(ddisp, err)
	}
	n, err := copyOneFile(ctx, sroot.os, srel, src, droot.os, drel, expect)
	if err != nil {
		return CopyFileOutput{}, rs.explainCopy(sdisp, ddisp, err)
	}
	out.Bytes = n
	return out, nil
}

// errCopyLimit and errSourceChanged explain a copy stopped on purpose.
var (
	errCopyLimit     = fmt.Errorf("the copy is over its limits (%d entries, %d bytes)", MaxCopyEntries, MaxCopyBytes)
	errSourceChanged = errors.New("the source changed while it was being copied (replaced, or no longer a regular file); nothing of it was copied")
)

// explainCopy words an error of the copy itself.
func (rs *Roots) explainCopy(sdisp, ddisp string, err error) error {
	switch {
	case errors.Is(err, errCopyLimit), errors.Is(err, errSourceChanged), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("copying %s to %s: %w", sdisp, ddisp, err)
	case errors.Is(err, syscall.EEXIST) || errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s already exists (it was created meanwhile); nothing was replaced", ddisp)
	}
	return rs.explain(sdisp+" -> "+ddisp, err)
}

// copyOneFile copies the regular file srel (Lstat'ed as src) to drel through the two
// roots. The data goes to a temporary sibling of drel first; with expect (the file to
// replace, as confirmed) it is renamed over drel if drel is still that file, otherwise
// it is hard-linked into place, which fails rather than replace anything that appeared
// meanwhile (with a rename as the fallback where the file system has no hard links).
func copyOneFile(ctx context.Context, sroot *os.Root, srel string, src fs.FileInfo, droot *os.Root, drel string, expect fs.FileInfo) (int64, error) {
	if src.Size() > MaxCopyBytes {
		return 0, errCopyLimit
	}
	f, err := openForRead(sroot, srel)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	tmp, err := tempSibling(drel)
	if err != nil {
		return 0, err
	}
	n, err := copyOpened(ctx, f, src, droot, tmp)
	if err != nil {
		return 0, err
	}
	defer droot.Remove(tmp) // a no-op once renamed
	if expect != nil {
		cur, err := droot.Lstat(drel)
		if err != nil || !os.SameFile(cur, expect) || !cur.ModTime().Equal(expect.ModTime()) || cur.Size() != expect.Size() {
			return 0, errors.New("the destination changed on disk while it was being replaced; nothing was replaced")
		}
		return n, droot.Rename(tmp, drel)
	}
	if err := droot.Link(tmp, drel); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return 0, err
		}
		if _, lerr := droot.Lstat(drel); !errors.Is(lerr, fs.ErrNotExist) {
			return 0, fs.ErrExist
		}
		return n, droot.Rename(tmp, drel) // no hard links here
	}
	return n, nil
}

// copyOpened copies the open regular file f (expected to be src) into a new file
// name in droot, created exclusively (never through a link planted there), with src's
// permission bits; it removes the file again when the copy fails.
func copyOpened(ctx context.Context, f *os.File, src fs.FileInfo, droot *os.Root, name string) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(st, src) {
		return 0, errSourceChanged
	}
	perm := src.Mode().Perm()
	out, err := droot.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			out.Close()
			droot.Remove(name)
		}
	}()
	n, err := io.Copy(out, &ctxReader{ctx: ctx, r: io.LimitReader(f, MaxCopyBytes+1)})
	if err != nil {
		return 0, err
	}
	if n > MaxCopyBytes {
		return 0, errCopyLimit
	}
	if err := out.Chmod(perm); err != nil { // on the descriptor: exactly src's bits
		return 0, err
	}
	if err := out.Sync(); err != nil {
		return 0, err
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	ok = true
	return n, nil
}

// ctxReader stops a long copy when the call ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// copyTree copies the directory srel to the new path drel. It counts the tree first
// and refuses one over MaxCopyEntries or MaxCopyBytes, then creates drel, holds it
// open as a root of its own (checked to be the directory just created, not something
// swapped in), and walks the source breadth first, creating each directory and file
// under that handle. Links and special files are skipped. On any failure what was
// created is removed again.
func (rs *Roots) copyTree(ctx context.Context, sroot *Root, srel, sdisp string, droot *Root, drel, ddisp string) (CopyFileOutput, error) {
	if _, err := droot.os.Lstat(drel); err == nil {
		return CopyFileOutput{}, fmt.Errorf("%s already exists; copy_file copies a directory only to a path that does not exist yet", ddisp)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return CopyFileOutput{}, rs.explain(ddisp, err)
	}
	if err := rs.checkParentDir(droot, drel, ddisp); err != nil {
		return CopyFileOutput{}, err
	}
	entries, size := 0, int64(0)
	_, err := walkTree(ctx, sroot, srel, walkOptions{}, func(e *walkEntry) error {
		entries++
		if e.info.Mode().IsRegular() {
			size += e.info.Size()
		}
		if entries > MaxCopyEntries || size > MaxCopyBytes {
			return errCopyLimit
		}
		return nil
	})
	if errors.Is(err, errCopyLimit) {
		return CopyFileOutput{}, fmt.Errorf("%s has more than %d entries or %d bytes, more than one copy_file copies; copy its subdirectories one by one", sdisp, MaxCopyEntries, MaxCopyBytes)
	}
	if err != nil {
		return CopyFileOutput{}, rs.explain(sdisp, err)
	}
	src, err := sroot.os.Lstat(srel)
	if err != nil {
		return CopyFileOutput{}, rs.explain(sdisp, err)
	}
	if err := droot.os.Mkdir(drel, src.Mode().Perm()|0o700); err != nil {
		return CopyFileOutput{}, rs.explainCopy(sdisp, ddisp, err)
	}
	dd, _, err := openVerifiedDir(droot.os, drel)
	if err != nil {
		return CopyFileOutput{}, rs.explain(ddisp, err)
	}
	defer dd.Close()
	out := CopyFileOutput{Source: sdisp, Destination: ddisp, Directories: 1}
	entries = 0
	_, err = walkTree(ctx, sroot, srel, walkOptions{}, func(e *walkEntry) error {
		entries++
		if entries > MaxCopyEntries {
			return errCopyLimit
		}
		name := filepath.FromSlash(e.rel)
		switch mode := e.info.Mode(); {
		case mode.IsDir():
			if err := dd.Mkdir(name, mode.Perm()|0o700); err != nil {
				return err
			}
			out.Directories++
		case mode.IsRegular():
			f, err := openForRead(e.dir, e.name)
			if err != nil {
				return err
			}
			n, err := copyOpened(ctx, f, e.info, dd, name)
			f.Close()
			if err != nil {
				return err
			}
			out.Files++
			out.Bytes += n
			if out.Bytes > MaxCopyBytes {
				return errCopyLimit
			}
		default:
			out.SkippedCount++
			if len(out.Skipped) < maxSkippedShown {
				out.Skipped = append(out.Skipped, e.rel)
			}
		}
		return nil
	})
	if err != nil {
		cleanup := "what was copied so far was removed again"
		if rerr := droot.os.RemoveAll(drel); rerr != nil {
			cleanup = fmt.Sprintf("removing the partial copy failed too (%v); delete %s", innerErr(rerr), ddisp)
		}
		return CopyFileOutput{}, fmt.Errorf("%w; %s", rs.explainCopy(sdisp, ddisp, err), cleanup)
	}
	return out, nil
}

// openVerifiedDir opens the directory rel of parent as a root of its own and checks
// that what it opened is the directory Lstat saw there, not a symbolic link (os.Root
// follows a link that stays inside) or anything swapped in between the two calls.
func openVerifiedDir(parent *os.Root, rel string) (*os.Root, fs.FileInfo, error) {
	lst, err := parent.Lstat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !lst.IsDir() {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.ENOTDIR}
	}
	d, err := parent.OpenRoot(rel)
	if err != nil {
		return nil, nil, err
	}
	st, err := d.Stat(".")
	if err != nil || !os.SameFile(st, lst) {
		d.Close()
		return nil, nil, errors.New("it changed while it was being opened (replaced by something else); retry")
	}
	return d, lst, nil
}
