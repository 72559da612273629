// Command coldstart measures how soon each server of this repository answers after
// its process starts, side by side with a bare Go line echo started the same way (the
// floor: the runtime, one read and one write). For every server it times, each in a
// fresh process over stdio, the first answer to server/discover, initialize and
// tools/list, and the first result of a cheap tool call (which, for a server with a
// backend, includes reaching it). Runs alternate between the echo and the servers
// (order rotated every round) after one discarded warm-up each, so all see the same
// machine; it prints medians, the worst first-answer ratio to the echo (target ≤ 2),
// max RSS, and the load average.
//
//	go run ./bench/coldstart [-runs 9] [-only filesystem,postgres] [-pg auto|off|URL]
//
// postgres runs against -pg: "auto" starts a throwaway cluster (initdb, a Unix socket,
// SCRAM passwords, a pg_read_all_data role, like a recommended deployment) when
// initdb is found, "off" skips it, anything else is a database URL.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"coldstart","version":"1.0.0"}}`

// probes are the first requests timed; "tool" is filled in per server.
var probes = []struct{ name, line string }{
	{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`},
	{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coldstart","version":"1.0.0"}}}`},
	{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`},
	{"tool", ""},
}

func toolLine(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"` + name + `","arguments":` + args + `}}`
}

// server is one binary under test.
type server struct {
	name, pkg  string
	dir        string // the checkout it is built from
	args, env  []string
	tool, targ string // the cheap tool and its arguments
	wantTool   string // in the tool result, or "" for any result

	bin string
	// per probe: durations and max RSS (KiB)
	took map[string][]time.Duration
	rss  []int64
}

func main() {
	runs := flag.Int("runs", 9, "timed runs per server and probe")
	only := flag.String("only", "", "comma-separated servers to run (default all)")
	pg := flag.String("pg", "auto", `postgres: "auto" (throwaway cluster if initdb is found), "off", or a database URL`)
	base := flag.String("base", "", "another checkout of this repository (e.g. git archive of an older commit): its servers run too, as NAME@base, for before → after in one run")
	flag.Parse()

	root, err := repoRoot()
	check(err)
	tmp, err := os.MkdirTemp("", "coldstart-")
	check(err)
	defer os.RemoveAll(tmp)
	fsroot := filepath.Join(tmp, "fsroot")
	check(os.MkdirAll(filepath.Join(fsroot, "sub"), 0o755))
	check(os.WriteFile(filepath.Join(fsroot, "a.txt"), []byte("a few words\n"), 0o644))

	servers := []*server{
		{name: "echo", pkg: "./bench/coldstart/echo"},
		{name: "filesystem", pkg: "./servers/filesystem/cmd/mcp-server-filesystem", args: []string{fsroot},
			tool: "list_allowed_directories", targ: `{}`, wantTool: fsroot},
		{name: "errors", pkg: "./servers/errors/cmd/mcp-server-errors",
			env:  []string{"ERRORS_BACKEND=local", "ERRORS_DATA_DIR=" + filepath.Join(tmp, "errors-data"), "ERRORS_INGEST_ADDR=127.0.0.1:0"},
			tool: "list_projects", targ: `{}`, wantTool: `"result"`},
		{name: "github", pkg: "./servers/github/cmd/mcp-server-github",
			tool: "get_repository", targ: `{"owner":"octocat","repo":"hello-world"}`, wantTool: "token"},
		{name: "everything", pkg: "./pkg/mcpkit/internal/everything", tool: "test_simple_text", targ: `{}`, wantTool: "simple text"},
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	pgWanted := len(want) == 0 || want["postgres"]
	if pgWanted && *pg != "off" {
		url := *pg
		if url == "auto" {
			c, err := startCluster(tmp)
			if err != nil {
				fmt.Fprintln(os.Stderr, "coldstart: postgres skipped:", err)
			} else {
				defer c.stop()
				url = c.url
			}
		}
		if url != "auto" {
			servers = append(servers, &server{name: "postgres", pkg: "./servers/postgres/cmd/mcp-server-postgres",
				env:  []string{"DATABASE_URL=" + url},
				tool: "query", targ: `{"sql":"SELECT 1 AS one"}`, wantTool: `"rows":[[1]]`})
		}
	}
	if len(want) > 0 {
		servers = slices.DeleteFunc(servers, func(s *server) bool { return s.name != "echo" && !want[s.name] })
	}

	for _, s := range servers {
		s.dir = root
	}
	if *base != "" {
		abs, err := filepath.Abs(*base)
		check(err)
		for _, s := range slices.Clone(servers[1:]) {
			b := *s
			b.name, b.dir = s.name+"@base", abs
			b.env = slices.Clone(s.env)
			for i, e := range b.env {
				if strings.HasPrefix(e, "ERRORS_DATA_DIR=") {
					b.env[i] = e + "-base"
				}
			}
			servers = append(servers, &b)
		}
	}
	bin := filepath.Join(tmp, "bin")
	for _, s := range servers {
		s.bin = filepath.Join(bin, s.name)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", s.bin, s.pkg)
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fail("building %s: %v\n%s", s.name, err, out)
		}
		s.took = map[string][]time.Duration{}
	}

	load0 := loadAvg()
	// Warm-up (page cache, data directories, keys), then rounds in rotating order.
	type job struct {
		s     *server
		probe int
	}
	var jobs []job
	for _, s := range servers {
		for i := range probes {
			jobs = append(jobs, job{s, i})
		}
	}
	for _, j := range jobs {
		if _, _, err := runOnce(j.s, j.probe); err != nil {
			fail("%s %s: %v", j.s.name, probes[j.probe].name, err)
		}
	}
	for r := range *runs {
		order := slices.Clone(jobs)
		rand.New(rand.NewPCG(uint64(r), 17)).Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, j := range order {
			d, rss, err := runOnce(j.s, j.probe)
			if err != nil {
				fail("%s %s: %v", j.s.name, probes[j.probe].name, err)
			}
			j.s.took[probes[j.probe].name] = append(j.s.took[probes[j.probe].name], d)
			j.s.rss = append(j.s.rss, rss)
		}
	}
	report(servers, *runs, load0)
}

// runOnce starts s, sends probe's request, and returns the time from just before the
// start to the answer read, and the process's max RSS.
func runOnce(s *server, probe int) (time.Duration, int64, error) {
	line := probes[probe].line
	if probes[probe].name == "tool" {
		if s.tool == "" {
			line = probes[2].line // the echo: any line
		} else {
			line = toolLine(s.tool, s.targ)
		}
	}
	cmd := exec.Command(s.bin, s.args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + os.TempDir(), "TMPDIR=" + os.TempDir()}, s.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	if _, err := io.WriteString(stdin, line+"\n"); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, 0, fmt.Errorf("writing: %v\n%s", err, stderr.String())
	}
	br := bufio.NewReaderSize(stdout, 1<<20)
	var took time.Duration
	for {
		resp, err := br.ReadBytes('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, 0, fmt.Errorf("reading: %v\nstderr:\n%s", err, stderr.String())
		}
		if s.tool == "" { // the echo
			took = time.Since(start)
			break
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(resp, &m) != nil || string(m.ID) != "1" {
			continue // a notification
		}
		took = time.Since(start)
		if m.Result == nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, 0, fmt.Errorf("not a result: %.300s", resp)
		}
		if probes[probe].name == "tool" && !bytes.Contains(resp, []byte(s.wantTool)) {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, 0, fmt.Errorf("tool result lacks %q: %.500s", s.wantTool, resp)
		}
		break
	}
	rss := peakRSS(cmd.Process.Pid) // after the answer, before the exit (the fork's own pages count in rusage)
	stdin.Close()
	io.Copy(io.Discard, br)
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("exit after EOF: %v\nstderr:\n%s", err, stderr.String())
	}
	return took, rss, nil
}

