package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The floor of the side-by-side benchmark (BenchmarkQueryVsTypeScript): what any
// server answering the query tool over stdio must spend, measured in the same setup as
// the two servers: a subprocess on OS pipes answering the same tools/call with a
// no-op tool (mcpkit's JSON-RPC, no database), plus the safe read (BEGIN READ ONLY,
// SET LOCAL statement_timeout, the statement, ROLLBACK, one pipelined batch) through
// pgx as the same role. Nothing that does what the issue requires over stdio can beat
// their sum by much; when p50(TS)/2 is below it, the 2× target cannot be met by
// making this server faster.

// noopServerEnv makes the test binary, started as a subprocess, serve noopQueryServer
// on its stdio instead of running tests (see TestMain).
const noopServerEnv = "MCPKIT_PG_NOOP_STDIO_SERVER"

// serveNoopStdio is the no-op subprocess's main.
func serveNoopStdio() int {
	if err := noopQueryServer().ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// startNoopProc starts this test binary as the no-op server subprocess.
func startNoopProc(b *testing.B) *benchProc {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	p, err := startBenchProc([]string{exe}, []string{noopServerEnv + "=1"})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// safeRead returns a function that makes the one-row safe read through pgx on pool.
func safeRead(b *testing.B, pool *pgxpool.Pool, timeoutMS string) func() {
	ctx := context.Background()
	return func() {
		var n int32
		var s string
		batch := &pgx.Batch{}
		batch.Queue("BEGIN READ ONLY")
		batch.Queue("SELECT pg_catalog.set_config('statement_timeout', $1, true)", timeoutMS)
		batch.Queue(oneRowSQL).QueryRow(func(r pgx.Row) error { return r.Scan(&n, &s) })
		batch.Queue("ROLLBACK")
		if err := pool.SendBatch(ctx, batch).Close(); err != nil {
			b.Fatal(err)
		}
		if n != 42 || s != "hello" {
			b.Fatalf("safe read returned %d %q", n, s)
		}
	}
}
