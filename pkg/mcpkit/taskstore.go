package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// TaskStore keeps the state of the tasks of the Tasks extension ([ExtensionTasks])
// where every instance serving the same clients can reach it. The default
// ([NewMemoryTaskStore]) is this process's memory: right for stdio and for one HTTP
// instance. Instances behind one load balancer share one store (package
// taskstore/redisstore), so that a task created through one instance is read, updated
// and cancelled through any other, and outlives the instance that runs its work.
//
// mcpkit reads and writes whole [TaskState] values; a store only keeps them by ID,
// drops each after its ExpiresAt, and tells every instance which task changed.
type TaskStore interface {
	// Create stores a new task. When it returns, Get for the task must find it on
	// every instance (the extension forbids announcing a task before that).
	Create(ctx context.Context, t *TaskState) error
	// Get returns the task, or an error wrapping ErrTaskNotFound when it is unknown
	// or expired.
	Get(ctx context.Context, id string) (*TaskState, error)
	// Update applies fn to the task's current state and stores the result,
	// atomically: of two concurrent updates of one task neither is lost (a store
	// may run fn again on a fresh copy when another update came first). fn returning
	// ErrTaskUnchanged stores nothing and Update returns the state as read; any other
	// error of fn is returned. A task that is unknown or expired is ErrTaskNotFound.
	Update(ctx context.Context, id string, fn func(t *TaskState) error) (*TaskState, error)
	// Publish tells every instance subscribed (this one included) that task id changed.
	Publish(ctx context.Context, id string) error
	// Subscribe calls fn with the id of every task published on any instance, from
	// when Subscribe returns until ctx ends. fn must not block; ids may be lost (a
	// dropped connection): mcpkit also reads the tasks it waits on now and then.
	Subscribe(ctx context.Context, fn func(id string)) error
}

// ErrTaskNotFound is the error of a TaskStore for a task it does not have (never
// created, or expired).
var ErrTaskNotFound = errors.New("task not found")

// ErrTaskUnchanged is returned by an Update function that decided to change nothing.
var ErrTaskUnchanged = errors.New("task unchanged")

// Task statuses (the extension's TaskStatus).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskState is one task as a [TaskStore] keeps it. Stores encode it as JSON and need
// not look inside beyond ID and ExpiresAt.
type TaskState struct {
	ID string `json:"id"`
	// OwnerIssuer and OwnerSubject are the caller who created the task (empty
	// without authorization): no other caller can see it.
	OwnerIssuer  string `json:"ownerIssuer,omitempty"`
	OwnerSubject string `json:"ownerSubject,omitempty"`
	// Tool is the tool called.
	Tool          string    `json:"tool"`
	Status        string    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// ExpiresAt is when the store may drop the task.
	ExpiresAt time.Time `json:"expiresAt"`
	// PollIntervalMs is the polling interval suggested to clients.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// InputRequests are the requests to the client still waiting for an answer, by
	// key (each an InputRequest); InputResponses the answers tasks/update brought
	// that the work has not taken yet.
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	// Asked lists every input key the task ever used: keys are unique over a
	// task's lifetime.
	Asked []string `json:"asked,omitempty"`
	// Result is the encoded result of a completed task; Error the JSON-RPC error of
	// a failed one.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// Instance names the process running the task's work, which renews LeaseUntil
	// while it runs; a task not finished when its lease has run out has lost its
	// work (the instance stopped) and is reported failed.
	Instance   string    `json:"instance,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil"`
}

// Terminal reports whether the task has ended (completed, failed or cancelled).
func (t *TaskState) Terminal() bool {
	switch t.Status {
	case TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// NewMemoryTaskStore returns a TaskStore in this process's memory, holding at most
// max tasks at once (DefaultMaxTasks if max < 1); Create fails beyond that until
// some expire.
func NewMemoryTaskStore(max int) TaskStore {
	if max < 1 {
		max = DefaultMaxTasks
	}
	return &memoryTaskStore{max: max, tasks: map[string]memoryTask{}}
}

// DefaultMaxTasks is how many tasks the default in-memory store keeps at once.
const DefaultMaxTasks = 10_000

// ErrTooManyTasks is the error of the memory store when it is full.
var ErrTooManyTasks = errors.New("too many tasks are kept on this server; try again once some have finished and expired")

type memoryTask struct {
	data    []byte // the TaskState as JSON: callers never share a value with the store
	expires time.Time
}

type memoryTaskStore struct {
	max int

	mu        sync.Mutex
	tasks     map[string]memoryTask
	lastSweep time.Time
	subs      map[*memorySub]struct{}
}

type memorySub struct{ fn func(string) }

func (m *memoryTaskStore) Create(_ context.Context, t *TaskState) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if len(m.tasks) >= m.max || now.Sub(m.lastSweep) > time.Minute {
		m.lastSweep = now
		for id, e := range m.tasks {
			if now.After(e.expires) {
				delete(m.tasks, id)
			}
		}
	}
	if len(m.tasks) >= m.max {
		return ErrTooManyTasks
	}
	if _, dup := m.tasks[t.ID]; dup {
		return errors.New("task id already in use")
	}
	m.tasks[t.ID] = memoryTask{data: b, expires: t.ExpiresAt}
	return nil
}

func (m *memoryTaskStore) Get(_ context.Context, id string) (*TaskState, error) {
	m.mu.Lock()
	e, ok := m.tasks[id]
	if ok && time.Now().After(e.expires) {
		delete(m.tasks, id)
		ok = false
	}
	m.mu.Unlock()
	if !ok {
		return nil, ErrTaskNotFound
	}
	var t TaskState
	if err := json.Unmarshal(e.data, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

func (m *memoryTaskStore) Update(_ context.Context, id string, fn func(*TaskState) error) (*TaskState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.tasks[id]
	if !ok || time.Now().After(e.expires) {
		delete(m.tasks, id)
		return nil, ErrTaskNotFound
	}
	var t TaskState
	if err := json.Unmarshal(e.data, &t); err != nil {
		return nil, err
	}
	if err := fn(&t); err != nil {
		if errors.Is(err, ErrTaskUnchanged) {
			var fresh TaskState
			_ = json.Unmarshal(e.data, &fresh)
			return &fresh, nil
		}
		return nil, err
	}
	b, err := json.Marshal(&t)
	if err != nil {
		return nil, err
	}
	m.tasks[id] = memoryTask{data: b, expires: t.ExpiresAt}
	return &t, nil
}

func (m *memoryTaskStore) Publish(_ context.Context, id string) error {
	m.mu.Lock()
	subs := make([]*memorySub, 0, len(m.subs))
	for s := range m.subs {
		subs = append(subs, s)
	}
	m.mu.Unlock()
	for _, s := range subs {
		s.fn(id)
	}
	return nil
}

func (m *memoryTaskStore) Subscribe(ctx context.Context, fn func(string)) error {
	s := &memorySub{fn: fn}
	m.mu.Lock()
	if m.subs == nil {
		m.subs = map[*memorySub]struct{}{}
	}
	m.subs[s] = struct{}{}
	m.mu.Unlock()
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		delete(m.subs, s)
		m.mu.Unlock()
	})
	return nil
}