// peakRSS is the process's peak resident set (VmHWM) in KiB, 0 if unknown.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}

func report(servers []*server, runs int, load0 string) {
	echo := servers[0]
	var all []time.Duration // the echo answers every probe alike: pool all of its runs
	for _, p := range probes {
		all = append(all, echo.took[p.name]...)
	}
	floor := median(all)
	var sb strings.Builder
	fmt.Fprintf(&sb, "\ncold start: process start → first answer over stdio, median of %d fresh processes each, alternating with a bare Go echo (target: discover, initialize and tools/list ≤ 2× the echo); %s at start, %s at end\n", runs, load0, loadAvg())
	fmt.Fprintf(&sb, "%-16s %10s %10s %10s %12s %12s %9s\n", "server", "discover", "initialize", "tools/list", "worst/echo", "tool result", "rss MiB")
	fmt.Fprintf(&sb, "%-16s %10s %10s %10s %12s %12s %9.1f\n", "echo", ms(floor), ms(floor), ms(floor), "1.00", "-", float64(medianI(echo.rss))/1024)
	for _, s := range servers[1:] {
		worst := 0.0
		var cells []string
		for _, p := range probes[:3] {
			m := median(s.took[p.name])
			worst = max(worst, float64(m)/float64(floor))
			cells = append(cells, ms(m))
		}
		fmt.Fprintf(&sb, "%-16s %10s %10s %10s %12.2f %12s %9.1f\n", s.name, cells[0], cells[1], cells[2], worst, ms(median(s.took["tool"])), float64(medianI(s.rss))/1024)
	}
	sb.WriteString("\n")
	fmt.Print(sb.String())
	if f := os.Getenv("BENCH_SUMMARY"); f != "" {
		if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			w.WriteString(sb.String())
			w.Close()
		}
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	c := slices.Clone(d)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func medianI(d []int64) int64 {
	if len(d) == 0 {
		return 0
	}
	c := slices.Clone(d)
	slices.Sort(c)
	return c[len(c)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return fmt.Sprintf("load ?/%dcpu", runtime.NumCPU())
	}
	return fmt.Sprintf("load %s/%dcpu", strings.Fields(string(b))[0], runtime.NumCPU())
}

// repoRoot is the directory holding go.work, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the repository (no go.work found)")
		}
		dir = parent
	}
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "coldstart: "+format+"\n", args...)
	os.Exit(1)
}
