package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
)

// fixtureProcess is one instance of the fixture, a process of its own serving HTTP
// with the shared task store.
type fixtureProcess struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	// stops records when each slow_compute label logged that its work stopped.
	stops map[string]time.Time
}

func (p *fixtureProcess) stoppedAt(label string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stops[label]
}

// stoppedLine is what slow_compute logs when its work stops.
var stoppedLine = regexp.MustCompile(`slow_compute stopped.* label=(\S+)`)

// startFixture runs this test binary as the fixture (see TestMain) with args.
func startFixture(t *testing.T, args ...string) *fixtureProcess {
	t.Helper()
	return startFixtureEnv(t, nil, args...)
}

// startFixtureEnv is startFixture with more environment variables.
func startFixtureEnv(t *testing.T, env []string, args ...string) *fixtureProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &fixtureProcess{stops: map[string]time.Time{}}
	p.cmd = exec.Command(exe, append([]string{"--http", "127.0.0.1:0", "--audit=false"}, args...)...)
	p.cmd.Env = append(append(os.Environ(), fixtureEnv+"=1", "MCP_STATE_KEY=", "SENTRY_DSN="), env...)
	p.addr = mcpkittest.StartHTTPServer(t, p.cmd, func(line string) {
		if m := stoppedLine.FindStringSubmatch(line); m != nil {
			p.mu.Lock()
			p.stops[strings.Trim(m[1], `"`)] = time.Now()
			p.mu.Unlock()
		}
	})
	return p
}

// TestTasksScaleOutWithRedis (issue 14): three fixture processes share a Redis task
// store behind a round-robin proxy. A task created through one instance is polled
// through the others until it completes; a second is cancelled through another
// instance, and its work (on the first) stops; the instance running a third is
// killed (SIGKILL), and tasks/get on the survivors answers a failed task that says
// so, once its lease has run out, instead of hanging or answering unknown.
func TestTasksScaleOutWithRedis(t *testing.T) {
	url := redistest.Start(t)
	const lease = time.Second
	var procs []*fixtureProcess
	var backends []string
	for range 3 {
		p := startFixture(t, "--task-store", url, "--task-lease", lease.String())
		procs = append(procs, p)
		backends = append(backends, p.addr)
	}
	proxy := mcpkittest.RoundRobinProxy(backends...)
	defer proxy.Close()
	c := remotetest.NewClient(t, proxy.URL+"/mcp").DeclareTasks()
	c.HC.Timeout = 10 * time.Second // a hang fails the test instead of blocking it

	type task = mcpkittest.Task
	call := func(method string, params map[string]any) (task, string) {
		t.Helper()
		r := c.Do(method, params)
		if r.Err != nil || r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", method, r.Status, r.Body)
		}
		var tk task
		_ = json.Unmarshal(r.Result, &tk)
		return tk, r.Header.Get("X-Instance")
	}
	start := func(seconds float64, label string) (task, int) {
		t.Helper()
		tk, in := call("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": seconds, "label": label}})
		if tk.ResultType != "task" {
			t.Fatalf("slow_compute %s: not a task: %+v", label, tk)
		}
		n, _ := strconv.Atoi(in)
		return tk, n
	}

	// 1. Polled through the other instances until completed.
	tk, creator := start(1.5, "poll")
	pollers := map[string]int{}
	deadline := time.Now().Add(20 * time.Second)
	for tk.Status != mcpkit.TaskCompleted {
		if time.Now().After(deadline) {
			t.Fatalf("task did not complete: %+v", tk)
		}
		time.Sleep(100 * time.Millisecond)
		var in string
		tk, in = call("tasks/get", map[string]any{"taskId": tk.TaskID})
		pollers[in]++
	}
	others := 0
	for in := range pollers {
		if in != strconv.Itoa(creator) {
			others++
		}
	}
	if others < 2 || !strings.Contains(string(tk.Result), `slow_compute \"poll\" finished`) {
		t.Fatalf("created on instance %d, polled on %v: want both other instances to answer; result %s", creator, pollers, tk.Result)
	}
	t.Logf("task created on instance %d, polled through instances %v, completed", creator, pollers)

	// 2. Cancelled through another instance: the work stops on the creator.
	tk, creator = start(60, "cancel")
	time.Sleep(200 * time.Millisecond)
	sent := time.Now()
	_, via := call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
	if via == strconv.Itoa(creator) {
		t.Fatalf("the cancel went to the creating instance %d: the proxy did not rotate", creator)
	}
	for procs[creator].stoppedAt("cancel").IsZero() {
		if time.Since(sent) > 10*time.Second {
			t.Fatal("the work did not stop within 10 s of tasks/cancel through another instance")
		}
		time.Sleep(time.Millisecond)
	}
	lag := procs[creator].stoppedAt("cancel").Sub(sent)
	t.Logf("tasks/cancel through instance %s stopped the work on instance %d %v after it was sent (goal: 100 ms)", via, creator, lag.Round(time.Microsecond))
	if lag > 2*time.Second {
		t.Errorf("the work stopped %v after tasks/cancel", lag)
	}
	if got, _ := call("tasks/get", map[string]any{"taskId": tk.TaskID}); got.Status != mcpkit.TaskCancelled {
		t.Fatalf("after tasks/cancel: %+v", got)
	}

	// 3. The creating instance dies while the task runs.
	tk, creator = start(60, "kill")
	if err := procs[creator].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = procs[creator].cmd.Wait()
	killed := time.Now()
	last := mcpkittest.AwaitFailedAfterKill(t, func() (task, string) {
		return call("tasks/get", map[string]any{"taskId": tk.TaskID})
	}, creator, killed, lease)
	t.Logf("instance %d was killed; %v later the survivors answer: %s", creator, time.Since(killed).Round(time.Millisecond), fmt.Sprint(last.Error.Message))
}
