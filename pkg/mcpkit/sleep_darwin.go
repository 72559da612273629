package mcpkit

import (
	"syscall"
	"time"
)

// sleepThread blocks the calling thread for d in the kernel (select with no
// descriptors), leaving the runtime's timers and network poller alone (see
// inlineWatch).
func sleepThread(d time.Duration) {
	tv := syscall.NsecToTimeval(int64(d))
	_ = syscall.Select(0, nil, nil, nil, &tv)
}
