//go:build linux

package errorserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/getsentry/sentry-go"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// serverProcess is mcp-server-errors running as a child process with the local
// backend, an MCP client on its stdio and the DSN it logged.
type serverProcess struct {
	cmd    *exec.Cmd
	client *mcpkittest.Client
	dsn    string

	mu     sync.Mutex
	stderr strings.Builder
}

var (
	dsnInLog       = regexp.MustCompile(`msg="local store: point your application's Sentry DSN here" dsn=(\S+)`)
	readerDSNInLog = regexp.MustCompile(`msg="local store: another process ingests into this data directory; this one reads what it stores" dsn=(\S*)`)
)

// startServerProcess runs the binary on dataDir with the ingest endpoint on a free
// loopback port, waits for the DSN it logs on stderr, and connects a client of the
// given revision to its stdin and stdout.
func startServerProcess(t *testing.T, dataDir, revision string) *serverProcess {
	t.Helper()
	return startProcess(t, []string{"--backend", "local", "--data", dataDir, "--ingest", "127.0.0.1:0"}, dsnInLog, revision)
}

// startProcess runs the binary with args, waits for a stderr line matching ready (its
// first group is the DSN), and, unless revision is empty, connects a client of that
// revision to its stdin and stdout.
func startProcess(t testing.TB, args []string, ready *regexp.Regexp, revision string) *serverProcess {
	t.Helper()
	p := &serverProcess{cmd: exec.Command(serverBinary(t), args...)}
	p.cmd.Env = processEnv()
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	dsn := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := ready.FindStringSubmatch(line); m != nil {
				select {
				case dsn <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case p.dsn = <-dsn:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server logged no DSN within 30s; stderr:\n%s", p.log())
	}
	if revision != "" {
		p.client = mcpkittest.ConnectStream(t, stdout, stdin, revision, nil)
	}
	return p
}

func (p *serverProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// ackedHub is a sentry-go hub whose every capture waits for the server's answer, with
// the acknowledged event ids recorded by rec.
func ackedHub(t *testing.T, dsn, env string, rec *ackRecorder) *sentry.Hub {
	t.Helper()
	return syncHub(t, sentry.ClientOptions{
		Dsn: dsn, Environment: env, Release: "shop@2.0.0", ServerName: "web-2", AttachStacktrace: true, HTTPTransport: rec,
	})
}

// syncHub is a sentry-go hub with the options o and a synchronous transport: every
// capture waits for the server's answer.
func syncHub(t testing.TB, o sentry.ClientOptions) *sentry.Hub {
	t.Helper()
	o.Transport = sentry.NewHTTPSyncTransport()
	client, err := sentry.NewClient(o)
	if err != nil {
		t.Fatalf("sentry.NewClient(%s): %v", o.Dsn, err)
	}
	return sentry.NewHub(client, sentry.NewScope())
}

// eventIDsThroughMCP pages through every issue and every issue's events with the
// tools, and returns the event ids and each issue's count.
func eventIDsThroughMCP(t *testing.T, c *mcpkittest.Client) (ids map[string]bool, counts map[string]int64) {
	t.Helper()
	ids, counts = map[string]bool{}, map[string]int64{}
	cursor := ""
	for {
		var issues backend.IssueList
		callOK(t, c, ToolSearchIssues, map[string]any{"statsPeriod": "1d", "limit": 100, "cursor": cursor}, &issues)
		for _, is := range issues.Issues {
			counts[is.ID] = is.Count
			ec := ""
			for {
				var evs backend.EventList
				callOK(t, c, ToolListIssueEvents, map[string]any{"issueId": is.ID, "limit": 100, "cursor": ec}, &evs)
				for _, e := range evs.Events {
					ids[e.ID] = true
				}
				if ec = evs.NextCursor; ec == "" {
					break
				}
			}
		}
		if cursor = issues.NextCursor; cursor == "" {
			return ids, counts
		}
	}
}

// TestProcessSurvivesSIGKILLAndRestart runs the real binary the way a host does
// (stdio, local backend), sends it events with sentry-go, finds them through the MCP
// tools, kills it with SIGKILL while events are in flight, restarts it on the same
// data directory, and finds every acknowledged event again through the tools. The
// DSN key survives the restart, so the application's DSN keeps working.
func TestProcessSurvivesSIGKILLAndRestart(t *testing.T) {
	dir := t.TempDir()
	first := startServerProcess(t, dir, "2026-07-28")
	rec := &ackRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}

	staging := ackedHub(t, first.dsn, "staging", rec)
	var chargeLine int
	for range 3 {
		chargeLine = errorstest.ChargeCard(staging)
	}
	errorstest.LoadCart(staging, "ann")
	staging.CaptureMessage("inventory low")
	errorstest.Explode(staging)
	errorstest.ChargeCard(ackedHub(t, first.dsn, "production", rec))
	if n := len(rec.acked()); n != 7 {
		t.Fatalf("%d of 7 events acknowledged; stderr:\n%s", n, first.log())
	}

	// Found through the tools of the running process.
	var issues backend.IssueList
	callOK(t, first.client, ToolSearchIssues, map[string]any{"statsPeriod": "1h", "sort": "freq"}, &issues)
	titles := map[string]int64{}
	var charge string
	for _, is := range issues.Issues {
		titles[is.Title] = is.Count
		if is.Title == "*errors.errorString: card declined" {
			charge = is.ID
		}
	}
	if len(titles) != 4 || titles["*errors.errorString: card declined"] != 4 || titles["*fmt.wrapError: load cart of ann: cart missing"] != 1 || titles["inventory low"] != 1 {
		t.Fatalf("issues through MCP: %v; want 4 issues, card declined x4", titles)
	}
	var ev backend.Event
	callOK(t, first.client, ToolGetEvent, map[string]any{"issueId": charge}, &ev)
	if top := ev.Exceptions[0].Frames[0]; ev.Environment != "production" || top.Function != "chargeCard" || top.Line != chargeLine {
		t.Errorf("latest event: environment %q, first frame %+v; want production and chargeCard line %d", ev.Environment, top, chargeLine)
	}
	var tv backend.TagValueList
	callOK(t, first.client, ToolGetTagValues, map[string]any{"issueId": charge, "key": "environment"}, &tv)
	if len(tv.Values) != 2 || tv.Values[0].Value != "staging" || tv.Values[0].Count != 3 {
		t.Errorf("environment values = %+v; want staging 3 first", tv.Values)
	}

	// Kill it while four senders wait for acknowledgements.
	var stop atomic.Bool
	var wg sync.WaitGroup
	before := len(rec.acked())
	for w := range 4 {
		hub := ackedHub(t, first.dsn, fmt.Sprintf("load-%d", w), rec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 100000; i++ {
				errorstest.LoadCart(hub, fmt.Sprintf("user-%d-%d", w, i))
			}
		}()
	}
	waitFor(t, "acknowledged events under load", func() bool { return len(rec.acked()) >= before+40 })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := first.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("server exit = %v; want killed by SIGKILL", err)
	}
	stop.Store(true)
	wg.Wait()
	acked := rec.acked()

	// Restarted on the same data directory, it shows every acknowledged event.
	second := startServerProcess(t, dir, "2025-11-25")
	firstURL, _ := url.Parse(first.dsn)
	secondURL, _ := url.Parse(second.dsn)
	if firstURL.User.String() != secondURL.User.String() || secondURL.Path != "/1" {
		t.Errorf("DSN after restart %s; want the same key as %s and project 1", second.dsn, first.dsn)
	}
	stored, counts := eventIDsThroughMCP(t, second.client)
	var missing []string
	for _, id := range acked {
		if !stored[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged events are missing after SIGKILL and restart: %v", len(missing), len(acked), missing)
	}
	if counts[charge] != 4 {
		t.Errorf("card declined after restart: count %d, want 4", counts[charge])
	}
	t.Logf("%d events acknowledged before SIGKILL (%d under load); %d found through MCP after restart", len(acked), len(acked)-before, len(stored))

	var again backend.Event
	callOK(t, second.client, ToolGetEvent, map[string]any{"issueId": charge, "eventId": acked[0]}, &again)
	if again.ID != acked[0] || again.Environment != "staging" {
		t.Errorf("first acknowledged event after restart = %s in %q; want %s in staging", again.ID, again.Environment, acked[0])
	}

	// The restarted process keeps accepting events at its new address.
	after := &ackRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}
	ackedHub(t, second.dsn, "after-restart", after).CaptureMessage("back up")
	var found backend.IssueList
	callOK(t, second.client, ToolSearchIssues, map[string]any{"query": "environment:after-restart"}, &found)
	var got []string
	for _, is := range found.Issues {
		got = append(got, is.Title)
	}
	if diff := cmp.Diff([]string{"back up"}, got); diff != "" || len(after.acked()) != 1 {
		t.Errorf("event sent after restart (%d acknowledged) (-want +got):\n%s", len(after.acked()), diff)
	}
}

