//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package errorserver

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive, non-blocking advisory lock on f. The kernel releases it
// when the process dies, so a kill -9 never leaves a stale lock behind.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
