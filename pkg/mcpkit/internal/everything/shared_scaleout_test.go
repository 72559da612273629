package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
)

// TestSharedStateScaleOutWithRedis (issue 32): three fixture processes share one Redis
// (tasks, used requestStates and caller limits, all from --task-store) behind a
// round-robin proxy. A task created on one instance is read, answered (tasks/update)
// and cancelled through the others; a confirmed round replayed to each other instance
// is refused; a caller over its rate on one instance is over it on all. Then Redis
// stops: the confirmed round, a new task and the state of a task created before are
// refused with a message that says why, while reads answer on every instance. Then Redis comes back, and all of it
// works again.
func TestSharedStateScaleOutWithRedis(t *testing.T) {
	rs := redistest.StartServer(t)
	key := mcpkittest.StateKeyFile(t)
	const rate = 30
	tokens := map[string]string{}
	var lines []string
	for _, who := range []string{"tasks", "writes", "rate", "outage", "again", "rate2"} {
		tokens[who] = strings.Repeat(who[:1], 8) + rand.Text()
		lines = append(lines, tokens[who]+" "+who)
	}
	env := []string{"MCP_AUTH_STATIC_TOKENS=" + strings.Join(lines, ";"), "MCP_AUTH_RESOURCE=https://mcp.example.com/mcp"}
	var backends []string
	for range 3 {
		p := startFixtureEnv(t, env, "--task-store", rs.URL, "--state-key-file", key, "--max-rate", strconv.Itoa(rate), "--task-lease", "2s")
		backends = append(backends, p.addr)
	}
	proxy := mcpkittest.RoundRobinProxy(backends...)
	defer proxy.Close()
	client := func(who string) *remotetest.Client {
		c := remotetest.NewClient(t, proxy.URL+"/mcp").DeclareTasks()
		c.Token = tokens[who]
		c.HC.Timeout = 15 * time.Second // a hang fails the test instead of blocking it
		return c
	}
	type task = mcpkittest.Task
	call := func(c *remotetest.Client, method string, params map[string]any) (task, string) {
		t.Helper()
		r := c.Do(method, params)
		if r.Err != nil || r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", method, r.Status, r.Body)
		}
		var tk task
		_ = json.Unmarshal(r.Result, &tk)
		return tk, r.Header.Get("X-Instance")
	}
	// tasks: a confirm_delete task answered and completed through other instances,
	// and a slow_compute task cancelled through another instance.
	tasks := func(c *remotetest.Client) {
		t.Helper()
		tk, creator := call(c, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "a.txt"}})
		if tk.ResultType != "task" {
			t.Fatalf("confirm_delete: not a task: %+v", tk)
		}
		seen := map[string]bool{creator: true}
		deadline := time.Now().Add(20 * time.Second)
		for tk.Status != mcpkit.TaskInputRequired {
			if time.Now().After(deadline) {
				t.Fatalf("the task never asked for its confirmation: %+v", tk)
			}
			time.Sleep(50 * time.Millisecond)
			var in string
			tk, in = call(c, "tasks/get", map[string]any{"taskId": tk.TaskID})
			seen[in] = true
		}
		_, via := call(c, "tasks/update", map[string]any{"taskId": tk.TaskID,
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
		seen[via] = true
		for tk.Status != mcpkit.TaskCompleted {
			if time.Now().After(deadline) || (tk.Status != mcpkit.TaskWorking && tk.Status != mcpkit.TaskInputRequired) {
				t.Fatalf("the answered task did not complete: %+v", tk)
			}
			time.Sleep(50 * time.Millisecond)
			var in string
			tk, in = call(c, "tasks/get", map[string]any{"taskId": tk.TaskID})
			seen[in] = true
		}
		if len(seen) != 3 || !strings.Contains(string(tk.Result), "Deleted a.txt") {
			t.Fatalf("task created on %s, read and answered through %v: want all three instances; result %s", creator, seen, tk.Result)
		}
		tk, creator = call(c, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60, "label": "shared"}})
		if tk.ResultType != "task" {
			t.Fatalf("slow_compute: not a task: %+v", tk)
		}
		if _, via := call(c, "tasks/cancel", map[string]any{"taskId": tk.TaskID}); via == creator {
			t.Fatalf("the cancel reached the creating instance %s", creator)
		}
		if got, _ := call(c, "tasks/get", map[string]any{"taskId": tk.TaskID}); got.Status != mcpkit.TaskCancelled {
			t.Fatalf("after tasks/cancel through another instance: %+v", got)
		}
	}
	// writes: a confirmed round runs once, and replayed to each other instance is refused.
	const stateTool = "test_input_required_result_request_state"
	confirmedRetry := func(c *remotetest.Client) map[string]any {
		first := mcpkittest.AskConfirmation(t, c, stateTool, map[string]any{})
		return map[string]any{"name": stateTool, "arguments": map[string]any{}, "requestState": first.RequestState,
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}
	}
	writes := func(c *remotetest.Client) {
		t.Helper()
		retry := confirmedRetry(c)
		r := c.Do("tools/call", retry)
		if r.Err != nil || !strings.Contains(string(r.Result), "state-ok") {
			t.Fatalf("the confirmed round: %s", r.Body)
		}
		by := mcpkittest.ReplayRefusedEverywhere(t, c, retry, r.Header.Get("X-Instance"), 3)
		t.Logf("confirmed on instance %s; the replay was refused by instances %v", r.Header.Get("X-Instance"), by)
	}
	// rateLimit: the caller's rate spread over the instances, then refused on each.
	rateLimit := func(c *remotetest.Client) {
		t.Helper()
		greet := map[string]any{"name": "greet", "arguments": map[string]any{"name": "r"}}
		for i := range rate {
			if r := c.Do("tools/call", greet); r.Status != http.StatusOK {
				t.Fatalf("request %d of %d within the rate: %d %s", i+1, rate, r.Status, r.Body)
			}
		}
		refusedBy := map[string]bool{}
		for range 3 {
			r := c.Do("tools/call", greet)
			if r.Status != http.StatusTooManyRequests || r.Err == nil || !strings.Contains(r.Err.Message, fmt.Sprintf("the limit is %d per minute", rate)) {
				t.Fatalf("over the rate on instance %s (each instance saw a third of it): %d %s", r.Header.Get("X-Instance"), r.Status, r.Body)
			}
			refusedBy[r.Header.Get("X-Instance")] = true
		}
		if len(refusedBy) != 3 {
			t.Fatalf("refused by %v, want all three instances", refusedBy)
		}
	}

	tasks(client("tasks"))
	writes(client("writes"))
	rateLimit(client("rate"))

	// Redis stops: writes and tasks are refused and say why; reads go on everywhere.
	out := client("outage")
	pending := confirmedRetry(out) // asked while Redis answered; confirmed during the outage
	running, _ := call(out, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60, "label": "before-outage"}})
	if running.ResultType != "task" {
		t.Fatalf("slow_compute: not a task: %+v", running)
	}
	rs.Stop()
	reads := map[string]bool{}
	for range 3 {
		r := out.Do("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "o"}})
		if r.Status != http.StatusOK || r.Err != nil || !strings.Contains(string(r.Result), "Hello, o!") {
			t.Fatalf("a read with Redis stopped: %d %s", r.Status, r.Body)
		}
		reads[r.Header.Get("X-Instance")] = true
	}
	if len(reads) != 3 {
		t.Fatalf("reads answered by %v, want all three instances", reads)
	}
	clear := func(what string, r *remotetest.Reply) {
		t.Helper()
		if r.Err == nil || !strings.Contains(r.Err.Message, "cannot be reached") || !strings.Contains(r.Err.Message, "Redis at ") || strings.Contains(r.Err.Message, "redis://") {
			t.Fatalf("%s with Redis stopped: want an error saying the shared store cannot be reached, got %d %s", what, r.Status, r.Body)
		}
		t.Logf("%s with Redis stopped: %s", what, r.Err.Message)
	}
	clear("the confirmed write", out.Do("tools/call", pending))
	clear("a new task", out.Do("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 60, "label": "outage"}}))
	clear("tasks/get of a task created before", out.Do("tasks/get", map[string]any{"taskId": running.TaskID}))

	// Redis is back (empty: it kept nothing): everything resumes. Each instance's
	// client notices within about a second (after many failed dials go-redis retries
	// in the background before dialing on a request again), so first wait until
	// three requests in a row, one per instance, reach Redis: tasks/get of an unknown
	// task answers "unknown" (-32602) from Redis, an internal error without it.
	rs.Restart()
	back := time.Now()
	for ok := 0; ok < 3; {
		r := out.Do("tasks/get", map[string]any{"taskId": "no-such-task"})
		switch {
		case r.Err != nil && r.Err.Code == mcpkit.CodeInvalidParams:
			ok++
		case r.Err != nil && strings.Contains(r.Err.Message, "cannot be reached") && time.Since(back) < 30*time.Second:
			ok = 0
			time.Sleep(50 * time.Millisecond)
		default:
			t.Fatalf("after Redis came back (%v ago): %d %s", time.Since(back).Round(time.Millisecond), r.Status, r.Body)
		}
	}
	t.Logf("every instance reached Redis again %v after it came back", time.Since(back).Round(time.Millisecond))
	tasks(client("again"))
	writes(client("again"))
	rateLimit(client("rate2"))
}
