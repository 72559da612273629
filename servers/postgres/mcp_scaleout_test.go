package postgres

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/remoteclient"
)

// startHTTPInstance runs the mcp-server-postgres binary serving HTTP on a free
// loopback port with args, and returns the process and its address.
func startHTTPInstance(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(serverBinary(t), append([]string{"--http", "127.0.0.1:0", "--audit=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), cleanEnv()...), env...)
	return cmd, mcpkittest.StartHTTPServer(t, cmd, nil)
}

// scaleTask is the result of tools/call (a CreateTaskResult) or of a task request.
type scaleTask = mcpkittest.Task

// TestQueryTasksScaleOutWithRedis (issue 14): three mcp-server-postgres processes
// serve HTTP over the same database and share one Redis task store, behind a
// round-robin proxy. A slow query's task, created through one instance, is polled
// through the others until it completes with its rows; a second is cancelled through
// another instance, and its statement is gone from pg_stat_activity (the creating
// instance cancelled it server-side); the instance running a third is killed
// (SIGKILL), and tasks/get on the survivors answers a failed task that says so once
// its lease (1 s) has run out, instead of hanging or answering unknown.
func TestQueryTasksScaleOutWithRedis(t *testing.T) {
	redisURL := redistest.Start(t) // skipped without redis-server, except in CI
	d, _ := shopDB(t, Options{})
	probe := openDB(t, d.URL, Options{})
	dbURL := readerURL(t, d)
	const lease = time.Second
	var procs []*exec.Cmd
	var backends []string
	for range 3 {
		cmd, addr := startHTTPInstance(t, []string{"DATABASE_URL=" + dbURL}, "--task-store", redisURL, "--task-lease", lease.String())
		procs = append(procs, cmd)
		backends = append(backends, addr)
	}
	proxy := mcpkittest.RoundRobinProxy(backends...)
	defer proxy.Close()
	c := remoteclient.NewClient(t, proxy.URL+"/mcp").DeclareTasks()
	c.HC.Timeout = 10 * time.Second // a hang fails the test instead of blocking it
	call := func(method string, params map[string]any) (scaleTask, string) {
		t.Helper()
		r := c.Do(method, params)
		if r.Status != http.StatusOK || r.Err != nil {
			t.Fatalf("%s: %d %s", method, r.Status, r.Body)
		}
		var tk scaleTask
		if err := json.Unmarshal(r.Result, &tk); err != nil {
			t.Fatalf("%s: %v: %s", method, err, r.Result)
		}
		return tk, r.Header.Get("X-Instance")
	}
	start := func(sql string) (scaleTask, int) {
		t.Helper()
		tk, in := call("tools/call", map[string]any{"name": "query", "arguments": map[string]any{"sql": sql}})
		if tk.ResultType != "task" || tk.TaskID == "" {
			t.Fatalf("%s: not a task: %+v", sql, tk)
		}
		n, _ := strconv.Atoi(in)
		return tk, n
	}
	waitRunning := func(marker string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for running(t, probe, marker) != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("the task's query (%s) is not running on the server", marker)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// 1. Polled through the other instances until completed, with its rows.
	began := time.Now()
	tk, creator := start("SELECT 'scale-poll' AS label, pg_sleep(1.5), 1 AS one")
	pollers := map[string]int{}
	for tk.Status != mcpkit.TaskCompleted {
		if time.Since(began) > 20*time.Second || (tk.Status != "" && tk.Status != mcpkit.TaskWorking) {
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
	if others < 2 || !strings.Contains(string(tk.Result), "scale-poll") {
		t.Fatalf("created on instance %d, polled on %v: want both other instances to answer; result %s", creator, pollers, tk.Result)
	}
	t.Logf("a 1.5 s query's task created on instance %d, polled through instances %v, completed with its rows %v after creation", creator, pollers, time.Since(began).Round(time.Millisecond))

	// 2. Cancelled through another instance: the statement leaves pg_stat_activity.
	tk, creator = start("SELECT 'scale-cancel', pg_sleep(30)")
	waitRunning("scale-cancel")
	sent := time.Now()
	_, via := call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
	if via == strconv.Itoa(creator) {
		t.Fatalf("the cancel went to the creating instance %d: the proxy did not rotate", creator)
	}
	lag := waitGone(t, probe, "scale-cancel", 10*time.Second).Sub(sent)
	t.Logf("tasks/cancel through instance %s: the query on instance %d left pg_stat_activity %v after it was sent (goal: 100 ms)", via, creator, lag.Round(time.Microsecond))
	if lag > 3*time.Second {
		t.Errorf("the query ran on %v after tasks/cancel", lag)
	}
	if got, in := call("tasks/get", map[string]any{"taskId": tk.TaskID}); got.Status != mcpkit.TaskCancelled {
		t.Fatalf("after tasks/cancel, instance %s answers %+v", in, got)
	}

	// 3. The creating instance dies while its query runs.
	tk, creator = start("SELECT 'scale-kill', pg_sleep(30)")
	waitRunning("scale-kill")
	if err := procs[creator].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = procs[creator].Wait()
	killed := time.Now()
	last := mcpkittest.AwaitFailedAfterKill(t, func() (scaleTask, string) {
		return call("tasks/get", map[string]any{"taskId": tk.TaskID})
	}, creator, killed, lease)
	t.Logf("instance %d was killed; %v later the survivors answer failed: %s", creator, time.Since(killed).Round(time.Millisecond), last.Error.Message)
}

// TestExecuteReplayScaleOutWithRedis (issue 32): three mcp-server-postgres processes
// with --allow-writes and one state key share one Redis (--task-store, which is also
// the replay store), behind a round-robin proxy. An execute confirmed on one
// instance runs once; its confirmed requestState sent again reaches each other
// instance in turn and is refused as already used, and the row changed once.
func TestExecuteReplayScaleOutWithRedis(t *testing.T) {
	redisURL := redistest.Start(t) // skipped without redis-server, except in CI
	d, probe := shopDB(t, Options{})
	role := d.CreateRole(t, "writer", "", "")
	d.Exec(t, "GRANT SELECT, UPDATE ON public.t TO "+role)
	key := mcpkittest.StateKeyFile(t)
	var backends []string
	for range 3 {
		_, addr := startHTTPInstance(t, []string{"DATABASE_URL=" + d.URLAs(role, ""), "POSTGRES_ALLOW_WRITES=1"},
			"--task-store", redisURL, "--state-key-file", key)
		backends = append(backends, addr)
	}
	proxy := mcpkittest.RoundRobinProxy(backends...)
	defer proxy.Close()
	c := remoteclient.NewClient(t, proxy.URL+"/mcp")
	c.HC.Timeout = 10 * time.Second

	args := map[string]any{"sql": "UPDATE public.t SET v = v || '+' WHERE id = 1"}
	retry := mcpkittest.AskConfirmation(t, c, "execute", args).Accept("execute", args)
	r := c.Do("tools/call", retry)
	if r.Err != nil || r.Status != http.StatusOK || !strings.Contains(string(r.Result), "UPDATE 1") {
		t.Fatalf("the confirmed execute: %d %s", r.Status, r.Body)
	}
	ran := r.Header.Get("X-Instance")
	by := mcpkittest.ReplayRefusedEverywhere(t, c, retry, ran, 3)
	if n := rowCount(t, probe, "SELECT length(v) - length(replace(v, '+', '')) FROM public.t WHERE id = 1"); n != 1 {
		t.Fatalf("the statement ran %d times, want once", n)
	}
	t.Logf("execute confirmed on instance %s; the replayed requestState was refused by instances %v; the row changed once", ran, by)
}
