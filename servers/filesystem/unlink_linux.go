//go:build linux

package filesystem

import (
	"os"
	"syscall"
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
