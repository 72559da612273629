package mcpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// The Tasks extension, tested through the raw protocol: the in-memory stdio client
// validates every message against the core schema and the extension's own.

var tasksCaps = map[string]any{
	"elicitation": map[string]any{},
	"extensions":  map[string]any{mcpkit.ExtensionTasks: map[string]any{}},
}

type workIn struct {
	Ms   int    `json:"ms" jsonschema_description:"how long to work, in milliseconds"`
	Fail string `json:"fail,omitempty" jsonschema_description:"tool, rpc or panic: how to fail"`
}

// taskProbe records what the work of the test tools saw.
type taskProbe struct {
	mu        sync.Mutex
	stoppedAt time.Time // when a handler saw its context end
	started   chan struct{}
}

func (p *taskProbe) stopped() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stoppedAt
}

func newTaskServer(t testing.TB, opts *mcpkit.ServerOptions) (*mcpkit.Server, *taskProbe) {
	t.Helper()
	o := mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TaskBudget: 100 * time.Millisecond}
	if opts != nil {
		o = *opts
		if o.Logger == nil {
			o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		}
	}
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "tasks-test", Version: "1"}, &o)
	p := &taskProbe{started: make(chan struct{}, 16)}
	work := func(ctx context.Context, req *mcpkit.Request, in workIn) (*mcpkit.CallToolResult, error) {
		select {
		case p.started <- struct{}{}:
		default:
		}
		steps := in.Ms / 10
		for i := range steps {
			select {
			case <-ctx.Done():
				p.mu.Lock()
				p.stoppedAt = time.Now()
				p.mu.Unlock()
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
			req.Progress(float64(i+1), float64(steps), "")
		}
		switch in.Fail {
		case "tool":
			return nil, errors.New("the work failed")
		case "rpc":
			return nil, &mcpkit.Error{Code: -32042, Message: "upstream refused"}
		case "panic":
			panic("boom")
		}
		return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent(fmt.Sprintf("worked %d ms", in.Ms))}}, nil
	}
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "work", Description: "works", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskOptional}, work)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "only_task", Description: "task only", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskRequired}, work)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "plain", Description: "never a task", Annotations: mcpkit.ReadOnly()}, work)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "ask_two", Description: "asks two questions through a task", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			if !req.StartTask() {
				return mcpkit.ToolError("not a task"), nil
			}
			q := func(msg string) mcpkit.InputRequest {
				return mcpkit.InputRequest{Method: "elicitation/create", Params: mcpkit.ElicitParams{Message: msg,
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}}}}
			}
			got, err := req.Input(ctx, map[string]mcpkit.InputRequest{"a": q("first?"), "b": q("second?")})
			if err != nil {
				return nil, err
			}
			var a, b mcpkit.ElicitResult
			_ = json.Unmarshal(got["a"], &a)
			_ = json.Unmarshal(got["b"], &b)
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent(fmt.Sprintf("%v %v", a.Content["v"], b.Content["v"]))}}, nil
		})
	return s, p
}

// task is a decoded CreateTaskResult or GetTaskResult.
type task struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         *mcpkittest.ToolResult     `json:"result"`
	Error          *mcpkit.Error              `json:"error"`
	Content        []mcpkit.Content           `json:"content"`
}

func decodeTask(t *testing.T, raw json.RawMessage) *task {
	t.Helper()
	var tk task
	if err := json.Unmarshal(raw, &tk); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return &tk
}

