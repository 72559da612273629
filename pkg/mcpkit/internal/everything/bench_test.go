package main

// Side by side: the same tools/call (test_simple_text) against this fixture and the
// Go SDK's conformance fixture (everything-server v1.8.0), each a subprocess, over the
// same transports with the same raw requests, sequential and parallel. The benchmark
// prints the ratios (mcpkit over Go SDK: time per call and calls per second).

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/reference/pkg/mcpkit/internal/benchcmp"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
)

var wantSimpleTextBytes = []byte("This is a simple text response for testing.")

// contender is one server under comparison.
type contender struct {
	name  string
	env   []string                   // added to the environment
	stdio []string                   // argv serving stdio
	http  func(addr string) []string // argv serving Streamable HTTP on addr
}

func contenders(b *testing.B) []contender {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	sdk, err := benchcmp.GoSDKFixture()
	if err != nil {
		b.Skipf("the Go SDK fixture (%s) could not be installed, so there is nothing to compare with: %v", benchcmp.GoSDKVersion, err)
	}
	self := []string{fixtureEnv + "=1"}
	return []contender{
		{name: "mcpkit", env: self, stdio: []string{exe},
			http: func(addr string) []string { return []string{exe, "--http", addr} }},
		{name: "gosdk", stdio: []string{sdk},
			http: func(addr string) []string { return []string{sdk, "-http", addr, "-stateless"} }},
	}
}

func checkSimpleText(b *testing.B, resp []byte, err error) {
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(resp, wantSimpleTextBytes) {
		b.Fatalf("unexpected answer: %s", resp)
	}
}

// BenchmarkVsGoSDK compares per-call latency (sequential) and throughput (8
// goroutines per CPU) of test_simple_text: stdio at 2026-07-28 and 2025-11-25 (after
// initialize), Streamable HTTP at 2026-07-28 (the Go SDK in stateless mode).
func BenchmarkVsGoSDK(b *testing.B) {
	var table benchcmp.Table
	for _, rev := range []string{benchcmp.Modern, benchcmp.Legacy} {
		call := benchcmp.NewToolCall(rev, "test_simple_text", nil)
		for _, c := range contenders(b) {
			start := func(b *testing.B) *benchcmp.Process {
				p, err := benchcmp.StartStdio(c.stdio, c.env)
				if err != nil {
					b.Fatal(err)
				}
				if rev == benchcmp.Legacy {
					if err := p.Initialize(rev); err != nil {
						p.Close()
						b.Fatalf("%s: %v", c.name, err)
					}
				}
				return p
			}
			row := "stdio " + rev
			b.Run(row+"/"+c.name, func(b *testing.B) {
				p := start(b)
				defer p.Close()
				line := call.Line(1)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					resp, err := p.Conn.RoundTrip(line)
					checkSimpleText(b, resp, err)
				}
				table.Record(b, row, c.name)
			})
			b.Run(row+" parallel/"+c.name, func(b *testing.B) {
				p := start(b)
				defer p.Close()
				b.ReportAllocs()
				b.SetParallelism(8)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						resp, err := p.Conn.Call(call.Line)
						checkSimpleText(b, resp, err)
					}
				})
				table.Record(b, row+" parallel", c.name)
			})
		}
	}

	call := benchcmp.NewToolCall(benchcmp.Modern, "test_simple_text", nil)
	for _, c := range contenders(b) {
		start := func(b *testing.B) (*benchcmp.Process, *benchcmp.HTTPConn) {
			p, err := benchcmp.StartHTTP(c.http, c.env, "/mcp")
			if err != nil {
				b.Fatal(err)
			}
			return p, benchcmp.NewHTTPConn(p.URL, call)
		}
		row := "http " + benchcmp.Modern
		b.Run(row+"/"+c.name, func(b *testing.B) {
			p, conn := start(b)
			defer p.Close()
			defer conn.CloseIdle()
			body := call.Body(1)
			var lat latencies
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				resp, err := conn.Post(body)
				lat.add(time.Since(t0))
				checkSimpleText(b, resp, err)
			}
			lat.report(b)
			table.Record(b, row, c.name)
		})
		b.Run(row+" parallel/"+c.name, func(b *testing.B) {
			p, conn := start(b)
			defer p.Close()
			defer conn.CloseIdle()
			body := call.Body(1)
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			var lat latencies
			b.RunParallel(func(pb *testing.PB) {
				var local []time.Duration
				for pb.Next() {
					t0 := time.Now()
					resp, err := conn.Post(body)
					local = append(local, time.Since(t0))
					checkSimpleText(b, resp, err)
				}
				lat.merge(local)
			})
			lat.report(b)
			table.Record(b, row+" parallel", c.name)
		})
	}

	if r := table.Ratios("mcpkit", "gosdk"); r != "" {
		benchcmp.Summary(fmt.Sprintf("\ntools/call test_simple_text, mcpkit fixture vs Go SDK %s fixture (time per call; calls/s ratio > 1 means mcpkit is faster); %s:\n%s\n", benchcmp.GoSDKVersion, benchcmp.LoadAvg(), r))
	}
}

