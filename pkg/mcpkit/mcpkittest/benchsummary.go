package mcpkittest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// BenchSummary prints a benchmark's result table and, when the environment names a
// file in BENCH_SUMMARY (make bench does), appends it there too, so that every ratio
// can be printed again, together, at the end of a long run.
func BenchSummary(text string) {
	fmt.Print(text)
	if f := os.Getenv("BENCH_SUMMARY"); f != "" {
		if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = w.WriteString(text)
			w.Close()
		}
	}
}

// LoadAvg is the 1-minute load average and the number of CPUs, as "load 3.21/2cpu",
// printed next to every ratio: on a shared machine a ratio means little without it.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return fmt.Sprintf("load ?/%dcpu", runtime.NumCPU())
	}
	return fmt.Sprintf("load %s/%dcpu", strings.Fields(string(b))[0], runtime.NumCPU())
}
