package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// The benchmarks compare Query with pgx used directly on the same pool, so the ratio
// of their ns/op is this layer's overhead (one round trip each: BEGIN READ ONLY,
// SET LOCAL, the statement, ROLLBACK and the cleanup check are pipelined).
// Run: go test -run '^$' -bench . -benchmem

const oneRowSQL = "SELECT 42::int4 AS n, 'hello'::text AS s"

func benchDB(b *testing.B, opts Options) *DB {
	d := pgtest.NewDatabase(b)
	opts.MaxConns = 1
	return openDB(b, d.URL, opts)
}

// BenchmarkQueryOneRow is one small query through Query.
func BenchmarkQueryOneRow(b *testing.B) {
	db := benchDB(b, Options{})
	ctx := context.Background()
	cpu := serverCPU(b, db)
	b.ReportAllocs()
	for b.Loop() {
		res, err := db.Query(ctx, oneRowSQL, nil)
		if err != nil || res.RowCount != 1 {
			b.Fatal(res, err)
		}
	}
	cpu()
}

// BenchmarkQueryOneRowLatency is BenchmarkQueryOneRow timed per call: it reports the
// median and 90th percentile, which a loaded machine disturbs less than the mean.
func BenchmarkQueryOneRowLatency(b *testing.B) {
	db := benchDB(b, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := db.Query(ctx, oneRowSQL, nil)
		took = append(took, time.Since(start))
		if err != nil || res.RowCount != 1 {
			b.Fatal(res, err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*9/10].Nanoseconds()), "p90-ns")
}

// BenchmarkPgxDirectOneRow is the same statement through pgx's pool, the baseline.
func BenchmarkPgxDirectOneRow(b *testing.B) {
	db := benchDB(b, Options{})
	ctx := context.Background()
	cpu := serverCPU(b, db)
	b.ReportAllocs()
	for b.Loop() {
		var n int32
		var s string
		if err := db.Pool().QueryRow(ctx, oneRowSQL).Scan(&n, &s); err != nil {
			b.Fatal(err)
		}
	}
	cpu()
}

// serverCPU reports, as server-µs/op, the CPU time the PostgreSQL backend serving the
// pool's only connection spent per operation (from /proc, so only for a server on
// this machine). Unlike ns/op it hardly moves when other processes load the machine.
func serverCPU(b *testing.B, db *DB) (report func()) {
	var pid int32
	if err := db.Pool().QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	read := func() (time.Duration, bool) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(utime+stime) * 10 * time.Millisecond, true // USER_HZ is 100 on Linux
	}
	start, ok := read()
	return func() {
		if end, ok2 := read(); ok && ok2 && b.N > 0 {
			b.ReportMetric(float64((end-start).Microseconds())/float64(b.N), "server-µs/op")
		}
	}
}

// BenchmarkQueryCapped10M asks for 10 million rows with the default 1000-row cap:
// the server stops at the cap (portal row limit), so the cost per call is that of
// 1000 rows. Reports rows/s delivered.
func BenchmarkQueryCapped10M(b *testing.B) {
	db := benchDB(b, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		res, err := db.Query(ctx, "SELECT generate_series(1, 10000000) AS n, 'row' AS label", nil)
		if err != nil || !res.Truncated {
			b.Fatal(res, err)
		}
		rows += res.RowCount
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkPgxDirectCapped10M is the naive way: pgx rows, stop after 1000 and close.
// Closing drains the other 9,999,000 rows from the server.
func BenchmarkPgxDirectCapped10M(b *testing.B) {
	db := benchDB(b, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		rows, err := db.Pool().Query(ctx, "SELECT generate_series(1, 10000000) AS n, 'row' AS label")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			if n++; n == 1000 {
				break
			}
		}
		rows.Close()
		if rows.Err() != nil {
			b.Fatal(rows.Err())
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkQueryOneRowCacheFill is BenchmarkQueryOneRowLatency with the connection's
// statement cache off, or holding n statements (of about 300 characters each) besides
// the one timed. The session check lists the connection's prepared statements in
// every call (pg_prepared_statements materializes them all, about 0.4µs each), so its
// cost grows with the cache: this is what bounds stmtCacheSize.
func BenchmarkQueryOneRowCacheFill(b *testing.B) {
	for _, n := range []int{-1, 0, 8, 16, 32, 64} {
		name := strconv.Itoa(n)
		if n < 0 {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			db := benchDB(b, Options{})
			if n < 0 {
				db.stmtCacheMax = 0
			} else {
				db.stmtCacheMax = n + 1
			}
			ctx := context.Background()
			pad := strings.Repeat("x", 260)
			for i := range n {
				sql := fmt.Sprintf("SELECT %d AS n, '%s' AS pad", i, pad)
				for range 2 { // the gate, then prepared under a name
					if _, err := db.Query(ctx, sql, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
			if n >= 0 && len(stmtsOf(b, db).m) != n {
				b.Fatalf("cache holds %d statements, want %d", len(stmtsOf(b, db).m), n)
			}
			cpu := serverCPU(b, db)
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := db.Query(ctx, oneRowSQL, nil)
				took = append(took, time.Since(start))
				if err != nil || res.RowCount != 1 {
					b.Fatal(res, err)
				}
			}
			cpu()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
		})
	}
}
