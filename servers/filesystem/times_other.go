//go:build !linux && !darwin

package filesystem

import (
	"io/fs"
	"time"
)

type fileTimes struct {
	accessed, changed, created time.Time
	links                      uint64
}

// platformTimes has nothing beyond fs.FileInfo on this platform.
func platformTimes(fs.FileInfo) fileTimes { return fileTimes{} }
