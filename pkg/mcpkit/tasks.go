package mcpkit

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The Tasks extension (io.modelcontextprotocol/tasks, PROTOCOL.md §13): a tools/call
// may be answered with a task handle (CreateTaskResult) instead of its result, and
// the client then polls tasks/get, answers input with tasks/update, cancels with
// tasks/cancel, or listens for notifications/tasks.
//
// A tool opts in with [Tool].TaskSupport. Its handler is written as for any tool:
// mcpkit runs it, and when the client declared the extension on the request
//
//   - if it finishes within ServerOptions.TaskBudget, the result is answered inline
//     as usual (a task-required tool's result is answered as a task that has
//     already completed);
//   - if it asks for input within the budget, the input is asked with the
//     multi-round-trip flow (input_required), before any task exists, as the
//     extension recommends;
//   - otherwise (the budget ran out, or the handler called [Request.StartTask]) the
//     call becomes a task: the state is created durably in the TaskStore, the client
//     gets CreateTaskResult, and the handler goes on running; input it asks for from
//     then on goes to the client through tasks/get inputRequests and comes back
//     through tasks/update; Progress sets the task's statusMessage; tasks/cancel
//     ends its context.
//
// For a client without the extension the same handler runs as any other tool's:
// the call blocks, reports progress if asked, and is cancelled by
// notifications/cancelled or a closed connection. A task-required tool refuses such a
// client with -32021.

// ExtensionTasks is the identifier of the Tasks extension, under which clients and
// servers declare it in their capabilities' extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// TaskSupport says whether calls of a tool may run as tasks of the Tasks extension.
type TaskSupport string

const (
	// TaskForbidden (the zero value): the tool always answers inline.
	TaskForbidden TaskSupport = ""
	// TaskOptional: a call from a client that declared the extension becomes a task
	// when it outlasts ServerOptions.TaskBudget (or calls Request.StartTask); other
	// clients wait for the result as usual.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: the tool is served only as a task. A client that did not declare
	// the extension gets -32021 before the handler runs; one that did always gets a
	// task, even when the work ended within the budget (input asked before is still
	// asked inline, with input_required).
	TaskRequired TaskSupport = "required"
)

// Defaults of the ServerOptions that shape tasks.
const (
	DefaultTaskBudget       = 250 * time.Millisecond
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = time.Second
	DefaultTaskLease        = 15 * time.Second
)

// HasExtension reports whether the client declared the named extension.
func (c *ClientCapabilities) HasExtension(name string) bool {
	if c == nil {
		return false
	}
	v, ok := c.Extensions[name]
	return ok && string(v) != "null"
}

// tasksExtensionCaps is the extensions member of the server's capabilities when it
// has tools that may run as tasks; shared by every request, never changed.
var tasksExtensionCaps = map[string]any{ExtensionTasks: struct{}{}}

// missingTasksExtension is the -32021 error naming the extension.
func missingTasksExtension(format string, args ...any) *Error {
	return &Error{Code: CodeMissingClientCapability, Message: fmt.Sprintf(format, args...),
		Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: map[string]any{}}}}}
}

// taskManager runs the tasks of one server and answers the tasks/* methods.
type taskManager struct {
	s        *Server
	store    TaskStore
	instance string // this process, as TaskState.Instance names it
	budget   time.Duration
	ttl      time.Duration
	poll     time.Duration
	lease    time.Duration
	// capable is set once a tool that may run as a task was registered: from then
	// on the server advertises the extension.
	capable atomic.Bool

	mu         sync.Mutex
	running    map[string]*taskRun // tasks whose work runs in this process
	subscribed bool
	stopSub    context.CancelFunc
}

