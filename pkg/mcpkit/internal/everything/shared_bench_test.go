package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/internal/benchcmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
)

// BenchmarkSharedStateHTTP16 (issue 32) measures what sharing the replay guard and
// the caller limits through Redis costs per call: the fixture over Streamable HTTP
// with 16 concurrent clients, keeping them in its memory ("memory") or in a local
// redis-server (--task-store, which the replay and limit stores follow: "redis").
// Two workloads: "read", a tools/call of test_simple_text (the caller limits: one
// script call and one ZREM on Redis); "confirm", a confirmation's two rounds, asked
// and then answered with its requestState (the limits twice, and the replay guard's
// SET NX once). The sides alternate in windows of 400 ms, four rounds, each round
// starting with the other side; it prints calls/s, p50 and p99 and the p50 difference
// per call, with the load average. It runs once whatever b.N is.
func BenchmarkSharedStateHTTP16(b *testing.B) {
	const clients = 16
	redisURL := redistest.Start(b)
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	const stateTool = "test_input_required_result_request_state"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-bench","version":"1.0.0"}}`
	ask := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"` + stateTool + `","arguments":{}}}`)
	read := benchcmp.NewToolCall(benchcmp.Modern, "test_simple_text", nil)
	type side struct {
		name             string
		readConn, stConn *benchcmp.HTTPConn
		reads, confirms  benchcmp.Throughput
	}
	var sides []*side
	for _, name := range []string{"memory", "redis"} {
		args := []string{exe, "--audit=false", "--max-concurrent", "64", "--max-rate", "1000000000"}
		if name == "redis" {
			args = append(args, "--task-store", redisURL)
		}
		p, err := benchcmp.StartHTTP(func(addr string) []string { return append(args, "--http", addr) },
			[]string{fixtureEnv + "=1", "MCP_STATE_KEY=", "SENTRY_DSN="}, "/mcp")
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		s := &side{name: name, readConn: benchcmp.NewHTTPConn(p.URL, read), stConn: benchcmp.NewHTTPConn(p.URL, benchcmp.NewToolCall(benchcmp.Modern, stateTool, nil))}
		defer s.readConn.CloseIdle()
		defer s.stConn.CloseIdle()
		sides = append(sides, s)
	}
	readOnce := func(s *side) error {
		resp, err := s.readConn.Post(read.Body(1))
		if err == nil && !bytes.Contains(resp, wantSimpleTextBytes) {
			err = fmt.Errorf("%s read: unexpected answer %.200s", s.name, resp)
		}
		return err
	}
	confirmOnce := func(s *side) error {
		resp, err := s.stConn.Post(ask)
		if err != nil {
			return err
		}
		var first struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if json.Unmarshal(resp, &first) != nil || first.Result.RequestState == "" {
			return fmt.Errorf("%s ask: no requestState in %.200s", s.name, resp)
		}
		retry := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"` + stateTool + `","arguments":{},"requestState":"` +
			first.Result.RequestState + `","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}}}`)
		resp, err = s.stConn.Post(retry)
		if err == nil && !bytes.Contains(resp, []byte("state-ok")) {
			err = fmt.Errorf("%s confirm: unexpected answer %.200s", s.name, resp)
		}
		return err
	}
	for _, s := range sides { // warm: connections, Redis's script cache
		for range 3 {
			if err := readOnce(s); err != nil {
				b.Fatal(err)
			}
			if err := confirmOnce(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	load := benchcmp.LoadAvg()
	measured := false
	for b.Loop() { // once per -count: the windows are the measurement
		if measured {
			continue
		}
		measured = true
		for r := range 4 {
			for k := range sides {
				s := sides[(k+r)%len(sides)]
				s.reads.Run(400*time.Millisecond, clients, func() error { return readOnce(s) })
				s.confirms.Run(400*time.Millisecond, clients, func() error { return confirmOnce(s) })
			}
		}
	}
	text := fmt.Sprintf("\nShared replay guard and caller limits in Redis against this process's memory, Streamable HTTP at %d concurrent clients, alternating 400 ms windows; %s\n", clients, load)
	text += fmt.Sprintf("%-18s %10s %10s %10s\n", "side/workload", "calls/s", "p50", "p99")
	for _, s := range sides {
		for _, w := range []struct {
			name string
			t    *benchcmp.Throughput
		}{{"read", &s.reads}, {"confirm", &s.confirms}} {
			if w.t.Err != nil {
				b.Fatal(w.t.Err)
			}
			text += fmt.Sprintf("%-18s %10.0f %9.0fµs %9.0fµs\n", s.name+"/"+w.name, w.t.PerSecond(), float64(w.t.Lat.Pct(0.5))/1e3, float64(w.t.Lat.Pct(0.99))/1e3)
		}
	}
	mem, red := sides[0], sides[1]
	dRead := red.reads.Lat.Pct(0.5) - mem.reads.Lat.Pct(0.5)
	dConfirm := red.confirms.Lat.Pct(0.5) - mem.confirms.Lat.Pct(0.5)
	text += fmt.Sprintf("p50 cost of Redis: %v per read (limits), %v per confirmation (two rounds: limits twice, guard once)\n", dRead.Round(time.Microsecond), dConfirm.Round(time.Microsecond))
	benchcmp.Summary(text + "\n")
	b.ReportMetric(float64(dRead)/1e3, "read-Δp50-µs")
	b.ReportMetric(float64(dConfirm)/1e3, "confirm-Δp50-µs")
	b.ReportMetric(red.reads.PerSecond()/mem.reads.PerSecond(), "read-x-memory")
	b.ReportMetric(red.confirms.PerSecond()/mem.confirms.PerSecond(), "confirm-x-memory")
}
