package postgres

// Side by side with the archived TypeScript server (@modelcontextprotocol/server-postgres
// 0.6.2, pinned in tools/npm: `make npm`), which runs a similar BEGIN READ ONLY …
// ROLLBACK per call: both are subprocesses on OS pipes, connected as the same
// pg_read_all_data role, driven by the same raw JSON-RPC client in alternating blocks.
// Printed: one-row query p50 and p99, cold start (process start → initialize answered,
// and → first query result) and peak RSS.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// benchProc is a server subprocess on pipes with a bare line client.
type benchProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	id     int
}

func startBenchProc(argv, env []string) (*benchProc, error) {
	p := &benchProc{cmd: exec.Command(argv[0], argv[1:]...)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(stdout, 1<<20)
	return p, p.cmd.Start()
}

// call sends a request (method, params JSON) and returns its response line.
func (p *benchProc) call(method, params string) ([]byte, error) {
	p.id++
	id := fmt.Sprintf(`"id":%d`, p.id)
	if _, err := fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0",%s,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		return nil, err
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %v\nstderr: %s", method, err, p.stderr.String())
		}
		if bytes.Contains(line, []byte(id+",")) || bytes.Contains(line, []byte(id+"}")) {
			return line, nil
		}
	}
}

func (p *benchProc) notify(method string) error {
	_, err := fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
	return err
}

// peakRSS is the process's peak resident set in MiB (VmHWM), 0 if unknown.
func (p *benchProc) peakRSS() float64 {
	n, err := realclient.PeakRSS(p.cmd.Process.Pid)
	if err != nil {
		return 0
	}
	return float64(n) / (1 << 20)
}

func (p *benchProc) close() { realclient.EndStdio(p.cmd, p.stdin) }

// contender is one server: how to start it and how to speak to it.
type pgContender struct {
	name    string
	argv    []string
	env     []string
	init    string // initialize params
	call    string // tools/call params for the one-row query
	want    string // in the query result
	started func(p *benchProc) error
}

func loadAvg() string { return mcpkittest.LoadAvg() }

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func us(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/1e3) }