// pollTask polls tasks/get until the task's status is one of want.
func pollTask(t *testing.T, c *mcpkittest.Client, id string, want ...string) *task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tk := decodeTask(t, c.Call("tasks/get", map[string]any{"taskId": id}))
		for _, w := range want {
			if tk.Status == w {
				return tk
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%s), want one of %v", id, tk.Status, tk.StatusMessage, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTasksInlineThenTask(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})

	var disc struct {
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(c.Call("server/discover", nil), &disc)
	if _, ok := disc.Capabilities.Extensions[mcpkit.ExtensionTasks]; !ok {
		t.Fatalf("server/discover does not advertise %s", mcpkit.ExtensionTasks)
	}

	// Within the budget: answered inline.
	if r := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 0}})); r.ResultType != "complete" || r.TaskID != "" || len(r.Content) != 1 {
		t.Fatalf("fast call: %+v", r)
	}
	// Beyond it: a task, created durably before it is announced.
	created := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 600}}))
	if created.ResultType != "task" || len(created.TaskID) < 20 || created.Status != mcpkit.TaskWorking || created.TTLMs == nil || *created.TTLMs <= 0 || created.PollIntervalMs <= 0 {
		t.Fatalf("slow call: %+v", created)
	}
	if _, err := time.Parse(time.RFC3339, created.CreatedAt); err != nil {
		t.Errorf("createdAt %q: %v", created.CreatedAt, err)
	}
	working := decodeTask(t, c.Call("tasks/get", map[string]any{"taskId": created.TaskID}))
	if working.ResultType != "complete" || working.TaskID != created.TaskID || working.Result != nil {
		t.Fatalf("tasks/get while working: %+v", working)
	}
	done := pollTask(t, c, created.TaskID, mcpkit.TaskCompleted)
	if done.Result == nil || done.Result.Text() != "worked 600 ms" || done.Result.ResultType != "complete" {
		t.Fatalf("completed task: %+v", done)
	}

	// A tool that is never a task answers inline whatever it takes.
	if r := decodeTask(t, c.Call("tools/call", map[string]any{"name": "plain", "arguments": map[string]any{"ms": 300}})); r.ResultType != "complete" {
		t.Fatalf("plain tool: %+v", r)
	}
	// Unknown ids, and the removed v1 methods.
	if r := c.Request("tasks/get", map[string]any{"taskId": "nope"}); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
		t.Fatalf("unknown task: %+v", r)
	}
	if r := c.Request("tasks/cancel", map[string]any{"taskId": "nope"}); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
		t.Fatalf("cancel of an unknown task: %+v", r)
	}
	for _, m := range []string{"tasks/list", "tasks/result"} {
		if r := c.Request(m, map[string]any{"taskId": created.TaskID}); r.Error == nil || r.Error.Code != mcpkit.CodeMethodNotFound {
			t.Fatalf("%s: %+v", m, r)
		}
	}
}

