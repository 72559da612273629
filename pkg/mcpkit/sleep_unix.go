//go:build linux || freebsd || netbsd || openbsd || dragonfly

package mcpkit

import (
	"syscall"
	"time"
)

// sleepThread blocks the calling thread for d in the kernel, leaving the runtime's
// timers and network poller alone (see inlineWatch).
func sleepThread(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
