//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package errorserver

import "os"

// tryLock is a no-op where flock(2) is not available: two processes that both ingest
// into one data directory are not detected there (SQLite still keeps the database
// consistent; only one of them can hold the ingest port).
func tryLock(f *os.File) error { return nil }