func newTaskManager(s *Server, o *ServerOptions) *taskManager {
	m := &taskManager{s: s, store: o.TaskStore, instance: rand.Text()[:12], budget: o.TaskBudget, ttl: o.TaskTTL,
		poll: o.TaskPollInterval, lease: o.TaskLease, running: map[string]*taskRun{}}
	if m.store == nil {
		m.store = NewMemoryTaskStore(0)
	}
	if m.budget <= 0 {
		m.budget = DefaultTaskBudget
	}
	if m.ttl <= 0 {
		m.ttl = DefaultTaskTTL
	}
	if m.poll <= 0 {
		m.poll = DefaultTaskPollInterval
	}
	if m.lease <= 0 {
		m.lease = DefaultTaskLease
	}
	return m
}

// subscribe starts listening for task changes published by any instance, once.
func (m *taskManager) subscribe() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.subscribed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.store.Subscribe(ctx, m.changed); err != nil {
		cancel()
		m.s.logger.Warn("cannot subscribe to task changes; tasks are read on each poll only", "error", err)
		return
	}
	m.subscribed, m.stopSub = true, cancel
}

// changed is told that a task changed somewhere: its work, if it runs here, and the
// listen streams that asked for it look at it again.
func (m *taskManager) changed(id string) {
	m.mu.Lock()
	run := m.running[id]
	m.mu.Unlock()
	if run != nil {
		run.wake()
	}
	if m.s.hub.wantsTask(id) {
		go m.notify(id)
	}
}

// notify sends the task's current state to the listen streams that asked for it.
func (m *taskManager) notify(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := m.store.Get(ctx, id)
	if err != nil {
		return
	}
	st = m.settleLost(ctx, st)
	m.s.hub.publishTask(id, m.notice(st))
}

// newTaskID returns an unguessable task id (128 random bits).
func newTaskID() string { return rand.Text() }

// touch records a change of the task's state: it was updated now and is kept for
// the TTL from now on.
func (m *taskManager) touch(t *TaskState) {
	now := time.Now()
	t.UpdatedAt = now
	if exp := now.Add(m.ttl); exp.After(t.ExpiresAt) {
		t.ExpiresAt = exp
	}
}

// create stores a new task for req's call of tool, durably, before it is announced.
func (m *taskManager) create(ctx context.Context, req *Request, tool string, fill func(*TaskState)) (*TaskState, error) {
	now := time.Now()
	st := &TaskState{ID: newTaskID(), OwnerIssuer: req.Issuer, OwnerSubject: req.Subject, Tool: tool, Status: TaskWorking,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(m.ttl), PollIntervalMs: m.poll.Milliseconds(),
		Instance: m.instance, LeaseUntil: now.Add(m.lease)}
	if fill != nil {
		fill(st)
	}
	if err := m.store.Create(context.WithoutCancel(ctx), st); err != nil {
		return nil, err
	}
	return st, nil
}

// toolOutcome is what a tool's handler returned.
type toolOutcome struct {
	res *CallToolResult
	err error
}

// call runs a tool for a client that declared the extension: inline while the work
// fits the budget, as a task after (see the comment at the top of this file).
func (m *taskManager) call(ctx context.Context, req *Request, rt *registeredTool, args json.RawMessage) (any, error) {
	// Only what the inline path needs is made here; the rest when it becomes a task
	// (claimTask, begin), so a call answered inline costs little more than any other.
	run := &taskRun{m: m, req: req, tool: rt.tool.Name, started: make(chan struct{})}
	req.task = run
	// The work outlives the request once it is a task, so its context ends only
	// when the request ends before that, the task is cancelled, or the TTL runs out
	// (armed in begin).
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	run.wctx, run.cancelFn = wctx, cancel
	done := make(chan toolOutcome, 1)
	go func() { done <- m.s.runToolSafe(wctx, req, rt, args) }()
	budget := time.NewTimer(m.budget)
	defer budget.Stop()
	select {
	case o := <-done:
		inline := errors.Is(o.err, ErrInputRequired) || ctx.Err() != nil ||
			(rt.tool.TaskSupport != TaskRequired && !run.inTask()) || !run.claimTask()
		if inline {
			cancel()
			return inlineAnswer(o)
		}
		// A task-required tool (or one that called StartTask) whose work is already
		// done: a task that has ended.
		st, err := m.create(ctx, req, rt.tool.Name, func(st *TaskState) { m.settle(st, run, o) })
		cancel()
		if err != nil {
			return nil, m.storeError("create the task", err)
		}
		run.begin(st, false)
		return m.createResult(st), nil
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	case <-budget.C:
	case <-run.started:
	}
	if !run.claimTask() {
		// The handler asked for input inline (input_required) meanwhile: it is
		// answered inline.
		select {
		case o := <-done:
			cancel()
			return inlineAnswer(o)
		case <-ctx.Done():
			cancel()
			return nil, ctx.Err()
		}
	}
	st, err := m.create(ctx, req, rt.tool.Name, nil)
	if err != nil {
		run.abort(err)
		cancel()
		return nil, m.storeError("create the task", err)
	}
	m.subscribe()
	run.begin(st, true)
	go run.finish(done)
	return m.createResult(st), nil
}