func TestTasksWithoutTheExtension(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil)
	// The same handler blocks and answers inline.
	if r := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 300}})); r.ResultType != "complete" || len(r.Content) != 1 {
		t.Fatalf("work without the extension: %+v", r)
	}
	// A task-only tool is refused before it runs, naming the extension.
	r := c.Request("tools/call", map[string]any{"name": "only_task", "arguments": map[string]any{"ms": 0}})
	if r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability || !strings.Contains(string(r.Raw), `"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
		t.Fatalf("task-only tool without the extension: %s", r.Raw)
	}
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if r := c.Request(m, map[string]any{"taskId": "x", "inputResponses": map[string]any{}}); r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability {
			t.Fatalf("%s without the extension: %+v", m, r)
		}
	}
	if r := c.Request("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{"x"}}}); r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability {
		t.Fatalf("listen for tasks without the extension: %+v", r)
	}
	// A legacy session never gets a task either.
	lc := mcpkittest.Connect(t, s, mcpkit.Revision20251125, nil)
	if r := lc.Request("tools/call", map[string]any{"name": "only_task", "arguments": map[string]any{"ms": 0}}); r.Error == nil || r.Error.Code != mcpkit.CodeMissingClientCapability {
		t.Fatalf("task-only tool on a legacy session: %+v", r)
	}
}

func TestTasksOutcomes(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	start := func(name string, args map[string]any) string {
		t.Helper()
		tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": name, "arguments": args}))
		if tk.ResultType != "task" {
			t.Fatalf("%s %v: not a task: %+v", name, args, tk)
		}
		return tk.TaskID
	}
	// A tool error is a completed task with an isError result.
	if tk := pollTask(t, c, start("work", map[string]any{"ms": 200, "fail": "tool"}), mcpkit.TaskCompleted, mcpkit.TaskFailed); tk.Status != mcpkit.TaskCompleted || tk.Result == nil || !tk.Result.IsError {
		t.Errorf("tool error: %+v", tk)
	}
	// A JSON-RPC error is a failed task carrying it.
	if tk := pollTask(t, c, start("work", map[string]any{"ms": 200, "fail": "rpc"}), mcpkit.TaskCompleted, mcpkit.TaskFailed); tk.Status != mcpkit.TaskFailed || tk.Error == nil || tk.Error.Code != -32042 || tk.Result != nil {
		t.Errorf("protocol error: %+v", tk)
	}
	// A panic is a failed task with an internal error.
	if tk := pollTask(t, c, start("work", map[string]any{"ms": 200, "fail": "panic"}), mcpkit.TaskCompleted, mcpkit.TaskFailed); tk.Status != mcpkit.TaskFailed || tk.Error == nil || tk.Error.Code != mcpkit.CodeInternalError {
		t.Errorf("panic: %+v", tk)
	}
	// A task-only tool that finished within the budget is a task that has completed.
	tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": "only_task", "arguments": map[string]any{"ms": 0}}))
	if tk.ResultType != "task" || tk.Status != mcpkit.TaskCompleted || tk.Result != nil {
		t.Fatalf("fast task-only call: %+v", tk)
	}
	if got := pollTask(t, c, tk.TaskID, mcpkit.TaskCompleted); got.Result == nil || got.Result.Text() != "worked 0 ms" {
		t.Fatalf("fast task-only result: %+v", got)
	}
}

func TestTasksCancelStopsTheWork(t *testing.T) {
	s, p := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 20000}}))
	if tk.ResultType != "task" {
		t.Fatalf("not a task: %+v", tk)
	}
	// Progress becomes the task's statusMessage.
	deadline := time.Now().Add(5 * time.Second)
	for {
		cur := decodeTask(t, c.Call("tasks/get", map[string]any{"taskId": tk.TaskID}))
		if strings.Contains(cur.StatusMessage, " of 2000") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress in statusMessage: %+v", cur)
		}
		time.Sleep(50 * time.Millisecond)
	}
	sent := time.Now()
	ack := c.Call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
	if strings.Contains(string(ack), "taskId") || !strings.Contains(string(ack), `"resultType":"complete"`) {
		t.Fatalf("cancel ack: %s", ack)
	}
	got := pollTask(t, c, tk.TaskID, mcpkit.TaskCancelled, mcpkit.TaskCompleted, mcpkit.TaskFailed)
	if got.Status != mcpkit.TaskCancelled {
		t.Fatalf("after cancel: %+v", got)
	}
	for p.stopped().IsZero() && time.Since(sent) < 5*time.Second {
		time.Sleep(time.Millisecond)
	}
	lag := p.stopped().Sub(sent)
	t.Logf("tasks/cancel stopped the work %v after it was sent", lag)
	if p.stopped().IsZero() || lag > time.Second {
		t.Fatalf("the work did not stop within 1 s of tasks/cancel (lag %v)", lag)
	}
	// Cancelling again, or a finished task, is acknowledged all the same.
	c.Call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
}

func TestTasksInputThroughTheTask(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": "ask_two", "arguments": map[string]any{}}))
	if tk.ResultType != "task" {
		t.Fatalf("not a task: %+v", tk)
	}
	waiting := pollTask(t, c, tk.TaskID, mcpkit.TaskInputRequired)
	if len(waiting.InputRequests) != 2 {
		t.Fatalf("input_required with %d requests: %+v", len(waiting.InputRequests), waiting)
	}
	answer := func(v string) map[string]any {
		return map[string]any{"action": "accept", "content": map[string]any{"v": v}}
	}
	// One answer (and one for a key never asked, ignored): the other stays outstanding.
	c.Call("tasks/update", map[string]any{"taskId": tk.TaskID, "inputResponses": map[string]any{"a": answer("x"), "zzz": answer("ignored")}})
	partial := decodeTask(t, c.Call("tasks/get", map[string]any{"taskId": tk.TaskID}))
	if partial.Status != mcpkit.TaskInputRequired || len(partial.InputRequests) != 1 || partial.InputRequests["b"] == nil {
		t.Fatalf("after a partial answer: %+v", partial)
	}
	c.Call("tasks/update", map[string]any{"taskId": tk.TaskID, "inputResponses": map[string]any{"b": answer("y")}})
	done := pollTask(t, c, tk.TaskID, mcpkit.TaskCompleted)
	if done.Result == nil || done.Result.Text() != "x y" {
		t.Fatalf("completed: %+v", done)
	}
	// An answer to a key already answered is ignored.
	c.Call("tasks/update", map[string]any{"taskId": tk.TaskID, "inputResponses": map[string]any{"a": answer("again")}})
}

func TestTasksNotificationsOnListen(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 400}}))
	listenID := c.NextID()
	c.Send(listenID, "subscriptions/listen", c.WithMeta(map[string]any{"notifications": map[string]any{"taskIds": []string{tk.TaskID, "someone-elses"}}}))
	ack := c.WaitNotification(func(method string, _ json.RawMessage) bool {
		return method == "notifications/subscriptions/acknowledged"
	})
	if !strings.Contains(string(ack), `"taskIds":["`+tk.TaskID+`"]`) {
		t.Fatalf("acknowledgement: %s", ack)
	}
	n := c.WaitNotification(func(method string, params json.RawMessage) bool {
		return method == "notifications/tasks" && strings.Contains(string(params), `"status":"completed"`)
	})
	if !strings.Contains(string(n), `"taskId":"`+tk.TaskID+`"`) || !strings.Contains(string(n), "worked 400 ms") || !strings.Contains(string(n), "io.modelcontextprotocol/subscriptionId") {
		t.Fatalf("notifications/tasks: %s", n)
	}
	c.Notify("notifications/cancelled", map[string]any{"requestId": listenID})
}

// TestTasksVisibleOnlyToTheirCaller: over authorized HTTP a task is answered only
// to the caller who created it (subject and issuer); to anyone else it does not
// exist. Authorization is checked on every task request, so a token that lost the
// tool's scope is refused.
func TestTasksVisibleOnlyToTheirCaller(t *testing.T) {
	s, _ := newTaskServer(t, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "scoped", Description: "needs a scope", Annotations: mcpkit.ReadOnly(), TaskSupport: mcpkit.TaskOptional, Scopes: []string{"work"}},
		func(ctx context.Context, req *mcpkit.Request, in workIn) (*mcpkit.CallToolResult, error) {
			time.Sleep(time.Duration(in.Ms) * time.Millisecond)
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("scoped done")}}, nil
		})
	srv := httptest.NewServer(s.HTTPHandler(&mcpkit.HTTPOptions{Authenticator: tokenAuth{}}))
	defer srv.Close()
	client := func(token string) *remotetest.Client {
		c := remotetest.NewClient(t, srv.URL).DeclareTasks()
		c.Token = token
		return c
	}
	alice, bob, otherAlice := client("alice@a"), client("bob@a"), client("alice@b")
	r := alice.Do("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 300}})
	var tk task
	if err := json.Unmarshal(r.Result, &tk); err != nil || tk.ResultType != "task" {
		t.Fatalf("alice's call: %s", r.Body)
	}
	for who, c := range map[string]*remotetest.Client{"bob": bob, "alice of another issuer": otherAlice} {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
			r := c.Do(m, map[string]any{"taskId": tk.TaskID, "inputResponses": map[string]any{}})
			if r.Err == nil || r.Err.Code != mcpkit.CodeInvalidParams {
				t.Errorf("%s %s on alice's task: %s", who, m, r.Body)
			}
		}
	}
	if r := alice.Do("tasks/get", map[string]any{"taskId": tk.TaskID}); r.Err != nil {
		t.Fatalf("alice's own task: %s", r.Body)
	}
	// Mcp-Name must carry the task id.
	alice.Header = map[string]string{"Mcp-Name": "another-task"}
	if r := alice.Do("tasks/get", map[string]any{"taskId": tk.TaskID}); r.Status != http.StatusBadRequest || r.Err == nil || r.Err.Code != mcpkit.CodeHeaderMismatch {
		t.Fatalf("mismatched Mcp-Name: %d %s", r.Status, r.Body)
	}
	alice.Header = nil
	// A task of a scoped tool: each task request needs the scope again.
	scopedAlice := client("alice@a work")
	r = scopedAlice.Do("tools/call", map[string]any{"name": "scoped", "arguments": map[string]any{"ms": 300}})
	if err := json.Unmarshal(r.Result, &tk); err != nil || tk.ResultType != "task" {
		t.Fatalf("scoped call: %s", r.Body)
	}
	if r := scopedAlice.Do("tasks/get", map[string]any{"taskId": tk.TaskID}); r.Err != nil {
		t.Fatalf("scoped task with the scope: %s", r.Body)
	}
	if r := alice.Do("tasks/get", map[string]any{"taskId": tk.TaskID}); r.Status != http.StatusForbidden {
		t.Fatalf("scoped task without the scope: %d %s", r.Status, r.Body)
	}
}

// tokenAuth takes "subject@issuer scope1 scope2" bearer tokens at face value.
type tokenAuth struct{}

func (tokenAuth) Authenticate(w http.ResponseWriter, r *http.Request) (mcpkit.Caller, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	who, scopes, _ := strings.Cut(tok, " ")
	sub, iss, found := strings.Cut(who, "@")
	if !ok || !found {
		mcpkit.WriteHTTPError(w, r, http.StatusUnauthorized, &mcpkit.Error{Code: mcpkit.CodeInvalidRequest, Message: "no token"})
		return mcpkit.Caller{}, false
	}
	return mcpkit.Caller{Subject: sub, Issuer: iss, Scopes: strings.Fields(scopes)}, true
}

func (tokenAuth) AuthorizeTool(w http.ResponseWriter, r *http.Request, c mcpkit.Caller, tool string, needed []string) bool {
	for _, n := range needed {
		found := false
		for _, s := range c.Scopes {
			found = found || s == n
		}
		if !found {
			mcpkit.WriteHTTPError(w, r, http.StatusForbidden, &mcpkit.Error{Code: mcpkit.CodeInvalidRequest, Message: "insufficient scope"})
			return false
		}
	}
	return true
}

// deadStore is a store an instance stops reaching when it "dies": its writes and
// reads fail, as for a process that is gone.
type deadStore struct {
	mcpkit.TaskStore
	dead atomic.Bool
}

var errDead = errors.New("instance is dead")

func (d *deadStore) Update(ctx context.Context, id string, fn func(*mcpkit.TaskState) error) (*mcpkit.TaskState, error) {
	if d.dead.Load() {
		return nil, errDead
	}
	return d.TaskStore.Update(ctx, id, fn)
}

func (d *deadStore) Publish(ctx context.Context, id string) error {
	if d.dead.Load() {
		return errDead
	}
	return d.TaskStore.Publish(ctx, id)
}

// TestTasksOfADeadInstanceFail: two instances share a store; the one running a task
// dies; the other answers tasks/get with a failed task saying so once the lease ran
// out, rather than working forever.
func TestTasksOfADeadInstanceFail(t *testing.T) {
	shared := mcpkit.NewMemoryTaskStore(0)
	dying := &deadStore{TaskStore: shared}
	lease := 300 * time.Millisecond
	a, _ := newTaskServer(t, &mcpkit.ServerOptions{TaskStore: dying, TaskLease: lease, TaskBudget: 50 * time.Millisecond})
	b, _ := newTaskServer(t, &mcpkit.ServerOptions{TaskStore: shared, TaskLease: lease})
	ca := mcpkittest.Connect(t, a, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	cb := mcpkittest.Connect(t, b, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	tk := decodeTask(t, ca.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 3000}}))
	// While a lives, b sees the task working (a renews its lease).
	time.Sleep(2 * lease)
	if got := decodeTask(t, cb.Call("tasks/get", map[string]any{"taskId": tk.TaskID})); got.Status != mcpkit.TaskWorking {
		t.Fatalf("through b while a lives: %+v", got)
	}
	dying.dead.Store(true)
	died := time.Now()
	got := pollTask(t, cb, tk.TaskID, mcpkit.TaskFailed, mcpkit.TaskCompleted)
	if got.Status != mcpkit.TaskFailed || got.Error == nil || !strings.Contains(got.Error.Message, "stopped before it finished") {
		t.Fatalf("through b after a died: %+v", got)
	}
	t.Logf("b reported the task failed %v after a died (lease %v): %s", time.Since(died).Round(time.Millisecond), lease, got.Error.Message)
}

// TestTasksExpireAfterTheTTL: a task and its result are kept TaskTTL after its last
// change, and answered as unknown after that; ttlMs says so.
func TestTasksExpireAfterTheTTL(t *testing.T) {
	s, _ := newTaskServer(t, &mcpkit.ServerOptions{TaskTTL: 400 * time.Millisecond, TaskBudget: 50 * time.Millisecond})
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: tasksCaps})
	tk := decodeTask(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 100}}))
	done := pollTask(t, c, tk.TaskID, mcpkit.TaskCompleted)
	if done.TTLMs == nil || *done.TTLMs < 400 {
		t.Fatalf("ttlMs %v: want at least the TTL", done.TTLMs)
	}
	time.Sleep(600 * time.Millisecond)
	if r := c.Request("tasks/get", map[string]any{"taskId": tk.TaskID}); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
		t.Fatalf("an expired task: %s", r.Raw)
	}
}
