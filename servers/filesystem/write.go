package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileInput replaces (or creates) a whole file.
type WriteFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// WriteFileOutput says what was written.
type WriteFileOutput struct {
	Path         string `json:"path" jsonschema_description:"Absolute path written"`
	BytesWritten int    `json:"bytesWritten" jsonschema_description:"Bytes written"`
	Created      bool   `json:"created" jsonschema_description:"True when the file did not exist before"`
}

// WriteFile writes atomically: a temporary file in the same directory (created through
// the root) is filled, synced and renamed over the target, so readers never see half a
// file and a crash leaves the old content. It refuses to write through a symbolic link,
// and because rename replaces the directory entry, a hard link to a file elsewhere is
// detached rather than written through. An existing file keeps its permissions.
// WriteFile itself asks nothing; the write_file tool confirms a replacement first.
func (rs *Roots) WriteFile(ctx context.Context, in WriteFileInput) (WriteFileOutput, error) {
	return rs.writeFile(ctx, in, nil)
}

// writeFile is WriteFile with the confirmation of a replacement: the user is shown
// the file's size and first lines and the start of the new content, and the write
// is bound to the version they saw (a file changed since is not replaced).
func (rs *Roots) writeFile(ctx context.Context, in WriteFileInput, confirm confirmFunc) (WriteFileOutput, error) {
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return WriteFileOutput{}, err
	}
	if rel == "." {
		return WriteFileOutput{}, fmt.Errorf("%s is an allowed directory itself; give the path of a file inside it", display)
	}
	if err := refuseOwnTempName(display); err != nil {
		return WriteFileOutput{}, err
	}
	perm, keep, created := fs.FileMode(0o666), false, false
	var expect fs.FileInfo
	st, err := root.os.Lstat(rel)
	switch {
	case err == nil:
		if err := writableTarget(display, st); err != nil {
			return WriteFileOutput{}, err
		}
		perm, keep = st.Mode().Perm(), true
		if confirm != nil {
			version, err := fileVersion(root.os, rel, st)
			if err != nil {
				return WriteFileOutput{}, rs.explain(display, err)
			}
			msg := fmt.Sprintf("Replace the whole file %s with %d bytes of new content? Its old content is lost.\n\nThe file now has %s\n\n%s",
				display, len(in.Content), describeExisting(root.os, rel, st), newContentHead(in.Content))
			if err := confirm(msg, version); err != nil {
				return WriteFileOutput{}, err
			}
			expect = st
		}
	case errors.Is(err, fs.ErrNotExist):
		created = true
		if err := rs.checkParentDir(root, rel, display); err != nil {
			return WriteFileOutput{}, err
		}
	default:
		return WriteFileOutput{}, rs.explain(display, err)
	}
	if err := atomicWrite(root.os, rel, []byte(in.Content), perm, keep, expect); err != nil {
		return WriteFileOutput{}, rs.explain(display, err)
	}
	return WriteFileOutput{Path: display, BytesWritten: len(in.Content), Created: created}, nil
}

// writableTarget refuses symlinks, directories and special files as write targets.
func writableTarget(display string, st fs.FileInfo) error {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; refusing to write through it (write to the path it points to instead)", display)
	case st.IsDir():
		return fmt.Errorf("%s is a directory, not a file", display)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (a device, pipe or socket); refusing to write", display)
	}
	return nil
}

// checkParentDir explains a missing or non-directory parent of a path to be created.
func (rs *Roots) checkParentDir(root *Root, rel, display string) error {
	parent := filepath.Dir(rel)
	pst, err := root.os.Stat(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the directory of %s does not exist; create it first with create_directory", display)
		}
		return rs.explain(root.Join(parent), err)
	}
	if !pst.IsDir() {
		return fmt.Errorf("%s is not a directory, so %s cannot be created in it", root.Join(parent), display)
	}
	return nil
}