func inlineAnswer(o toolOutcome) (any, error) {
	if o.err != nil {
		return nil, o.err
	}
	return o.res, nil
}

func (m *taskManager) storeError(what string, err error) *Error {
	m.s.logger.Error("task store failed", "op", what, "error", err)
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: cannot %s: the task store failed: %v", what, err)}
}

// runToolSafe runs a tool's handler on a goroutine of its own, with the panic
// recovery [Server.run] gives handlers on the request's.
func (s *Server) runToolSafe(ctx context.Context, req *Request, rt *registeredTool, args json.RawMessage) (o toolOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o = toolOutcome{err: s.handlerPanicked(req, p)}
		}
	}()
	res, err := s.runTool(ctx, req, rt, args)
	return toolOutcome{res: res, err: err}
}

// settle records how the work of a task ended.
func (m *taskManager) settle(st *TaskState, run *taskRun, o toolOutcome) {
	st.InputRequests, st.InputResponses = nil, nil
	reason := run.stopReason()
	var rpcErr *Error
	switch {
	case o.err == nil:
		res := m.s.decorate(run.req, o.res).(*CallToolResult)
		b, err := appendCallToolResult(nil, res)
		if err != nil {
			st.Status, st.Error = TaskFailed, &Error{Code: CodeInternalError, Message: "internal error: the result could not be encoded: " + err.Error()}
			st.StatusMessage = st.Error.Message
			break
		}
		st.Status, st.Result, st.StatusMessage = TaskCompleted, b, ""
	case reason == stopCancelled:
		st.Status, st.StatusMessage = TaskCancelled, "cancelled at the client's request"
	case reason == stopShutdown:
		st.Status, st.Error = TaskFailed, &Error{Code: CodeInternalError, Message: "the server instance running this task shut down before it finished; call the tool again"}
		st.StatusMessage = st.Error.Message
	case reason == stopTTL:
		st.Status, st.Error = TaskFailed, &Error{Code: CodeInternalError, Message: fmt.Sprintf("the task did not finish within %s, this server's limit for a task", m.ttl)}
		st.StatusMessage = st.Error.Message
	case errors.As(o.err, &rpcErr):
		st.Status, st.Error, st.StatusMessage = TaskFailed, rpcErr, rpcErr.Message
	case errors.Is(o.err, ErrInputRequired):
		st.Status, st.Error = TaskFailed, &Error{Code: CodeInternalError, Message: "internal error: the handler returned ErrInputRequired without asking for input"}
		st.StatusMessage = st.Error.Message
	default:
		st.Status, st.Error = TaskFailed, &Error{Code: CodeInternalError, Message: "internal error: " + o.err.Error()}
		st.StatusMessage = st.Error.Message
	}
}