// latencies collects per-call durations so a benchmark can report its p99 next to
// the mean that ns/op gives.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) { l.d = append(l.d, d) }

func (l *latencies) merge(d []time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d...)
	l.mu.Unlock()
}

// report adds p50 and p99 (µs) and calls/s to the benchmark's output.
func (l *latencies) report(b *testing.B) {
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	pct := func(p float64) float64 { return float64(l.d[int(p*float64(len(l.d)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkHTTP16 is the HTTP target: 16 concurrent clients calling
// test_simple_text over Streamable HTTP (2026-07-28, keep-alive), against this fixture
// with authorization off and with JWT access tokens verified (an ES256 token from a
// loopback issuer, --auth-issuer; a verified token is remembered, as in production),
// and against the Go SDK's fixture (stateless, no authorization: it has none). The
// three alternate in windows of 400 ms, four rounds; it prints calls/s, p50 and p99
// and the ratio to the Go SDK (target ≥ 3 with authorization on and off), with the
// load average. It runs once whatever b.N is.
func BenchmarkHTTP16(b *testing.B) {
	const clients = 16
	sdk, err := benchcmp.GoSDKFixture()
	if err != nil {
		b.Skipf("the Go SDK fixture (%s) could not be installed: %v", benchcmp.GoSDKVersion, err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	is := remotetest.NewIssuer(b, "rfc8414", "")
	call := benchcmp.NewToolCall(benchcmp.Modern, "test_simple_text", nil)
	type side struct {
		name  string
		argv  func(addr string) []string
		env   []string
		token bool
		p     *benchcmp.Process
		conn  *benchcmp.HTTPConn
		t     benchcmp.Throughput
	}
	self := []string{fixtureEnv + "=1"}
	sides := []*side{
		{name: "mcpkit", env: self, argv: func(addr string) []string { return []string{exe, "--http", addr} }},
		{name: "mcpkit+jwt", env: self, token: true, argv: func(addr string) []string {
			return []string{exe, "--http", addr, "--auth-issuer", is.Issuer, "--auth-resource", "http://" + addr + "/mcp", "--auth-scopes", "mcp"}
		}},
		{name: "gosdk", argv: func(addr string) []string { return []string{sdk, "-http", addr, "-stateless"} }},
	}
	for _, s := range sides {
		s.p, err = benchcmp.StartHTTP(s.argv, s.env, "/mcp")
		if err != nil {
			b.Fatal(err)
		}
		defer s.p.Close()
		s.conn = benchcmp.NewHTTPConn(s.p.URL, call)
		defer s.conn.CloseIdle()
		if s.token {
			s.conn.SetHeader("Authorization", "Bearer "+remotetest.Sign(b, is.EC1, jose.ES256, "ec-1", map[string]any{
				"iss": is.Issuer, "aud": s.p.URL, "sub": "bench", "scope": "mcp", "exp": time.Now().Add(time.Hour).Unix()}))
		}
		resp, err := s.conn.Post(call.Body(1)) // warm: connection, JWKS
		checkSimpleText(b, resp, err)
	}
	load := benchcmp.LoadAvg()
	body := call.Body(1)
	measured := false
	for b.Loop() { // once per -count: the windows are the measurement
		if measured {
			continue
		}
		measured = true
		for r := range 4 {
			for k := range sides {
				s := sides[(k+r)%len(sides)]
				s.t.Run(400*time.Millisecond, clients, func() error {
					resp, err := s.conn.Post(body)
					if err == nil && !bytes.Contains(resp, wantSimpleTextBytes) {
						err = fmt.Errorf("%s: unexpected answer %.200s", s.name, resp)
					}
					return err
				})
			}
		}
	}
	gosdk := sides[2].t.PerSecond()
	text := fmt.Sprintf("\nStreamable HTTP tools/call at %d concurrent clients, alternating 400 ms windows (target: mcpkit ≥ 3× the Go SDK's calls/s with authorization off and on); %s\n", clients, load)
	text += fmt.Sprintf("%-12s %10s %10s %10s %10s\n", "server", "calls/s", "p50", "p99", "vs gosdk")
	for _, s := range sides {
		if s.t.Err != nil {
			b.Fatal(s.t.Err)
		}
		text += fmt.Sprintf("%-12s %10.0f %9.0fµs %9.0fµs %10.2f\n", s.name, s.t.PerSecond(), float64(s.t.Lat.Pct(0.5))/1e3, float64(s.t.Lat.Pct(0.99))/1e3, s.t.PerSecond()/gosdk)
	}
	benchcmp.Summary(text + "\n")
	b.ReportMetric(sides[0].t.PerSecond()/gosdk, "x-gosdk")
	b.ReportMetric(sides[1].t.PerSecond()/gosdk, "jwt-x-gosdk")
}
