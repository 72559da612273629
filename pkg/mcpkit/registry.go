package mcpkit

import (
	"slices"
	"sync"
	"sync/atomic"
)

// registry holds what a server exposes of one kind (tools, resources, resource
// templates, prompts) by key, in registration order: lists are deterministic on every
// instance, and the server's author decides what a model reads first.
//
// Every kind follows one notification rule: once the server is serving, a call that
// really changes the registry (an entry added or replaced, at least one removed)
// notifies listening clients once, after the change is visible; a call that changes
// nothing notifies no one.
type registry[T any] struct {
	mu    sync.RWMutex
	byKey map[string]T
	order []string

	live    *atomic.Bool // the server's: set once serving has begun
	changed func()       // publishes the kind's list_changed notification
}

func newRegistry[T any](live *atomic.Bool, changed func()) *registry[T] {
	return &registry[T]{byKey: map[string]T{}, live: live, changed: changed}
}

// put adds v under key, replacing an entry of the same key in its place.
func (r *registry[T]) put(key string, v T) {
	r.mu.Lock()
	if _, ok := r.byKey[key]; !ok {
		r.order = append(r.order, key)
	}
	r.byKey[key] = v
	r.mu.Unlock()
	r.notify(1)
}

// remove deletes the entries of keys and reports how many there were.
func (r *registry[T]) remove(keys ...string) int {
	r.mu.Lock()
	n := 0
	for _, k := range keys {
		if _, ok := r.byKey[k]; ok {
			delete(r.byKey, k)
			r.order = slices.DeleteFunc(r.order, func(o string) bool { return o == k })
			n++
		}
	}
	r.mu.Unlock()
	r.notify(n)
	return n
}

func (r *registry[T]) notify(changes int) {
	if changes > 0 && r.live.Load() && r.changed != nil {
		r.changed()
	}
}

// get returns the entry of key.
func (r *registry[T]) get(key string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.byKey[key]
	return v, ok
}

// all returns every entry in registration order.
func (r *registry[T]) all() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, r.byKey[k])
	}
	return out
}

// len is the number of entries.
func (r *registry[T]) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byKey)
}
