//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package eventlog

import "os"

// lockFile is a no-op where flock(2) is not available: two servers sharing one data
// directory on such a system are not detected, so give each its own --data directory.
func lockFile(f *os.File) error { return nil }
