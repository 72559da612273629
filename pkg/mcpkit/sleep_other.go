//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mcpkit

import "time"

// sleepThread is time.Sleep where the kernel's sleep is not at hand.
func sleepThread(d time.Duration) { time.Sleep(d) }
