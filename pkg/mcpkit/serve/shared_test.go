package serve_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// sharedStore stands in for redisstore.Store: a task store that is also a replay
// guard and shared caller limits.
type sharedStore struct {
	mcpkit.TaskStore
	url string
}

func (sharedStore) Use(context.Context, string, time.Time) (bool, error) { return true, nil }
func (sharedStore) Acquire(context.Context, string, mcpkit.CallerLimit) (func(), string, error) {
	return func() {}, "", nil
}

// tasksOnly is a shared task store that keeps nothing else.
type tasksOnly struct{ mcpkit.TaskStore }

func TestSharedStoreFlags(t *testing.T) {
	tests := []struct {
		name                      string
		args                      []string
		noStore                   bool
		task, replay, limits, err string // the URL each was opened from ("": not shared), or the error
		opens                     int
	}{
		{name: "none", args: nil},
		{name: "one Redis for all by default", args: []string{"--task-store", "redis://a"}, task: "redis://a", replay: "redis://a", limits: "redis://a", opens: 1},
		{name: "own replay store", args: []string{"--task-store", "redis://a", "--replay-store", "redis://b"}, task: "redis://a", replay: "redis://b", limits: "redis://a", opens: 2},
		{name: "replay and limits in memory", args: []string{"--task-store", "redis://a", "--replay-store", "memory", "--limit-store", "memory"}, task: "redis://a", opens: 1},
		{name: "a replay store without a task store", args: []string{"--replay-store", "redis://b"}, replay: "redis://b", opens: 1},
		{name: "task store memory", args: []string{"--task-store", "memory"}, err: "--task-store takes a shared store's URL"},
		{name: "built without a shared store", args: []string{"--limit-store", "redis://b"}, noStore: true, err: "--limit-store (MCP_LIMIT_STORE): this server was built without a shared store"},
		{name: "a store that keeps only tasks", args: []string{"--replay-store", "tasks://x"}, err: "--replay-store: the store at this URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range serve.StandardEnv() {
				t.Setenv(name, "")
			}
			fs := flag.NewFlagSet("server", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			sf := serve.RegisterFlags(fs)
			opens := 0
			if !tt.noStore {
				sf.TaskStore = func(url string) (mcpkit.TaskStore, error) {
					opens++
					if strings.HasPrefix(url, "tasks:") {
						return tasksOnly{mcpkit.NewMemoryTaskStore(0)}, nil
					}
					return sharedStore{mcpkit.NewMemoryTaskStore(0), url}, nil
				}
			}
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			o, err := sf.Options()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			from := func(v any) string {
				if s, ok := v.(sharedStore); ok {
					return s.url
				}
				return ""
			}
			if got := [3]string{from(o.TaskStore), from(o.ReplayGuard), from(o.HTTP.SharedLimits)}; got != [3]string{tt.task, tt.replay, tt.limits} {
				t.Errorf("tasks, replay guard, limits from %q, want %q", got, [3]string{tt.task, tt.replay, tt.limits})
			}
			if opens != tt.opens {
				t.Errorf("%d stores opened, want %d (each URL once)", opens, tt.opens)
			}
		})
	}
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Serving HTTP, serve warns about tasks and confirmed writes that this instance keeps
// to itself, as it does about the state key; with a shared store, or on stdio, it
// does not.
func TestWarnsWithoutSharedStore(t *testing.T) {
	tests := []struct {
		name      string
		http      bool
		shared    bool
		write     bool
		task      bool
		want, not []string
	}{
		{name: "HTTP, tasks and writes, nothing shared", http: true, write: true, task: true, want: []string{"no shared task store (MCP_TASK_STORE)", "no shared replay store (MCP_REPLAY_STORE or MCP_TASK_STORE)"}},
		{name: "HTTP, read-only tools", http: true, not: []string{"no shared task store", "no shared replay store"}},
		{name: "HTTP, shared", http: true, shared: true, write: true, task: true, not: []string{"no shared task store", "no shared replay store"}},
		{name: "stdio", write: true, task: true, not: []string{"no shared task store", "no shared replay store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			s := mcpkit.NewServer(mcpkit.Implementation{Name: "x", Version: "1"}, &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			ann := mcpkit.ReadOnly()
			if tt.write {
				ann = nil
			}
			ts := mcpkit.TaskForbidden
			if tt.task {
				ts = mcpkit.TaskOptional
			}
			mcpkit.AddTool(s, &mcpkit.Tool{Name: "t", Description: "d", Annotations: ann, TaskSupport: ts},
				func(context.Context, *mcpkit.Request, struct{}) (*mcpkit.CallToolResult, error) {
					return nil, errors.New("unused")
				})
			o := &serve.Options{StateKey: bytes.Repeat([]byte("k"), 32), Stdin: strings.NewReader(""), Stdout: io.Discard}
			if tt.http {
				o.HTTPAddr = "127.0.0.1:0"
			}
			if tt.shared {
				st := sharedStore{mcpkit.NewMemoryTaskStore(0), "redis://a"}
				o.TaskStore, o.ReplayGuard = st, st
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the warnings come before serving; then it shuts down at once
			_ = serve.Serve(ctx, s, o)
			for _, w := range tt.want {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("no warning %q in:\n%s", w, logs.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(logs.String(), n) {
					t.Errorf("warning %q, which does not apply, in:\n%s", n, logs.String())
				}
			}
		})
	}
}