// BenchmarkQueryVsTypeScript: see the file comment. b.N is the number of queries per
// server.
func BenchmarkQueryVsTypeScript(b *testing.B) {
	node, script := realclient.NodePackage(b, "@modelcontextprotocol/server-postgres", "dist/index.js")
	d := pgtest.NewDatabase(b)
	role := d.CreateRole(b, "benchreader", "", "")
	d.Exec(b, "GRANT pg_read_all_data TO "+role)
	url := d.URLAs(role, "")
	bin := realclient.BuildCommand(b, "./cmd/mcp-server-postgres")
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	sql := `{"sql":"` + oneRowSQL + `"}`
	contenders := []pgContender{
		{name: "mcpkit", argv: []string{bin}, env: append(cleanEnv(), "DATABASE_URL="+url),
			init: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`,
			call: `{` + meta + `,"name":"query","arguments":` + sql + `}`, want: `"rows":[[42,"hello"]]`},
		// Node's URL parser wants a host; pg takes the socket directory from ?host=.
		{name: "ts-0.6.2", argv: []string{node, script, strings.Replace(url, "@/", "@localhost/", 1)},
			init: `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`,
			call: `{"name":"query","arguments":` + sql + `}`, want: `\"hello\"`,
			started: func(p *benchProc) error {
				if _, err := p.call("initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`); err != nil {
					return err
				}
				return p.notify("notifications/initialized")
			}},
	}

	// Cold start, alternating: start → initialize answered, and start → first query
	// result (initialize first for the TypeScript server, which needs it).
	const coldRuns = 7
	firstAnswer := make([][]time.Duration, len(contenders))
	firstResult := make([][]time.Duration, len(contenders))
	for r := range coldRuns + 1 {
		for k := range contenders {
			i := (k + r) % len(contenders)
			c := contenders[i]
			for _, full := range []bool{false, true} {
				t0 := time.Now()
				p, err := startBenchProc(c.argv, c.env)
				if err != nil {
					b.Fatal(err)
				}
				var took time.Duration
				if !full {
					_, err = p.call("initialize", c.init)
					took = time.Since(t0)
				} else {
					if c.started != nil {
						err = c.started(p)
					}
					var line []byte
					if err == nil {
						line, err = p.call("tools/call", c.call)
					}
					took = time.Since(t0)
					if err == nil && !bytes.Contains(line, []byte(c.want)) {
						err = fmt.Errorf("%s: unexpected result %.300s", c.name, line)
					}
				}
				p.close()
				if err != nil {
					b.Fatalf("%s: %v", c.name, err)
				}
				if r == 0 {
					continue // warm-up
				}
				if full {
					firstResult[i] = append(firstResult[i], took)
				} else {
					firstAnswer[i] = append(firstAnswer[i], took)
				}
			}
		}
	}

	procs := make([]*benchProc, len(contenders))
	for i, c := range contenders {
		p, err := startBenchProc(c.argv, c.env)
		if err != nil {
			b.Fatal(err)
		}
		defer p.close()
		if c.started != nil {
			if err := c.started(p); err != nil {
				b.Fatal(err)
			}
		}
		for range 50 { // warm: connection, prepared statements, JIT
			line, err := p.call("tools/call", c.call)
			if err != nil || !bytes.Contains(line, []byte(c.want)) {
				b.Fatalf("%s: %v %.300s", c.name, err, line)
			}
		}
		procs[i] = p
	}
	// The floor (stdiofloor_test.go): a no-op tool subprocess, then the safe read
	// through pgx as the same role, as the third side of the rotation.
	noop := startNoopProc(b)
	defer noop.close()
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	pcfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	safe := safeRead(b, pool, "30000")
	noopCall := `{` + meta + `,"name":"query","arguments":` + sql + `}`
	for range 50 {
		if line, err := noop.call("tools/call", noopCall); err != nil || !bytes.Contains(line, []byte(`"hello"`)) {
			b.Fatalf("no-op server: %v %.300s", err, line)
		}
		safe()
	}
	load := loadAvg()
	const block = 25
	const sides = 3 // mcpkit, TypeScript, floor
	lat := make([][]time.Duration, len(contenders))
	var floorNoop, floorSafe, floorSum []time.Duration
	var roundRatio50 []float64
	var cur [2][]time.Duration // this round's blocks
	i := 0
	step := func() {
		blk := i / block
		r, k := blk/sides, blk%sides
		side := (k + r) % sides
		i++
		if side == 2 {
			t0 := time.Now()
			line, err := noop.call("tools/call", noopCall)
			t1 := time.Now()
			safe()
			t2 := time.Now()
			if err != nil || !bytes.Contains(line, []byte(`"hello"`)) {
				b.Fatalf("no-op server: %v %.300s", err, line)
			}
			floorNoop, floorSafe, floorSum = append(floorNoop, t1.Sub(t0)), append(floorSafe, t2.Sub(t1)), append(floorSum, t2.Sub(t0))
		} else {
			t0 := time.Now()
			line, err := procs[side].call("tools/call", contenders[side].call)
			d := time.Since(t0)
			if err != nil || !bytes.Contains(line, []byte(contenders[side].want)) {
				b.Fatalf("%s: %v %.300s", contenders[side].name, err, line)
			}
			lat[side] = append(lat[side], d)
			cur[side] = append(cur[side], d)
		}
		if i%(sides*block) == 0 { // a round is complete
			roundRatio50 = append(roundRatio50, float64(pct(cur[1], 0.5))/float64(pct(cur[0], 0.5)))
			cur = [2][]time.Duration{}
		}
	}
	for b.Loop() {
		step()
	}
	// A p99 needs calls: at least minCalls each (on complete rounds), whatever the
	// benchmark time.
	const minCalls = 3000
	for len(lat[0]) < minCalls || len(lat[1]) < minCalls || i%(sides*block) != 0 {
		step()
	}
	if len(roundRatio50) == 0 {
		b.Fatal("too few calls for one round: raise -benchtime")
	}
	slices.Sort(roundRatio50)
	b.ReportMetric(float64(pct(lat[0], 0.5).Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(pct(lat[1], 0.5).Nanoseconds())/1e3, "ts-p50-µs")
	b.ReportMetric(float64(pct(floorSum, 0.5).Nanoseconds())/1e3, "floor-p50-µs")
	var sb strings.Builder
	fmt.Fprintf(&sb, "\npostgres one-row query over stdio, mcpkit vs @modelcontextprotocol/server-postgres 0.6.2 (both subprocesses, same pg_read_all_data role, alternating blocks of %d, %d calls each; target: ts/mcpkit p50 ≥ 2, p99 ≥ 5); %s\n", block, len(lat[0]), load)
	fmt.Fprintf(&sb, "%-10s %10s %10s %12s %12s %10s\n", "server", "p50", "p99", "cold→init", "cold→result", "peak RSS")
	for i, c := range contenders {
		fmt.Fprintf(&sb, "%-10s %10s %10s %12s %12s %8.1fMiB\n", c.name, us(pct(lat[i], 0.5)), us(pct(lat[i], 0.99)),
			fmt.Sprintf("%.1fms", float64(pct(firstAnswer[i], 0.5))/1e6), fmt.Sprintf("%.1fms", float64(pct(firstResult[i], 0.5))/1e6), procs[i].peakRSS())
	}
	ratio := func(f func(i int) float64) float64 { return f(1) / f(0) }
	fmt.Fprintf(&sb, "%-10s %10.2f %10.2f %12.2f %12.2f %10.2f   (p50: median of per-round ratios %.2f)\n", "ts/mcpkit",
		ratio(func(i int) float64 { return float64(pct(lat[i], 0.5)) }), ratio(func(i int) float64 { return float64(pct(lat[i], 0.99)) }),
		ratio(func(i int) float64 { return float64(pct(firstAnswer[i], 0.5)) }), ratio(func(i int) float64 { return float64(pct(firstResult[i], 0.5)) }),
		ratio(func(i int) float64 { return procs[i].peakRSS() }), roundRatio50[len(roundRatio50)/2])
	// The floor against the targets: what the best possible server would need to
	// reach, and whether that is below what the setup itself costs.
	tsP50, tsP99 := pct(lat[1], 0.5), pct(lat[1], 0.99)
	fl50, fl99 := pct(floorSum, 0.5), pct(floorSum, 0.99)
	verdict := func(need, floor time.Duration) string {
		if need < floor {
			return "below the floor: not reachable by any server in this setup"
		}
		return "above the floor: reachable in principle"
	}
	fmt.Fprintf(&sb, "%-10s %10s %10s   (per call: no-op MCP tool subprocess over stdio %s (p99 %s) + pgx safe read as the same role %s (p99 %s), %d calls)\n",
		"floor", us(fl50), us(fl99), us(pct(floorNoop, 0.5)), us(pct(floorNoop, 0.99)), us(pct(floorSafe, 0.5)), us(pct(floorSafe, 0.99)), len(floorSum))
	fmt.Fprintf(&sb, "2× p50 needs mcpkit ≤ ts p50/2 = %s: %s (floor %s; ts/floor %.2f; mcpkit − floor %s)\n",
		us(tsP50/2), verdict(tsP50/2, fl50), us(fl50), float64(tsP50)/float64(fl50), us(pct(lat[0], 0.5)-fl50))
	fmt.Fprintf(&sb, "5× p99 needs mcpkit ≤ ts p99/5 = %s: %s (floor p99 %s; ts/floor %.2f)\n\n",
		us(tsP99/5), verdict(tsP99/5, fl99), us(fl99), float64(tsP99)/float64(fl99))
	benchSummary(sb.String())
}

// benchSummary prints a result table and appends it to the file BENCH_SUMMARY names,
// if any (make bench prints them all again at the end).
func benchSummary(text string) { mcpkittest.BenchSummary(text) }

// BenchmarkCappedVsCopy: a 1,000-row capped result through the query tool (stdio, the
// default 1000-row cap on a 10-million-row statement) against the same 1,000 rows
// through COPY … TO STDOUT on a pgx connection, the fastest way PostgreSQL hands out
// rows: rows/s of each, alternating per call, and their ratio.
func BenchmarkCappedVsCopy(b *testing.B) {
	d := pgtest.NewDatabase(b)
	db := openDB(b, d.URL, Options{MaxConns: 1})
	c := newStdioClient(b, newServer(db, Config{}))
	args := []byte(`{"sql":"SELECT generate_series(1, 10000000) AS n, 'row' AS label"}`)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	const copySQL = "COPY (SELECT generate_series(1, 1000) AS n, 'row' AS label) TO STDOUT"
	var tool, cp time.Duration
	var toolBytes, copyBytes int
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		line := c.callTool(b, args)
		t1 := time.Now()
		var w countingWriter
		tag, err := conn.PgConn().CopyTo(ctx, &w, copySQL)
		t2 := time.Now()
		if err != nil || tag.RowsAffected() != 1000 {
			b.Fatal(tag, err)
		}
		if !bytes.Contains(line, []byte(`"truncated":true`)) {
			b.Fatalf("not truncated: %.300s", line)
		}
		tool += t1.Sub(t0)
		cp += t2.Sub(t1)
		toolBytes, copyBytes = len(line), w.n
	}
	rows := float64(1000 * b.N)
	b.ReportMetric(rows/tool.Seconds(), "tool-rows/s")
	b.ReportMetric(rows/cp.Seconds(), "copy-rows/s")
	b.ReportMetric(float64(cp)/float64(tool), "tool/copy-rows/s")
	benchSummary(fmt.Sprintf("\n1,000-row capped result (%d calls each, alternating): query tool over stdio %.0f rows/s (%d-byte answer: JSON twice, text and structuredContent) vs COPY … TO STDOUT through pgx %.0f rows/s (%d bytes of text rows): %.2f of COPY's rate; %s\n\n",
		b.N, rows/tool.Seconds(), toolBytes, rows/cp.Seconds(), copyBytes, float64(cp)/float64(tool), loadAvg()))
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
