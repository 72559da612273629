package errorserver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// procCost reads what a process has cost so far: bytes it caused to be written to
// storage (/proc/PID/io write_bytes) and CPU time (user + system, /proc/PID/stat), on
// Linux. The ingest benchmarks report both per event: unlike events/s, they hardly
// move with the machine's load, so a change to the store is judged by them first.
type procCost struct{ writeBytes, cpuTicks int64 }

func readProcCost(pid string) (procCost, bool) {
	var c procCost
	io, err := os.ReadFile("/proc/" + pid + "/io")
	if err != nil {
		return c, false
	}
	for line := range strings.SplitSeq(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			c.writeBytes, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return c, false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return c, false
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	c.cpuTicks = utime + stime
	return c, true
}

// meterCost starts measuring process pid ("self" for this one); the returned func
// reports disk KB and CPU µs per op since the start, and returns them (CPU in clock
// ticks of 10 ms, so it needs a few seconds of work to be exact to a few percent).
func meterCost(b *testing.B, pid string) func() (diskKB, cpuUs float64) {
	start, ok := readProcCost(pid)
	return func() (float64, float64) {
		end, ok2 := readProcCost(pid)
		if !ok || !ok2 || b.N == 0 {
			return 0, 0
		}
		n := float64(b.N)
		diskKB := float64(end.writeBytes-start.writeBytes) / 1024 / n
		cpuUs := float64(end.cpuTicks-start.cpuTicks) * 1e4 / n
		b.ReportMetric(diskKB, "disk-KB/event")
		b.ReportMetric(cpuUs, "cpu-µs/event")
		return diskKB, cpuUs
	}
}

// ingestSummary writes one line of `make bench`'s summary for an ingest benchmark
// (only for a run long enough to mean something).
func ingestSummary(b *testing.B, what string, eventsPerSec, diskKB, cpuUs float64) {
	if b.N < 1000 {
		return
	}
	mcpkittest.BenchSummary(fmt.Sprintf("errors ingest, %s: %.0f events/s acknowledged durably over %d events (target ≥ 10,000 with 16 clients posting prepared envelopes); %.1f KB written to disk and %.0f µs of that process's CPU per event; %s\n",
		what, eventsPerSec, b.N, diskKB, cpuUs, mcpkittest.LoadAvg()))
}