// settleLost reports a task whose work was lost as failed: it is not finished, and
// the instance running it has not renewed its lease (it stopped).
func (m *taskManager) settleLost(ctx context.Context, st *TaskState) *TaskState {
	now := time.Now()
	if st.Terminal() || st.LeaseUntil.IsZero() || now.Before(st.LeaseUntil) {
		return st
	}
	m.mu.Lock()
	_, here := m.running[st.ID]
	m.mu.Unlock()
	if here {
		return st // running in this process: its lease is being renewed
	}
	lost := &Error{Code: CodeInternalError, Message: fmt.Sprintf(
		"the server instance running this task stopped before it finished (no sign of it since %s); its work is lost: call the tool again",
		st.LeaseUntil.Add(-m.lease).UTC().Format(time.RFC3339))}
	nst, err := m.store.Update(context.WithoutCancel(ctx), st.ID, func(t *TaskState) error {
		if t.Terminal() || time.Now().Before(t.LeaseUntil) {
			return ErrTaskUnchanged
		}
		t.Status, t.Error, t.StatusMessage = TaskFailed, lost, lost.Message
		t.InputRequests, t.InputResponses = nil, nil
		m.touch(t)
		return nil
	})
	if err != nil {
		return st
	}
	if nst.Status == TaskFailed && nst.Error != nil && nst.Error.Message == lost.Message {
		_ = m.store.Publish(context.WithoutCancel(ctx), st.ID)
	}
	return nst
}

// Stop reasons of a task's work (taskRun.stop).
const (
	stopNone = iota
	stopCancelled
	stopShutdown
	stopEnded // ended elsewhere (failed as lost, or expired)
	stopTTL   // ran for the whole TTL
)

// Phases of a call that may become a task.
const (
	phaseInline    = iota // running within the budget
	phaseCommitted        // asked for input inline: answered inline (input_required)
	phaseTask             // a task
)

// taskRun is one tool call that may become, or has become, a task whose work runs in
// this process.
type taskRun struct {
	m    *taskManager
	req  *Request
	tool string

	wctx     context.Context
	cancelFn context.CancelFunc

	started   chan struct{} // closed by StartTask
	startOnce sync.Once
	ready     chan struct{} // closed once the task is created (or could not be)
	finished  chan struct{} // closed when the work has ended
	recorded  chan struct{} // closed when its outcome is stored
	poked     chan struct{} // the store said the task changed
	// progressed says Progress left a message to write.
	progressed chan struct{}

	mu        sync.Mutex
	phase     int
	id        string
	createErr error
	last      *TaskState    // the task as last read
	changedCh chan struct{} // closed and replaced when last changes
	stop      int
	progress  string
	ttl       *time.Timer // ends the work when the TTL runs out
}

// claimTask makes the call a task unless it is committed to answering inline, and
// reports whether it is one.
func (r *taskRun) claimTask() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == phaseInline {
		r.phase = phaseTask
		r.ready = make(chan struct{})
		r.finished, r.recorded = make(chan struct{}), make(chan struct{})
		r.poked, r.progressed, r.changedCh = make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	}
	return r.phase == phaseTask
}

// askInTask reports whether input is asked through the task (true) or inline with
// input_required (false, and the call stays inline from then on).
func (r *taskRun) askInTask() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == phaseInline {
		r.phase = phaseCommitted
	}
	return r.phase == phaseTask
}

func (r *taskRun) inTask() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase == phaseTask
}

// begin records the created task and, when its work still runs, starts watching it.
func (r *taskRun) begin(st *TaskState, running bool) {
	r.mu.Lock()
	r.id, r.last = st.ID, st
	ready := r.ready
	r.mu.Unlock()
	close(ready)
	if !running {
		return
	}
	r.ttl = time.AfterFunc(r.m.ttl, func() { r.cancelWork(stopTTL) })
	r.m.mu.Lock()
	r.m.running[st.ID] = r
	r.m.mu.Unlock()
	go r.watch()
}

// abort records that the task could not be created.
func (r *taskRun) abort(err error) {
	r.mu.Lock()
	r.createErr = err
	ready := r.ready
	r.mu.Unlock()
	close(ready)
}

func (r *taskRun) stopReason() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// cancelWork ends the work's context, remembering why (the first reason wins).
func (r *taskRun) cancelWork(reason int) {
	r.mu.Lock()
	if r.stop == stopNone {
		r.stop = reason
	}
	r.mu.Unlock()
	r.cancelFn()
}

