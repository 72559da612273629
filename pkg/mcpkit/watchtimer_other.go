//go:build !linux

package mcpkit

import "time"

// watchTimer is the inline watch's clock: the runtime's timers, where Linux's timerfd
// is not at hand (see watchtimer_linux.go).
type watchTimer struct{}

func newWatchTimer() *watchTimer { return nil }

func (t *watchTimer) sleep(d time.Duration) bool { time.Sleep(d); return true }

func (t *watchTimer) close() {}