// atomicWrite writes data to a temporary sibling and renames it over rel, all through
// the root. With keepPerm the new file gets exactly perm; otherwise perm is filtered by
// the umask like any new file. If expect is given, the write is abandoned when rel is
// no longer the file that was read (someone else changed it meanwhile).
func atomicWrite(root *os.Root, rel string, data []byte, perm fs.FileMode, keepPerm bool, expect fs.FileInfo) (err error) {
	tmp, err := tempSibling(rel)
	if err != nil {
		return err
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if keepPerm {
		if err := f.Chmod(perm); err != nil { // on the descriptor: no path race
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if expect != nil {
		cur, err := root.Lstat(rel)
		if err != nil || !os.SameFile(cur, expect) || !cur.ModTime().Equal(expect.ModTime()) || cur.Size() != expect.Size() {
			return errors.New("the file changed on disk while it was being edited; read it again and retry")
		}
	}
	if err := root.Rename(tmp, rel); err != nil {
		return err
	}
	renamed = true
	return nil
}

// CreateDirectoryInput names a directory to create with its parents.
type CreateDirectoryInput struct {
	Path string `json:"path"`
}

// CreateDirectoryOutput says whether anything was created.
type CreateDirectoryOutput struct {
	Path    string `json:"path" jsonschema_description:"Absolute path of the directory"`
	Created bool   `json:"created" jsonschema_description:"False when the directory already existed"`
}

// CreateDirectory is MkdirAll through the root: every component is created or followed
// inside it, and an existing directory is not an error.
func (rs *Roots) CreateDirectory(ctx context.Context, in CreateDirectoryInput) (CreateDirectoryOutput, error) {
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return CreateDirectoryOutput{}, err
	}
	if st, err := root.os.Lstat(rel); err == nil {
		if st.IsDir() {
			return CreateDirectoryOutput{Path: display}, nil
		}
		return CreateDirectoryOutput{}, fmt.Errorf("%s already exists and is not a directory", display)
	}
	if err := root.os.MkdirAll(rel, 0o777); err != nil {
		return CreateDirectoryOutput{}, rs.explain(display, err)
	}
	return CreateDirectoryOutput{Path: display, Created: true}, nil
}

// MoveFileInput renames a file or directory.
type MoveFileInput struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Overwrite   bool   `json:"overwrite,omitempty"`
}

// MoveFileOutput says where the entry went.
type MoveFileOutput struct {
	Source      string `json:"source" jsonschema_description:"Absolute path moved from"`
	Destination string `json:"destination" jsonschema_description:"Absolute path moved to"`
	Replaced    bool   `json:"replaced" jsonschema_description:"True when an existing file at the destination was replaced"`
}

// MoveFile renames within one allowed directory through its root. It never replaces an
// existing destination unless overwrite is set; the check and the rename are two steps,
// so a file created at the destination in between by another process can still be
// replaced. A symbolic link is moved as a link. Moves between different allowed
// directories are refused (a rename cannot cross two roots). MoveFile itself asks
// nothing; the move_file tool confirms replacing an existing destination first.
func (rs *Roots) MoveFile(ctx context.Context, in MoveFileInput) (MoveFileOutput, error) {
	return rs.moveFile(ctx, in, nil)
}

// moveFile is MoveFile with the confirmation of an overwrite: the user is shown the
// file that will be replaced, and the move is bound to the versions of the source
// and of that file they saw.
func (rs *Roots) moveFile(ctx context.Context, in MoveFileInput, confirm confirmFunc) (MoveFileOutput, error) {
	sroot, srel, sdisp, err := rs.resolveDisplay(in.Source)
	if err != nil {
		return MoveFileOutput{}, err
	}
	droot, drel, ddisp, err := rs.resolveDisplay(in.Destination)
	if err != nil {
		return MoveFileOutput{}, err
	}
	if sroot != droot {
		return MoveFileOutput{}, fmt.Errorf("%s and %s are in different allowed directories (%s and %s); a move must stay within one", sdisp, ddisp, sroot.Dir(), droot.Dir())
	}
	root := sroot
	if srel == "." {
		return MoveFileOutput{}, fmt.Errorf("%s is an allowed directory itself and cannot be moved", sdisp)
	}
	src, err := root.os.Lstat(srel)
	if err != nil {
		return MoveFileOutput{}, rs.explain(sdisp, err)
	}
	if dst, err := root.os.Lstat(drel); err == nil && dst.IsDir() {
		drel = filepath.Join(drel, filepath.Base(srel))
		ddisp = root.Join(drel)
	}
	if err := refuseOwnTempName(ddisp); err != nil {
		return MoveFileOutput{}, err
	}
	if drel == srel {
		return MoveFileOutput{}, fmt.Errorf("%s: source and destination are the same", sdisp)
	}
	if _, inside := within(srel, drel); inside {
		return MoveFileOutput{}, fmt.Errorf("cannot move %s into itself (%s)", sdisp, ddisp)
	}
	replaced := false
	dst, err := root.os.Lstat(drel)
	switch {
	case err == nil:
		if !in.Overwrite {
			return MoveFileOutput{}, fmt.Errorf("%s already exists; pass overwrite=true to replace it", ddisp)
		}
		if dst.IsDir() {
			return MoveFileOutput{}, fmt.Errorf("%s is a directory; overwrite replaces files only", ddisp)
		}
		replaced = true
		if confirm != nil {
			sv, err := fileVersion(root.os, srel, src)
			if err != nil {
				return MoveFileOutput{}, rs.explain(sdisp, err)
			}
			dv, err := fileVersion(root.os, drel, dst)
			if err != nil {
				return MoveFileOutput{}, rs.explain(ddisp, err)
			}
			msg := fmt.Sprintf("Move %s to %s, replacing the file that is there? Its content is lost.\n\nThe file replaced has %s",
				sdisp, ddisp, describeExisting(root.os, drel, dst))
			if err := confirm(msg, sv, dv); err != nil {
				return MoveFileOutput{}, err
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := rs.checkParentDir(root, drel, ddisp); err != nil {
			return MoveFileOutput{}, err
		}
	default:
		return MoveFileOutput{}, rs.explain(ddisp, err)
	}
	if err := root.os.Rename(srel, drel); err != nil {
		return MoveFileOutput{}, rs.explain(sdisp+" -> "+ddisp, err)
	}
	return MoveFileOutput{Source: sdisp, Destination: ddisp, Replaced: replaced}, nil
}