func (r *taskRun) wake() {
	select {
	case r.poked <- struct{}{}:
	default:
	}
}

// setLast records the task as just read and wakes whoever waits on it.
func (r *taskRun) setLast(st *TaskState) {
	r.mu.Lock()
	r.last = st
	close(r.changedCh)
	r.changedCh = make(chan struct{})
	r.mu.Unlock()
}

// watch follows the task while its work runs: it renews the lease, notices a
// cancellation or an answer to input made through any instance, and writes progress.
func (r *taskRun) watch() {
	m := r.m
	renew := time.NewTicker(max(m.lease/3, 10*time.Millisecond))
	defer renew.Stop()
	const progressEvery = 500 * time.Millisecond
	var lastProgress time.Time
	var progressTimer <-chan time.Time
	ctx := context.Background()
	for {
		select {
		case <-r.finished:
			return
		case <-r.poked:
			r.refresh(ctx, false)
		case <-renew.C:
			r.refresh(ctx, true)
		case <-r.progressed:
			if wait := progressEvery - time.Since(lastProgress); wait > 0 {
				if progressTimer == nil {
					progressTimer = time.After(wait)
				}
				continue
			}
			r.writeProgress(ctx)
			lastProgress = time.Now()
		case <-progressTimer:
			progressTimer = nil
			r.writeProgress(ctx)
			lastProgress = time.Now()
		}
	}
}

// refresh reads the task (renewing its lease when renew is set) and acts on what
// changed: a task ended elsewhere (cancelled, failed as lost, expired) stops the work.
func (r *taskRun) refresh(ctx context.Context, renew bool) {
	m := r.m
	var st *TaskState
	var err error
	if renew {
		st, err = m.store.Update(ctx, r.id, func(t *TaskState) error {
			if t.Terminal() {
				return ErrTaskUnchanged
			}
			now := time.Now()
			t.LeaseUntil, t.Instance = now.Add(m.lease), m.instance
			if exp := now.Add(m.ttl); exp.After(t.ExpiresAt) {
				t.ExpiresAt = exp
			}
			return nil
		})
	} else {
		st, err = m.store.Get(ctx, r.id)
	}
	switch {
	case errors.Is(err, ErrTaskNotFound):
		r.cancelWork(stopEnded)
		return
	case err != nil:
		m.s.logger.Warn("cannot read task state", "task", r.id, "error", err)
		return
	}
	r.setLast(st)
	if st.Terminal() {
		reason := stopEnded
		if st.Status == TaskCancelled {
			reason = stopCancelled
		}
		r.cancelWork(reason)
	}
}

// finish waits for the work to end and records its outcome, unless the task already
// ended (cancelled meanwhile: the status stays cancelled).
func (r *taskRun) finish(done <-chan toolOutcome) {
	o := <-done
	m := r.m
	r.ttl.Stop()
	close(r.finished)
	defer close(r.recorded)
	m.mu.Lock()
	delete(m.running, r.id)
	m.mu.Unlock()
	ctx := context.Background()
	_, err := m.store.Update(ctx, r.id, func(t *TaskState) error {
		if t.Terminal() {
			return ErrTaskUnchanged
		}
		m.settle(t, r, o)
		m.touch(t)
		return nil
	})
	r.cancelFn()
	if err != nil {
		if !errors.Is(err, ErrTaskNotFound) {
			m.s.logger.Error("cannot record the outcome of a task", "task", r.id, "error", err)
		}
		return
	}
	_ = m.store.Publish(ctx, r.id)
}

