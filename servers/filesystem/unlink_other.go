//go:build !linux

package filesystem

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// unlinkFile removes name from dir through the root (the caller checked with Lstat
// that it is a regular file; os.Root.Remove never follows a symbolic link).
func unlinkFile(dir *os.Root, name string) error {
	return dir.Remove(name)
}

// removeEmptyDir removes the empty directory rel through the root after checking that
// it is still a directory (os.Root.Remove would also remove a file swapped in between;
// Linux has unlinkat with AT_REMOVEDIR for that, see unlink_linux.go).
func removeEmptyDir(root *os.Root, rel string) error {
	st, err := root.Lstat(rel)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &os.PathError{Op: "rmdir", Path: filepath.Base(rel), Err: syscall.ENOTDIR}
	}
	err = root.Remove(rel)
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return errNotEmpty
	}
	return err
}
