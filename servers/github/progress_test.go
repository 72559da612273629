package github

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// slowLog serves a job log of n lines in chunks, pausing between them, with its
// length; stopped receives when the client went away before the end.
func slowLog(f *fakeGitHub, n int, pause time.Duration, stopped chan<- struct{}) {
	log := jobLog(n)
	f.override("GET /_logs/job-42.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(len(log)))
		const chunk = 64 << 10
		for off := 0; off < len(log); off += chunk {
			select {
			case <-r.Context().Done():
				select {
				case stopped <- struct{}{}:
				default:
				}
				return
			case <-time.After(pause):
			}
			_, _ = w.Write([]byte(log[off:min(off+chunk, len(log))]))
			_ = http.NewResponseController(w).Flush()
		}
	})
}

// TestJobLogProgressAndTask (issue 14): get_job_log reports the bytes of the log read
// of its length to a client that asked for progress (increasing, bounded rate), and
// a client with the Tasks extension gets a task it can cancel, which stops the
// download.
func TestJobLogProgressAndTask(t *testing.T) {
	f := newFake(t)
	stopped := make(chan struct{}, 1)
	slowLog(f, 40000, 30*time.Millisecond, stopped)
	s := newServer(t, f, BackendConfig{}, Config{})
	c := connect(t, s, "2026-07-28")
	start := time.Now()
	r := c.Request("tools/call", map[string]any{"name": "get_job_log", "arguments": map[string]any{"owner": "octo", "repo": "hello", "jobId": 42},
		"_meta": map[string]any{"progressToken": "log"}})
	took := time.Since(start)
	if r.Error != nil {
		t.Fatalf("get_job_log: %v", r.Error)
	}
	var values []float64
	var total float64
	for _, n := range c.Notifications() {
		var m struct {
			Method string
			Params struct {
				Progress, Total float64
			}
		}
		if json.Unmarshal(n, &m) == nil && m.Method == "notifications/progress" {
			values = append(values, m.Params.Progress)
			total = m.Params.Total
		}
	}
	if len(values) < 3 {
		t.Fatalf("%d progress notifications for a log read in about a second", len(values))
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Fatalf("progress not increasing: %v", values)
		}
	}
	if most := int(took/mcpkit.DefaultProgressEvery) + 2; len(values) > most {
		t.Errorf("%d progress notifications in %v: more than one per %v (at most %d)", len(values), took, mcpkit.DefaultProgressEvery, most)
	}
	if size := float64(len(jobLog(40000))); total != size || values[len(values)-1] != size {
		t.Errorf("progress ended at %v of %v; the log has %v bytes", values[len(values)-1], total, size)
	}
	t.Logf("get_job_log: %d progress notifications, last %v of %v bytes", len(values), values[len(values)-1], total)

	tc := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: map[string]any{
		"extensions": map[string]any{mcpkit.ExtensionTasks: map[string]any{}}}})
	var tk struct{ ResultType, TaskID, Status, StatusMessage string }
	_ = json.Unmarshal(tc.Call("tools/call", map[string]any{"name": "get_job_log", "arguments": map[string]any{"owner": "octo", "repo": "hello", "jobId": 42}}), &tk)
	if tk.ResultType != "task" {
		t.Fatalf("get_job_log with the Tasks extension: %+v", tk)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(tk.StatusMessage, "KiB of the log read") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress in the task's statusMessage: %+v", tk)
		}
		time.Sleep(50 * time.Millisecond)
		_ = json.Unmarshal(tc.Call("tasks/get", map[string]any{"taskId": tk.TaskID}), &tk)
	}
	sent := time.Now()
	tc.Call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
	select {
	case <-stopped:
		t.Logf("tasks/cancel stopped the log download %v after it was sent", time.Since(sent).Round(time.Microsecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the log download went on after tasks/cancel")
	}
	_ = json.Unmarshal(tc.Call("tasks/get", map[string]any{"taskId": tk.TaskID}), &tk)
	if tk.Status != mcpkit.TaskCancelled {
		t.Fatalf("after tasks/cancel: %+v", tk)
	}
}
