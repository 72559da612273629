package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestTasksExtensionTypeScriptClient (issue 14): the official Tasks extension client
// (@modelcontextprotocol/ext-tasks 0.2.2, createTaskSessionFromClient over the
// TypeScript client 2.4.0) drives tasks end to end against the fixture over HTTP: a
// long call comes back as a task it follows to its result, a cancelled one ends
// cancelled with its work stopped, and a fast call is answered inline. (Neither the
// Go SDK client v1.8.0 nor the TypeScript client alone speaks the extension.)
func TestTasksExtensionTypeScriptClient(t *testing.T) {
	node, script, env := realclient.NodeScript(t, "ts-tasks-client.mjs")
	pkg, err := os.ReadFile(filepath.Join(filepath.Dir(script), "node_modules", "@modelcontextprotocol", "ext-tasks", "package.json"))
	realclient.Require(t, err == nil, "@modelcontextprotocol/ext-tasks is not installed (run `make npm`): %v", err)
	var meta struct{ Version string }
	if json.Unmarshal(pkg, &meta) != nil || meta.Version != "0.2.2" {
		t.Fatalf("@modelcontextprotocol/ext-tasks is %q, want the 0.2.2 this test was written against", meta.Version)
	}

	var mu sync.Mutex
	var stops []string
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) {
		if strings.Contains(string(p), "slow_compute stopped") {
			mu.Lock()
			stops = append(stops, string(p))
			mu.Unlock()
		}
	}), nil))
	srv := httptest.NewServer(newServer(logger).HTTPHandler(nil))
	defer srv.Close()

	run := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(node, append([]string{script, "--url", srv.URL + "/mcp"}, args...)...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ts-tasks-client %v: %v\n%s", args, err, stderr.String())
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("ts-tasks-client printed %q", out)
		}
		return res
	}
	res := run("--tool", "slow_compute", "--args", `{"seconds":1.2,"label":"ts-task"}`)
	if res["kind"] != "task" || res["status"] != mcpkit.TaskCompleted || !strings.Contains(jsonOf(res["result"]), `slow_compute \"ts-task\" finished`) {
		t.Fatalf("a long call through the Tasks client: %v", res)
	}
	res = run("--tool", "slow_compute", "--args", `{"seconds":30,"label":"ts-cancel"}`, "--cancel-after", "300")
	if res["kind"] != "task" || res["status"] != mcpkit.TaskCancelled {
		t.Fatalf("a cancelled call through the Tasks client: %v", res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(stops)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled task's work did not stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if res = run("--tool", "greet", "--args", `{"name":"TS"}`); res["kind"] != "immediate" || !strings.Contains(jsonOf(res["result"]), "Hello, TS!") {
		t.Fatalf("a fast call through the Tasks client: %v", res)
	}
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

var _ io.Writer = writerFunc(nil)

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
