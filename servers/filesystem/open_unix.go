//go:build unix

package filesystem

import (
	"os"
	"syscall"
)

// openForRead opens name through r without blocking: opening a FIFO for reading
// blocks until a writer appears, so O_NONBLOCK lets the caller fstat the descriptor and
// refuse anything that is not a regular file. It has no effect on regular files.
func openForRead(r *os.Root, name string) (*os.File, error) {
	return r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
