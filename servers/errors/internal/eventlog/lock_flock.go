//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package eventlog

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking advisory lock on f. The kernel releases it
// when the process dies, so a kill -9 never leaves a stale lock behind.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
