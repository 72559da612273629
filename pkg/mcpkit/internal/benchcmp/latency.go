package benchcmp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// Latencies are per-call durations.
type Latencies []time.Duration

// Pct is the p-th quantile (0 ≤ p ≤ 1), nearest rank; 0 when empty.
func (l Latencies) Pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

// Alternate times calls of every fn in turn, block calls at a time, for rounds
// rounds, rotating which goes first each round, so that all of them see the same
// machine: a ratio of their percentiles is fair even while the load moves. It returns
// the latencies of each fn, in the order given.
func Alternate(rounds, block int, fns ...func() error) ([]Latencies, error) {
	rs, err := AlternateRounds(rounds, block, fns...)
	if err != nil {
		return nil, err
	}
	out := make([]Latencies, len(fns))
	for i := range fns {
		out[i] = rs.All(i)
	}
	return out, nil
}

// Rounds are the latencies of Alternate kept per round: [round][fn].
type Rounds [][]Latencies

// All is fn i's latencies over every round.
func (rs Rounds) All(i int) Latencies {
	var l Latencies
	for _, r := range rs {
		l = append(l, r[i]...)
	}
	return l
}

// Ratio is the median over rounds of fn num's p-quantile over fn den's within the same
// round: neighbours in time see the same load, so this moves less with the machine's
// load than the ratio of pooled percentiles does.
func (rs Rounds) Ratio(num, den int, p float64) float64 {
	var rats []float64
	for _, r := range rs {
		if d := r[den].Pct(p); d > 0 {
			rats = append(rats, float64(r[num].Pct(p))/float64(d))
		}
	}
	if len(rats) == 0 {
		return 0
	}
	slices.Sort(rats)
	return rats[len(rats)/2]
}

// AlternateRounds is Alternate keeping each round's latencies apart.
func AlternateRounds(rounds, block int, fns ...func() error) (Rounds, error) {
	out := make(Rounds, rounds)
	for r := range rounds {
		out[r] = make([]Latencies, len(fns))
		for k := range fns {
			i := (k + r) % len(fns)
			for range block {
				t0 := time.Now()
				if err := fns[i](); err != nil {
					return nil, err
				}
				out[r][i] = append(out[r][i], time.Since(t0))
			}
		}
	}
	return out, nil
}

// RatioRow is one line of a latency ratio table: num against den, p50 and p99.
type RatioRow struct {
	Case     string
	Num, Den Latencies
	// Rounds, when set, are the same calls by round (num at index 0, den at 1): the
	// ratios are then the median of the per-round ratios (see Rounds.Ratio).
	Rounds Rounds
	Load   string // LoadAvg when measured
}

// RatioTable renders rows as "case  num p50  den p50  p50 ratio  num p99  den p99  p99
// ratio  load", with a header naming num and den.
func RatioTable(num, den string, rows []RatioRow) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-34s %10s %10s %9s %10s %10s %9s  %s\n", "case", num+" p50", den+" p50", "p50 ratio", num+" p99", den+" p99", "p99 ratio", "load")
	for _, r := range rows {
		n50, d50, n99, d99 := r.Num.Pct(0.5), r.Den.Pct(0.5), r.Num.Pct(0.99), r.Den.Pct(0.99)
		r50, r99 := ratio(n50, d50), ratio(n99, d99)
		if r.Rounds != nil {
			r50, r99 = r.Rounds.Ratio(0, 1, 0.5), r.Rounds.Ratio(0, 1, 0.99)
		}
		fmt.Fprintf(&sb, "%-34s %10s %10s %9.2f %10s %10s %9.2f  %s\n", r.Case, us(n50), us(d50), r50, us(n99), us(d99), r99, r.Load)
	}
	return sb.String()
}

// Alternator runs calls of several functions in alternating blocks, one call per
// Step, so that a benchmark's b.Loop can drive it: block calls of one, then block of
// the next, the order rotating every round (see AlternateRounds).
type Alternator struct {
	block  int
	fns    []func() error
	rounds Rounds
	i      int
}

// NewAlternator alternates fns in blocks of block calls.
func NewAlternator(block int, fns ...func() error) *Alternator {
	return &Alternator{block: block, fns: fns}
}

// Step makes the next call and records its latency.
func (a *Alternator) Step() error {
	n := len(a.fns)
	blk := a.i / a.block
	r, k := blk/n, blk%n
	fn := (k + r) % n
	if len(a.rounds) <= r {
		a.rounds = append(a.rounds, make([]Latencies, n))
	}
	t0 := time.Now()
	err := a.fns[fn]()
	a.rounds[r][fn] = append(a.rounds[r][fn], time.Since(t0))
	a.i++
	return err
}

// Rounds are the latencies so far, complete rounds only.
func (a *Alternator) Rounds() Rounds {
	full := a.i / (a.block * len(a.fns))
	return a.rounds[:min(full, len(a.rounds))]
}

// Summary prints a benchmark's result table and, when the environment names a file
// in BENCH_SUMMARY (make bench does), appends it there too, so that every ratio can be
// printed again, together, at the end of a long run.
func Summary(text string) { mcpkittest.BenchSummary(text) }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// us formats d in microseconds with one decimal.
func us(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/1e3) }

// Throughput counts calls completed by concurrent callers over timed windows, and
// keeps each call's latency.
type Throughput struct {
	Calls   int64
	Elapsed time.Duration
	Err     error
	Lat     Latencies
}

// Run calls fn from callers goroutines for d and adds the calls, time and latencies.
func (t *Throughput) Run(d time.Duration, callers int, fn func() error) {
	var n atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	t0 := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat Latencies
			defer func() {
				mu.Lock()
				t.Lat = append(t.Lat, lat...)
				mu.Unlock()
			}()
			for !stop.Load() {
				c0 := time.Now()
				if err := fn(); err != nil {
					mu.Lock()
					t.Err = errors.Join(t.Err, err)
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(c0))
				n.Add(1)
			}
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	t.Elapsed += time.Since(t0)
	t.Calls += n.Load()
}

// PerSecond is the calls per second over all windows.
func (t *Throughput) PerSecond() float64 {
	if t.Elapsed <= 0 {
		return 0
	}
	return float64(t.Calls) / t.Elapsed.Seconds()
}
