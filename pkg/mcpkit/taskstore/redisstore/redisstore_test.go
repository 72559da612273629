package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
)

func open(t *testing.T, url string) mcpkit.TaskStore {
	t.Helper()
	st, err := redisstore.FromURL(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.(*redisstore.Store).Close() })
	return st
}

func TestStoreSemantics(t *testing.T) {
	url := redistest.Start(t)
	a, b := open(t, url+"?prefix=test:"), open(t, url+"?prefix=test:")
	ctx := context.Background()
	now := time.Now()
	st := &mcpkit.TaskState{ID: "t1", Tool: "x", Status: mcpkit.TaskWorking, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Minute)}
	if err := a.Create(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, st); err == nil {
		t.Fatal("a second Create of one id succeeded")
	}
	got, err := b.Get(ctx, "t1")
	if err != nil || got.Tool != "x" {
		t.Fatalf("Get through another client: %+v %v", got, err)
	}
	if _, err := b.Get(ctx, "nope"); !errors.Is(err, mcpkit.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	// Concurrent updates from two clients lose nothing.
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			if _, err := s.Update(ctx, "t1", func(t *mcpkit.TaskState) error {
				t.Asked = append(t.Asked, fmt.Sprint(i))
				return nil
			}); err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()
	if got, _ := a.Get(ctx, "t1"); len(got.Asked) != 40 {
		t.Fatalf("after 40 concurrent updates: %d recorded", len(got.Asked))
	}
	// ErrTaskUnchanged writes nothing; other errors come back.
	if got, err := a.Update(ctx, "t1", func(*mcpkit.TaskState) error { return mcpkit.ErrTaskUnchanged }); err != nil || len(got.Asked) != 40 {
		t.Fatalf("unchanged update: %v", err)
	}
	boom := errors.New("boom")
	if _, err := a.Update(ctx, "t1", func(*mcpkit.TaskState) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failing update: %v", err)
	}
	// Expiry: Redis drops the task at ExpiresAt.
	short := &mcpkit.TaskState{ID: "t2", Status: mcpkit.TaskCompleted, CreatedAt: now, UpdatedAt: now, ExpiresAt: time.Now().Add(150 * time.Millisecond)}
	if err := a.Create(ctx, short); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := b.Get(ctx, "t2"); !errors.Is(err, mcpkit.ErrTaskNotFound) {
		t.Fatalf("expired task: %v", err)
	}
	// Publish on one client reaches a subscriber on the other.
	heard := make(chan string, 1)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := b.Subscribe(sctx, func(id string) { heard <- id }); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-heard:
		if id != "t1" {
			t.Fatalf("heard %q", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the published change was not heard")
	}
}

// TestTasksAcrossTwoInstances: two servers share a Redis store. A task created on
// one is read, answered and cancelled through the other, and the other's listen
// stream hears it change.
func TestTasksAcrossTwoInstances(t *testing.T) {
	url := redistest.Start(t)
	stopped := make(chan time.Time, 4)
	newInstance := func() *httptest.Server {
		s := mcpkit.NewServer(mcpkit.Implementation{Name: "shared", Version: "1"}, &mcpkit.ServerOptions{
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TaskStore: open(t, url), TaskBudget: 50 * time.Millisecond})
		mcpkit.AddTool(s, &mcpkit.Tool{Name: "work", Description: "works", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskOptional},
			func(ctx context.Context, req *mcpkit.Request, in struct {
				Ms  int  `json:"ms"`
				Ask bool `json:"ask,omitempty"`
			}) (*mcpkit.CallToolResult, error) {
				answer := ""
				if in.Ask {
					req.StartTask() // asked through the task, not inline
					res, err := req.Elicit(ctx, "name", mcpkit.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
					if err != nil {
						return nil, err
					}
					answer = fmt.Sprint(res.Content["name"])
				}
				select {
				case <-time.After(time.Duration(in.Ms) * time.Millisecond):
				case <-ctx.Done():
					stopped <- time.Now()
					return nil, ctx.Err()
				}
				return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("done " + answer)}}, nil
			})
		srv := httptest.NewServer(s.HTTPHandler(nil))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := newInstance(), newInstance()
	ca := remotetest.NewClient(t, a.URL).DeclareTasks()
	cb := remotetest.NewClient(t, b.URL).DeclareTasks()
	type task struct {
		ResultType, TaskID, Status, StatusMessage string
		InputRequests                             map[string]json.RawMessage
		Result                                    json.RawMessage
	}
	decode := func(r *remotetest.Reply) task {
		t.Helper()
		if r.Err != nil {
			t.Fatalf("error: %s", r.Body)
		}
		var tk task
		_ = json.Unmarshal(r.Result, &tk)
		return tk
	}
	poll := func(c *remotetest.Client, id string, want string) task {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			tk := decode(c.Do("tasks/get", map[string]any{"taskId": id}))
			if tk.Status == want {
				return tk
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s is %s (%s), want %s", id, tk.Status, tk.StatusMessage, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Created on a, listened for and polled on b.
	tk := decode(ca.Do("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 500}}))
	if tk.ResultType != "task" {
		t.Fatalf("not a task: %+v", tk)
	}
	st := cb.Listen(map[string]any{"taskIds": []string{tk.TaskID}})
	if ack := st.Next(t); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen: %v", ack)
	}
	if done := poll(cb, tk.TaskID, mcpkit.TaskCompleted); string(done.Result) == "" {
		t.Fatalf("completed without a result: %+v", done)
	}
	for {
		ev := st.Next(t)
		if p, _ := ev["params"].(map[string]any); ev["method"] == "notifications/tasks" && p["status"] == mcpkit.TaskCompleted {
			break
		}
	}
	st.Cancel()
	// Input asked on a, answered through b.
	tk = decode(ca.Do("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 0, "ask": true}}))
	if tk.ResultType != "task" {
		t.Fatalf("asking tool: %+v", tk)
	}
	waiting := poll(cb, tk.TaskID, mcpkit.TaskInputRequired)
	if waiting.InputRequests["name"] == nil {
		t.Fatalf("input_required through b: %+v", waiting)
	}
	decode(cb.Do("tasks/update", map[string]any{"taskId": tk.TaskID, "inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}))
	if done := poll(ca, tk.TaskID, mcpkit.TaskCompleted); !strings.Contains(string(done.Result), "done Ada") {
		t.Fatalf("answered through b: %s", done.Result)
	}
	// Cancelled through b: a's work stops.
	tk = decode(ca.Do("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 30000}}))
	sent := time.Now()
	decode(cb.Do("tasks/cancel", map[string]any{"taskId": tk.TaskID}))
	select {
	case at := <-stopped:
		t.Logf("tasks/cancel through the other instance stopped the work %v after it was sent", at.Sub(sent).Round(time.Microsecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the work went on after tasks/cancel through the other instance")
	}
	poll(ca, tk.TaskID, mcpkit.TaskCancelled)
}
