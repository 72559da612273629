package benchcmp

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Table collects per-call timings of sub-benchmarks so a parent benchmark can print
// ratios between them (ours over theirs, stdio over bare echo). Each sub-benchmark
// calls Record last. Of its runs, the ones with the most iterations count (not the
// one-iteration probe), and of those (-count) the fastest: on a shared machine the
// least disturbed run is the best estimate of the code's own cost.
type Table struct {
	mu   sync.Mutex
	rows map[string]map[string]sample // row → column → best run
}

type sample struct {
	n   int
	per time.Duration
}

// Record stores b's time per operation under (row, column) and reports throughput
// as calls/s. Call it at the end of the benchmark function.
func (t *Table) Record(b *testing.B, row, column string) {
	b.Helper()
	if b.N == 0 {
		return
	}
	per := b.Elapsed() / time.Duration(b.N)
	if per > 0 {
		b.ReportMetric(float64(time.Second)/float64(per), "calls/s")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rows == nil {
		t.rows = map[string]map[string]sample{}
	}
	if t.rows[row] == nil {
		t.rows[row] = map[string]sample{}
	}
	if old, ok := t.rows[row][column]; !ok || b.N > old.n || (b.N == old.n && per < old.per) {
		t.rows[row][column] = sample{n: b.N, per: per}
	}
}

// Ratios renders, for every row holding both columns, num's and den's best time per
// call, their ratio and the throughput ratio (den/num: >1 means num is faster).
func (t *Table) Ratios(num, den string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var names []string
	for name, cols := range t.rows {
		if cols[num].per > 0 && cols[den].per > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-32s %12s %12s %14s %16s\n", "case", num, den, num+"/"+den+" time", num+"/"+den+" calls/s")
	for _, name := range names {
		n, d := t.rows[name][num].per, t.rows[name][den].per
		fmt.Fprintf(&sb, "%-32s %12s %12s %14.2f %16.2f\n", name, n, d, float64(n)/float64(d), float64(d)/float64(n))
	}
	return sb.String()
}
