//go:build darwin

package filesystem

import (
	"io/fs"
	"syscall"
	"time"
)

type fileTimes struct {
	accessed, changed, created time.Time
	links                      uint64
}

// platformTimes reads what macOS's stat adds to fs.FileInfo, birth time included.
func platformTimes(fi fs.FileInfo) fileTimes {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileTimes{}
	}
	return fileTimes{
		accessed: time.Unix(st.Atimespec.Sec, st.Atimespec.Nsec),
		changed:  time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec),
		created:  time.Unix(st.Birthtimespec.Sec, st.Birthtimespec.Nsec),
		links:    uint64(st.Nlink),
	}
}
