package mcpkit

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// watchTimer is the inline watch's clock on Linux: a timerfd read through the
// runtime's network poller. Waiting for it parks the watch goroutine like any read
// (no P held, no thread of its own), and arming it is a syscall on the watch's own
// thread, so the runtime's timers are never involved (see inlineWatch).
type watchTimer struct {
	fd   int
	file *os.File
	buf  [8]byte
}

func newWatchTimer() *watchTimer {
	const clockMonotonic, tfdNonblock, tfdCloexec = 1, 0x800, 0x80000
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil // sleep falls back to time.Sleep
	}
	return &watchTimer{fd: int(fd), file: os.NewFile(fd, "inline-watch-timer")}
}

// sleep waits for d; false when the timer was closed (the connection ended).
func (t *watchTimer) sleep(d time.Duration) bool {
	if t == nil {
		time.Sleep(d)
		return true
	}
	spec := struct{ interval, value syscall.Timespec }{value: syscall.NsecToTimespec(int64(d))}
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); errno != 0 {
		time.Sleep(d)
		return true
	}
	_, err := t.file.Read(t.buf[:])
	return err == nil
}

func (t *watchTimer) close() {
	if t != nil {
		t.file.Close()
	}
}