// input asks the client for every request of reqs through the task (tasks/get
// inputRequests) and waits until tasks/update, sent to any instance, answered them all.
func (r *taskRun) input(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	r.mu.Lock()
	ready := r.ready
	r.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.mu.Lock()
	id, cerr := r.id, r.createErr
	r.mu.Unlock()
	if cerr != nil {
		return nil, cerr
	}
	m := r.m
	enc := make(map[string]json.RawMessage, len(reqs))
	for k, ir := range reqs {
		b, err := json.Marshal(ir)
		if err != nil {
			return nil, fmt.Errorf("encoding input request %q: %w", k, err)
		}
		enc[k] = b
	}
	st, err := m.store.Update(ctx, id, func(t *TaskState) error {
		if t.Terminal() {
			return ErrTaskUnchanged
		}
		if t.InputRequests == nil {
			t.InputRequests = map[string]json.RawMessage{}
		}
		for k, b := range enc {
			if _, answered := t.InputResponses[k]; answered {
				continue
			}
			t.InputRequests[k] = b
			if !slices.Contains(t.Asked, k) {
				t.Asked = append(t.Asked, k)
			}
		}
		if len(t.InputRequests) > 0 {
			t.Status, t.StatusMessage = TaskInputRequired, "waiting for the client's answer"
		}
		m.touch(t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.setLast(st)
	_ = m.store.Publish(ctx, id)
	for {
		r.mu.Lock()
		last, ch := r.last, r.changedCh
		r.mu.Unlock()
		if last.Terminal() {
			if err := r.wctx.Err(); err != nil {
				return nil, err
			}
			return nil, context.Canceled
		}
		if got := answered(last, reqs); got != nil {
			r.taken(ctx, got)
			return got, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// answered returns the answers to every key of reqs, or nil while one is missing.
func answered(st *TaskState, reqs map[string]InputRequest) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(reqs))
	for k := range reqs {
		v, ok := st.InputResponses[k]
		if !ok {
			return nil
		}
		out[k] = v
	}
	return out
}

// taken drops answers the work has taken from the task's state.
func (r *taskRun) taken(ctx context.Context, got map[string]json.RawMessage) {
	_, _ = r.m.store.Update(ctx, r.id, func(t *TaskState) error {
		for k := range got {
			delete(t.InputResponses, k)
		}
		return nil
	})
}

// setProgress leaves a progress message for the watch loop to write (at most two a
// second reach the store).
func (r *taskRun) setProgress(msg string) {
	r.mu.Lock()
	r.progress = msg
	ch := r.progressed
	r.mu.Unlock()
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (r *taskRun) writeProgress(ctx context.Context) {
	r.mu.Lock()
	msg := r.progress
	r.mu.Unlock()
	m := r.m
	st, err := m.store.Update(ctx, r.id, func(t *TaskState) error {
		if t.Terminal() || t.Status == TaskInputRequired || t.StatusMessage == msg {
			return ErrTaskUnchanged
		}
		t.StatusMessage = msg
		m.touch(t)
		return nil
	})
	if err == nil && st.StatusMessage == msg {
		_ = m.store.Publish(ctx, r.id)
	}
}

// StartTask turns the call into a task now, without waiting for
// ServerOptions.TaskBudget to run out, when it can be one: a call of a tool with
// TaskSupport from a client that declared the extension, which has not asked for
// input inline. It reports whether the call is (now) a task. Input the handler asks
// for afterwards goes through the task. For other calls it does nothing, so a handler
// calls it unconditionally where it knows the rest will take long.
func (r *Request) StartTask() bool {
	t := r.task
	if t == nil || !t.claimTask() {
		return false
	}
	t.startOnce.Do(func() { close(t.started) })
	return true
}

// TaskID returns the id of the task the call runs as, or "" when it is not a task
// (yet).
func (r *Request) TaskID() string {
	t := r.task
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.id
}

// Wire shapes.

// taskFields are the fields of the extension's Task, besides ttlMs.
type taskFields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// taskResult is CreateTaskResult (resultType "task") or GetTaskResult ("complete",
// with the status's fields inlined).
type taskResult struct {
	resultBase
	taskFields
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *Error                     `json:"error,omitempty"`
}

// taskNotice is the params of notifications/tasks: a DetailedTask.
type taskNotice struct {
	taskFields
	TTLMs         *int64                     `json:"ttlMs"`
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *Error                     `json:"error,omitempty"`
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func (m *taskManager) fields(st *TaskState) (taskFields, *int64) {
	ttl := st.ExpiresAt.Sub(st.CreatedAt).Milliseconds()
	if ttl < 1 {
		ttl = 1
	}
	return taskFields{TaskID: st.ID, Status: st.Status, StatusMessage: st.StatusMessage, CreatedAt: isoTime(st.CreatedAt),
		LastUpdatedAt: isoTime(st.UpdatedAt), PollIntervalMs: st.PollIntervalMs}, &ttl
}

func (m *taskManager) createResult(st *TaskState) *taskResult {
	f, ttl := m.fields(st)
	return &taskResult{resultBase: resultBase{ResultType: "task", TTLMs: ttl}, taskFields: f}
}

// detailed is the tasks/get answer: the task with its status's fields.
func (m *taskManager) detailed(st *TaskState) *taskResult {
	f, ttl := m.fields(st)
	r := &taskResult{resultBase: resultBase{ResultType: "complete", TTLMs: ttl}, taskFields: f}
	switch st.Status {
	case TaskInputRequired:
		r.InputRequests = st.InputRequests
		if r.InputRequests == nil {
			r.InputRequests = map[string]json.RawMessage{}
		}
	case TaskCompleted:
		r.Result = st.Result
	case TaskFailed:
		r.Error = st.Error
		if r.Error == nil {
			r.Error = &Error{Code: CodeInternalError, Message: "internal error"}
		}
	}
	return r
}

// notice is the notifications/tasks params for a task, as a map for the listeners.
func (m *taskManager) notice(st *TaskState) map[string]any {
	d := m.detailed(st)
	n := taskNotice{taskFields: d.taskFields, TTLMs: d.TTLMs, InputRequests: d.InputRequests, Result: d.Result, Error: d.Error}
	b, err := json.Marshal(n)
	if err != nil {
		return nil
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// The tasks/* methods.

// taskParam checks that the client declared the extension and returns the taskId.
func (m *taskManager) taskParam(req *Request) (callParams, *Error) {
	if !req.Meta.ClientCapabilities.HasExtension(ExtensionTasks) {
		return callParams{}, missingTasksExtension("%s needs the %s extension, which the client did not declare in this request's capabilities", req.Method, ExtensionTasks)
	}
	p, err := req.call()
	if err != nil {
		return p, InvalidParams("invalid %s params: %s", req.Method, describeJSONError(err))
	}
	if p.TaskID == "" {
		return p, InvalidParams(`%s needs "taskId": the id a tools/call answered with`, req.Method)
	}
	return p, nil
}

func unknownTask(id string) *Error {
	return InvalidParams("Failed to retrieve task: unknown task %q: it does not exist, it has expired, or it belongs to another caller", id)
}

// find returns the caller's task, settling a task whose work was lost.
func (m *taskManager) find(ctx context.Context, req *Request, id string) (*TaskState, error) {
	st, err := m.store.Get(ctx, id)
	if errors.Is(err, ErrTaskNotFound) {
		return nil, unknownTask(id)
	}
	if err != nil {
		return nil, m.storeError("read the task", err)
	}
	if !ownedBy(st, req) {
		return nil, unknownTask(id)
	}
	return m.settleLost(ctx, st), nil
}

func ownedBy(st *TaskState, req *Request) bool {
	return st.OwnerIssuer == req.Issuer && st.OwnerSubject == req.Subject
}

func (s *Server) getTask(ctx context.Context, req *Request) (any, error) {
	p, perr := s.tasks.taskParam(req)
	if perr != nil {
		return nil, perr
	}
	st, err := s.tasks.find(ctx, req, p.TaskID)
	if err != nil {
		return nil, err
	}
	return s.tasks.detailed(st), nil
}

func (s *Server) updateTask(ctx context.Context, req *Request) (any, error) {
	m := s.tasks
	p, perr := m.taskParam(req)
	if perr != nil {
		return nil, perr
	}
	if p.InputResponses == nil {
		return nil, InvalidParams(`tasks/update needs "inputResponses": an object of answers keyed as the task's inputRequests`)
	}
	if _, err := m.find(ctx, req, p.TaskID); err != nil {
		return nil, err
	}
	moved := false
	_, err := m.store.Update(ctx, p.TaskID, func(t *TaskState) error {
		if !ownedBy(t, req) || t.Terminal() {
			return ErrTaskUnchanged
		}
		changed := false
		for k, v := range p.InputResponses {
			if _, outstanding := t.InputRequests[k]; !outstanding {
				continue // never asked, already answered, or superseded: ignored
			}
			delete(t.InputRequests, k)
			if t.InputResponses == nil {
				t.InputResponses = map[string]json.RawMessage{}
			}
			t.InputResponses[k] = v
			changed = true
		}
		if !changed {
			return ErrTaskUnchanged
		}
		if len(t.InputRequests) == 0 && t.Status == TaskInputRequired {
			t.Status, t.StatusMessage = TaskWorking, ""
		}
		m.touch(t)
		moved = true
		return nil
	})
	if errors.Is(err, ErrTaskNotFound) {
		return nil, unknownTask(p.TaskID)
	}
	if err != nil {
		return nil, m.storeError("update the task", err)
	}
	if moved {
		_ = m.store.Publish(ctx, p.TaskID)
	}
	return &emptyResult{}, nil
}

func (s *Server) cancelTask(ctx context.Context, req *Request) (any, error) {
	m := s.tasks
	p, perr := m.taskParam(req)
	if perr != nil {
		return nil, perr
	}
	if _, err := m.find(ctx, req, p.TaskID); err != nil {
		return nil, err
	}
	cancelled := false
	_, err := m.store.Update(ctx, p.TaskID, func(t *TaskState) error {
		if !ownedBy(t, req) || t.Terminal() {
			return ErrTaskUnchanged // cancelling an ended task is acknowledged all the same
		}
		t.Status, t.StatusMessage = TaskCancelled, "cancelled at the client's request"
		t.InputRequests, t.InputResponses = nil, nil
		m.touch(t)
		cancelled = true
		return nil
	})
	if errors.Is(err, ErrTaskNotFound) {
		return nil, unknownTask(p.TaskID)
	}
	if err != nil {
		return nil, m.storeError("cancel the task", err)
	}
	if cancelled {
		m.mu.Lock()
		run := m.running[p.TaskID]
		m.mu.Unlock()
		if run != nil {
			run.cancelWork(stopCancelled) // running here: stop it now
		}
		_ = m.store.Publish(ctx, p.TaskID)
	}
	return &emptyResult{}, nil
}

// visibleTasks returns the ids among ids of tasks the caller may see.
func (m *taskManager) visibleTasks(ctx context.Context, req *Request, ids []string) []string {
	var out []string
	for _, id := range ids {
		if slices.Contains(out, id) {
			continue
		}
		if st, err := m.store.Get(ctx, id); err == nil && ownedBy(st, req) {
			out = append(out, id)
		}
	}
	return out
}

// StopTasks ends the tasks whose work runs in this process, for a graceful
// shutdown: it waits until ctx ends for them to finish, then reports those still
// running as failed (the instance shut down) and cancels their work. serve.Serve
// calls it after the HTTP server stopped; without it, other instances report such
// tasks failed once their lease (ServerOptions.TaskLease) runs out.
func (s *Server) StopTasks(ctx context.Context) {
	m := s.tasks
	for {
		m.mu.Lock()
		n := len(m.running)
		runs := make([]*taskRun, 0, n)
		for _, r := range m.running {
			runs = append(runs, r)
		}
		m.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			for _, r := range runs {
				r.cancelWork(stopShutdown)
			}
			wait, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			for _, r := range runs {
				select {
				case <-r.recorded:
				case <-wait.Done():
				}
			}
			cancel()
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	m.mu.Lock()
	if m.stopSub != nil {
		m.stopSub()
		m.subscribed, m.stopSub = false, nil
	}
	m.mu.Unlock()
}
