package mcpkit_test

// Benchmarks of one tools/call round trip of a small typed tool: in memory
// (ServeStdio over io.Pipe), over the real pipes of a subprocess, and over HTTP
// (httptest, keep-alive), each sequential and parallel, next to a bare line echo
// over the same kind of pipes so stdio overhead can be read as a ratio
// (BenchmarkToolCall prints it). In-memory and HTTP allocs/op count client and server
// together; subprocess ones count only the client.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/benchcmp"
)

// benchChildEnv makes this test binary a benchmark peer instead of running tests:
// "server" serves benchServer on stdio, "echo" echoes lines. It is checked in init,
// before the testing flags are parsed, so the package needs no TestMain.
const benchChildEnv = "MCPKIT_BENCH_CHILD"

func init() {
	switch os.Getenv(benchChildEnv) {
	case "server":
		if err := benchServer().ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "echo":
		if err := benchcmp.Echo(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench echo:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

type benchAddIn struct {
	A int `json:"a" jsonschema_description:"First addend"`
	B int `json:"b" jsonschema_description:"Second addend"`
}

type benchAddOut struct {
	Sum int `json:"sum"`
}

// benchServer has the one small typed tool every round trip calls.
func benchServer() *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "bench", Version: "1.0.0"},
		&mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "Adds two integers.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in benchAddIn) (benchAddOut, error) {
			return benchAddOut{Sum: in.A + in.B}, nil
		})
	return s
}

var (
	benchCall       = benchcmp.NewToolCall(benchcmp.Modern, "add", json.RawMessage(`{"a":1,"b":2}`))
	benchLegacyCall = benchcmp.NewToolCall(benchcmp.Legacy, "add", json.RawMessage(`{"a":1,"b":2}`))
	wantSum         = []byte(`"sum":3`)
)

// checkAnswer fails the benchmark unless resp is the add tool's success.
func checkAnswer(b *testing.B, resp []byte, err error) {
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(resp, wantSum) {
		b.Fatalf("unexpected answer: %s", resp)
	}
}

// lineConnector starts a peer and returns a connection to it and a stop function.
type lineConnector func(b *testing.B) (*benchcmp.LineConn, func())

func memoryServer(b *testing.B) (*benchcmp.LineConn, func()) {
	return memoryServerOf(b, benchServer())
}

// memoryServerOf serves s on in-memory pipes.
func memoryServerOf(b *testing.B, s *mcpkit.Server) (*benchcmp.LineConn, func()) {
	return memoryPipe(b, func(r io.Reader, w io.Writer) error { return s.ServeStdio(context.Background(), r, w) })
}

func memoryEcho(b *testing.B) (*benchcmp.LineConn, func()) {
	return memoryPipe(b, benchcmp.Echo)
}

// memoryPipe runs serve on in-memory pipes; stopping it fails b if serve failed.
func memoryPipe(b *testing.B, serve func(io.Reader, io.Writer) error) (*benchcmp.LineConn, func()) {
	conn, stop := benchcmp.Pipe(serve)
	return conn, func() {
		if err := stop(); err != nil {
			b.Error(err)
		}
	}
}

func subprocess(mode string) lineConnector {
	return func(b *testing.B) (*benchcmp.LineConn, func()) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		p, err := benchcmp.StartStdio([]string{exe}, []string{benchChildEnv + "=" + mode})
		if err != nil {
			b.Fatal(err)
		}
		return p.Conn, func() {
			if err := p.Close(); err != nil {
				b.Errorf("%s subprocess: %v\nstderr: %s", mode, err, p.Stderr())
			}
		}
	}
}

// startChild starts this test binary as a benchmark peer (see benchChildEnv) and
// stops it when b ends.
func startChild(b *testing.B, mode string) *benchcmp.Process {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	p, err := benchcmp.StartStdio([]string{exe}, []string{benchChildEnv + "=" + mode})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := p.Close(); err != nil {
			b.Errorf("%s subprocess: %v\nstderr: %s", mode, err, p.Stderr())
		}
	})
	return p
}

