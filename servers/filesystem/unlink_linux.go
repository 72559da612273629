//go:build linux

package filesystem

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// unlinkFile removes the non-directory name from dir with unlinkat(2) without
// AT_REMOVEDIR, so even a directory swapped in under that name since it was checked is
// never removed (os.Root.Remove would also try rmdir). A symbolic link would be removed
// as a link, never followed.
func unlinkFile(dir *os.Root, name string) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return syscall.Unlinkat(int(d.Fd()), name)
}

// removeEmptyDir removes the empty directory rel of root with unlinkat(2) and
// AT_REMOVEDIR in its parent: never a file swapped in under that name, and a directory
// that is no longer empty stays.
func removeEmptyDir(root *os.Root, rel string) error {
	parent, err := root.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return err
	}
	defer parent.Close()
	d, err := parent.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	err = unix.Unlinkat(int(d.Fd()), filepath.Base(rel), unix.AT_REMOVEDIR)
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return errNotEmpty
	}
	return err
}
