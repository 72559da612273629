//go:build !linux

package filesystem

import "os"

// unlinkFile removes name from dir through the root (the caller checked with Lstat
// that it is a regular file; os.Root.Remove never follows a symbolic link).
func unlinkFile(dir *os.Root, name string) error {
	return dir.Remove(name)
}