// BenchmarkToolCall times tools/call round trips of the add tool at 2026-07-28
// and prints stdio overhead against a bare echo of a same-sized line.
func BenchmarkToolCall(b *testing.B) {
	var table benchcmp.Table
	echoLine := benchcmp.EchoLine(len(benchCall.Line(1)))
	lineCases := []struct {
		row, column string
		connect     lineConnector
		echo        bool
	}{
		{"memory", "mcpkit", memoryServer, false},
		{"memory", "echo", memoryEcho, true},
		{"stdio", "mcpkit", subprocess("server"), false},
		{"stdio", "echo", subprocess("echo"), true},
	}
	for _, c := range lineCases {
		build := benchCall.Line
		check := func(b *testing.B, resp []byte, err error) { checkAnswer(b, resp, err) }
		if c.echo {
			build = echoLine
			check = func(b *testing.B, resp []byte, err error) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(c.row+"/"+c.column, func(b *testing.B) {
			conn, stop := c.connect(b)
			defer stop()
			line := build(1)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp, err := conn.RoundTrip(line)
				check(b, resp, err)
			}
			table.Record(b, c.row, c.column)
		})
		b.Run(c.row+"-parallel/"+c.column, func(b *testing.B) {
			conn, stop := c.connect(b)
			defer stop()
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := conn.Call(build)
					check(b, resp, err)
				}
			})
			table.Record(b, c.row+"-parallel", c.column)
		})
	}

	b.Run("http/mcpkit", func(b *testing.B) {
		srv := httptest.NewServer(benchServer().HTTPHandler(nil))
		defer srv.Close()
		conn := newBenchHTTP(srv.URL)
		defer conn.CloseIdle()
		body := benchCall.Body(1)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := conn.Post(body)
			checkAnswer(b, resp, err)
		}
		table.Record(b, "http", "mcpkit")
	})
	b.Run("http-parallel/mcpkit", func(b *testing.B) {
		srv := httptest.NewServer(benchServer().HTTPHandler(nil))
		defer srv.Close()
		conn := newBenchHTTP(srv.URL)
		defer conn.CloseIdle()
		body := benchCall.Body(1)
		b.ReportAllocs()
		b.SetParallelism(8)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				resp, err := conn.Post(body)
				checkAnswer(b, resp, err)
			}
		})
		table.Record(b, "http-parallel", "mcpkit")
	})

	// The same call at 2025-11-25 on an initialized stdio session (no per-request
	// _meta), in memory: the difference to "memory" is the 2026-07-28 envelope's cost.
	b.Run("memory-legacy/mcpkit", func(b *testing.B) {
		conn, stop := memoryServer(b)
		defer stop()
		if resp, err := conn.RoundTrip(benchcmp.InitializeLine(benchcmp.Legacy)); err != nil || !bytes.Contains(resp, []byte(benchcmp.Legacy)) {
			b.Fatalf("initialize: %s %v", resp, err)
		}
		if err := conn.Send(benchcmp.InitializedLine); err != nil {
			b.Fatal(err)
		}
		line := benchLegacyCall.Line(1)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := conn.RoundTrip(line)
			checkAnswer(b, resp, err)
		}
		table.Record(b, "memory-legacy", "mcpkit")
	})

	if r := table.Ratios("mcpkit", "echo"); r != "" {
		benchcmp.Summary(fmt.Sprintf("\ntools/call round trip of a typed tool against a bare echo of a same-sized line over the same pipes (mean per call, best of -count); %s:\n%s\n", benchcmp.LoadAvg(), r))
	}
}

// newBenchHTTP is a keep-alive client posting benchCall to an httptest server.
func newBenchHTTP(base string) *benchcmp.HTTPConn {
	return benchcmp.NewHTTPConn(base+"/mcp", benchCall)
}