// retryingRecorder is an SDK transport that records acknowledged event ids, and sends
// every retryEvery-th request a second time after its answer, as an SDK does when an
// answer is lost on the way back and it retries.
type retryingRecorder struct {
	ackRecorder
	retryEvery int64
	n, retried atomic.Int64
}

func (r *retryingRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.ackRecorder.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || r.n.Add(1)%r.retryEvery != 0 || req.GetBody == nil {
		return resp, err
	}
	body, gerr := req.GetBody()
	if gerr != nil {
		return resp, err
	}
	again := req.Clone(req.Context())
	again.Body = body
	if resp2, err2 := r.next.RoundTrip(again); err2 == nil {
		io.Copy(io.Discard, resp2.Body)
		resp2.Body.Close()
		if resp2.StatusCode == http.StatusOK {
			r.retried.Add(1)
		}
	}
	return resp, err
}

// TestCollectorSurvivesSIGKILLWithReaders is the collector under load: 16 sentry-go
// clients (every 5th request sent twice, as a retry after a lost answer) send to the
// collector process while two MCP server processes on the same data directory read
// the store and see the events arrive; the collector is killed with SIGKILL; a new
// collector starts on the directory; the readers, never restarted, find every event
// the first collector acknowledged, each exactly once, and then the events sent to
// the new collector.
func TestCollectorSurvivesSIGKILLWithReaders(t *testing.T) {
	dir := t.TempDir()
	collectorArgs := []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "off"}
	collector := startProcess(t, collectorArgs, dsnInLog, "")
	readers := []*serverProcess{
		startProcess(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, readerDSNInLog, "2026-07-28"),
		startProcess(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, readerDSNInLog, "2025-11-25"),
	}
	for i, r := range readers {
		if r.dsn != collector.dsn {
			t.Errorf("reader %d names the DSN %q; want the collector's %s", i, r.dsn, collector.dsn)
		}
	}
	count := func(r *serverProcess) int64 {
		var issues backend.IssueList
		callOK(t, r.client, ToolSearchIssues, map[string]any{"statsPeriod": "1h", "limit": 100}, &issues)
		var n int64
		for _, is := range issues.Issues {
			n += is.Count
		}
		return n
	}

	rec := &retryingRecorder{ackRecorder: ackRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}, retryEvery: 5}
	const clients = 16
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range clients {
		hub := syncHub(t, sentry.ClientOptions{
			Dsn: collector.dsn, Environment: fmt.Sprintf("load-%d", w%4), Release: "shop@2.0.0", HTTPTransport: rec,
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 100000; i++ {
				switch i % 3 {
				case 0:
					errorstest.ChargeCard(hub)
				case 1:
					errorstest.LoadCart(hub, fmt.Sprintf("user-%d-%d", w, i))
				default:
					hub.CaptureMessage("inventory low")
				}
			}
		}()
	}
	// The readers see events arrive while the collector runs, without restarting.
	var seen [2]int64
	waitFor(t, "both readers to see events arrive", func() bool {
		for i, r := range readers {
			seen[i] = max(seen[i], count(r))
		}
		return seen[0] >= 100 && seen[1] >= 100 && len(rec.acked()) >= 300
	})
	if err := collector.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := collector.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("collector exit = %v; want killed by SIGKILL", err)
	}
	stop.Store(true)
	wg.Wait()
	acked := rec.acked()
	if rec.retried.Load() == 0 {
		t.Fatal("no request was retried: the test did not exercise deduplication")
	}

	// The readers, still running, find every acknowledged event exactly once.
	for i, r := range readers {
		ids := map[string]int{}
		var total int64
		cursor := ""
		for {
			var issues backend.IssueList
			callOK(t, r.client, ToolSearchIssues, map[string]any{"statsPeriod": "1d", "limit": 100, "cursor": cursor}, &issues)
			for _, is := range issues.Issues {
				total += is.Count
				ec := ""
				for {
					var evs backend.EventList
					callOK(t, r.client, ToolListIssueEvents, map[string]any{"issueId": is.ID, "limit": 100, "cursor": ec}, &evs)
					for _, e := range evs.Events {
						ids[e.ID]++
					}
					if ec = evs.NextCursor; ec == "" {
						break
					}
				}
			}
			if cursor = issues.NextCursor; cursor == "" {
				break
			}
		}
		var missing, dup []string
		for _, id := range acked {
			if ids[id] == 0 {
				missing = append(missing, id)
			}
		}
		for id, n := range ids {
			if n > 1 {
				dup = append(dup, id)
			}
		}
		if len(missing) > 0 || len(dup) > 0 || total != int64(len(ids)) {
			t.Fatalf("reader %d after SIGKILL: %d of %d acknowledged events missing %v, %d listed twice %v, counts add up to %d for %d events",
				i, len(missing), len(acked), missing, len(dup), dup, total, len(ids))
		}
		t.Logf("reader %d: %d acknowledged (%d requests retried), %d stored, each once", i, len(acked), rec.retried.Load(), len(ids))
	}

	// A new collector on the directory. Whoever ingests now (the collector, or a
	// reader that took over first while the collector waits for it), the readers see
	// what arrives.
	second := startProcess(t, collectorArgs, regexp.MustCompile(`point your application's Sentry DSN here" dsn=(\S+)|waiting for it to exit()`), "")
	var dsn string
	waitFor(t, "a process to ingest after the restart", func() bool {
		for _, p := range append([]*serverProcess{second}, readers...) {
			if m := dsnInLog.FindStringSubmatch(p.log()); m != nil {
				dsn = m[1]
				return true
			}
		}
		return false
	})
	after := &ackRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}
	ackedHub(t, dsn, "after-restart", after).CaptureMessage("collector back up")
	if len(after.acked()) != 1 {
		t.Fatalf("the event sent after the restart was not acknowledged by %s", dsn)
	}
	for i, r := range readers {
		var found backend.IssueList
		waitFor(t, "the reader to see the event sent after the restart", func() bool {
			callOK(t, r.client, ToolSearchIssues, map[string]any{"query": "environment:after-restart"}, &found)
			return len(found.Issues) == 1
		})
		if found.Issues[0].Title != "collector back up" {
			t.Errorf("reader %d after the collector restarted: %+v", i, found.Issues)
		}
	}
}
