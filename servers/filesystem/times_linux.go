//go:build linux

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

// platformTimes reads what Linux's stat adds to fs.FileInfo: access and status change
// times and the hard link count (creation time needs statx and is left out).
func platformTimes(fi fs.FileInfo) fileTimes {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileTimes{}
	}
	return fileTimes{
		accessed: time.Unix(st.Atim.Sec, st.Atim.Nsec),
		changed:  time.Unix(st.Ctim.Sec, st.Ctim.Nsec),
		links:    uint64(st.Nlink),
	}
}