// BenchmarkStdioLatency times one tools/call of the add tool and one bare echo of a
// same-sized line, each over the real pipes of its own subprocess, in alternating
// blocks of 50, and prints p50 and p99 of both and their ratios (the median over rounds
// of the ratio within a round, which the machine's load moves least): on a quiet
// machine, and with a CPU-bound competitor on every core, started here and stopped
// after (the target: p50 ≤ 2× the echo in both). It also compares parallel
// throughput (8 callers per CPU) of the two. The machine's load average is printed next
// to every ratio; BENCH_SCHED=1 adds the scheduler's accounting per call (CPU, run-queue
// wait, thread wake-ups) of server and echo.
func BenchmarkStdioLatency(b *testing.B) {
	var rows []benchcmp.RatioRow
	var tput []string
	echoLine := benchcmp.EchoLine(len(benchCall.Line(1)))
	for _, contended := range []bool{false, true} {
		name := "quiet"
		if contended {
			name = "contended"
		}
		b.Run(name, func(b *testing.B) {
			srvP, echoP := startChild(b, "server"), startChild(b, "echo")
			srv, echo := srvP.Conn, echoP.Conn
			line, eline := benchCall.Line(1), echoLine(1)
			callSrv := func() error {
				resp, err := srv.RoundTrip(line)
				if err == nil && !bytes.Contains(resp, wantSum) {
					err = fmt.Errorf("unexpected answer: %s", resp)
				}
				return err
			}
			callEcho := func() error { _, err := echo.RoundTrip(eline); return err }
			if _, err := benchcmp.Alternate(1, 200, callSrv, callEcho); err != nil { // warm-up
				b.Fatal(err)
			}
			load := benchcmp.LoadAvg()
			if contended {
				stop, err := benchcmp.Contend(runtime.NumCPU())
				if err != nil {
					b.Fatal(err)
				}
				defer stop()
				load += " +" + fmt.Sprint(runtime.NumCPU()) + " spinning"
			}
			s0, _ := benchcmp.ReadSched(srvP.Pid())
			e0, _ := benchcmp.ReadSched(echoP.Pid())
			alt := benchcmp.NewAlternator(50, callSrv, callEcho)
			for b.Loop() {
				if err := alt.Step(); err != nil {
					b.Fatal(err)
				}
			}
			s1, _ := benchcmp.ReadSched(srvP.Pid())
			e1, _ := benchcmp.ReadSched(echoP.Pid())
			rs := alt.Rounds()
			if len(rs) == 0 {
				b.Fatal("too few calls for one round: raise -benchtime")
			}
			lat := []benchcmp.Latencies{rs.All(0), rs.All(1)}
			if os.Getenv("BENCH_SCHED") != "" {
				fmt.Printf("%s: server %s\n%s: echo   %s\n", name, s1.Sub(s0).PerCall(len(lat[0])), name, e1.Sub(e0).PerCall(len(lat[1])))
			}
			b.ReportMetric(float64(lat[0].Pct(0.5).Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[0].Pct(0.99).Nanoseconds())/1e3, "p99-µs")
			b.ReportMetric(float64(lat[1].Pct(0.5).Nanoseconds())/1e3, "echo-p50-µs")
			b.ReportMetric(rs.Ratio(0, 1, 0.5), "p50/echo")
			rows = append(rows, benchcmp.RatioRow{Case: "stdio " + name, Num: lat[0], Den: lat[1], Rounds: rs, Load: load})

			// Parallel throughput, same processes, alternating 300 ms windows.
			var srvT, echoT benchcmp.Throughput
			for r := range 4 {
				first := func() {
					srvT.Run(300*time.Millisecond, 8*runtime.NumCPU(), func() error { _, err := srv.Call(benchCall.Line); return err })
				}
				second := func() {
					echoT.Run(300*time.Millisecond, 8*runtime.NumCPU(), func() error { _, err := echo.Call(echoLine); return err })
				}
				if r%2 == 1 {
					first, second = second, first
				}
				first()
				second()
			}
			if err := errors.Join(srvT.Err, echoT.Err); err != nil {
				b.Fatal(err)
			}
			tput = append(tput, fmt.Sprintf("%-34s %10.0f %10.0f %9.2f  %s", "stdio-parallel "+name, srvT.PerSecond(), echoT.PerSecond(), srvT.PerSecond()/echoT.PerSecond(), load))
		})
	}
	if len(rows) > 0 {
		text := fmt.Sprintf("\nstdio tools/call against a bare echo over the same pipes, alternating blocks of 50 (target: p50 ratio ≤ 2, quiet and contended; ratios are medians over rounds):\n%s", benchcmp.RatioTable("mcpkit", "echo", rows))
		if len(tput) > 0 {
			text += fmt.Sprintf("%-34s %10s %10s %9s  %s\n%s\n", "parallel throughput (8/CPU)", "mcpkit/s", "echo/s", "ratio", "load", strings.Join(tput, "\n"))
		}
		benchcmp.Summary(text + "\n")
	}
}
