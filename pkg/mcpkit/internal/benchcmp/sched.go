package benchcmp

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Sched is what the Linux scheduler accounted to a process's threads
// (/proc/PID/task/*/schedstat): time on a CPU, time runnable but waiting for one, and
// how many times a thread was put on a CPU. Per call, Slices counts the thread
// wake-ups a round trip costs, which is what CPU contention makes expensive.
type Sched struct {
	CPU, Wait time.Duration
	Slices    int64
	Threads   int
}

// ReadSched sums the schedstat of every thread of pid; the zero Sched and an error
// where /proc is not available.
func ReadSched(pid int) (Sched, error) {
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		return Sched{}, fmt.Errorf("no schedstat for pid %d", pid)
	}
	var s Sched
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread exited
		}
		var run, wait, slices int64
		if _, err := fmt.Sscan(string(b), &run, &wait, &slices); err != nil {
			continue
		}
		s.CPU += time.Duration(run)
		s.Wait += time.Duration(wait)
		s.Slices += slices
		s.Threads++
	}
	return s, nil
}

// Sub is s minus an earlier reading.
func (s Sched) Sub(before Sched) Sched {
	return Sched{CPU: s.CPU - before.CPU, Wait: s.Wait - before.Wait, Slices: s.Slices - before.Slices, Threads: s.Threads}
}

// PerCall renders s divided over n calls: CPU and run-queue wait in µs, and slices.
func (s Sched) PerCall(n int) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprintf("cpu %.1fµs wait %.1fµs slices %.2f threads %d", float64(s.CPU)/1e3/float64(n), float64(s.Wait)/1e3/float64(n), float64(s.Slices)/float64(n), s.Threads)
}
