package mcpkit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ReplayGuard remembers which requestStates were already used, so a finished round of
// a multi-round-trip request cannot be sent again to run its handler again: a
// confirmed write is done once, not once per copy of the state.
//
// Every requestState carries a random nonce. When a client presents a state whose
// signature, expiry and binding verify, mcpkit calls Use with its nonce before the
// handler runs; a nonce used before refuses the request. The state a round returns
// (input_required) has a nonce of its own, so each round's state is good for exactly
// one retry.
//
// The default guard (NewReplayGuard) is one process's memory: behind a load balancer
// each instance refuses the states it has seen, and a state replayed to another
// instance within its lifetime is refused only by what the handler binds its
// confirmation to (see Request.Confirm). Give every instance one shared guard (a
// store they all reach) to refuse such replays everywhere: package
// taskstore/redisstore's Store is one (serve's --replay-store, by default the
// --task-store Redis).
type ReplayGuard interface {
	// Use records nonce as used until expires and reports whether it was unused. It
	// must be atomic: of two concurrent calls with one nonce, one reports true. An
	// error (the store cannot be reached, or is full) refuses the request.
	Use(ctx context.Context, nonce string, expires time.Time) (fresh bool, err error)
}

// DefaultReplayGuardSize is how many used states the default guard remembers at once.
const DefaultReplayGuardSize = 100_000

// NewReplayGuard returns an in-memory guard remembering up to max nonces (each until
// its state expires; DefaultReplayGuardSize if max < 1). When max unexpired nonces are
// remembered it refuses new ones rather than forget one that could still be replayed.
func NewReplayGuard(max int) ReplayGuard {
	if max < 1 {
		max = DefaultReplayGuardSize
	}
	return &memoryGuard{max: max, used: map[string]time.Time{}}
}

// ErrReplayGuardFull is the error of a guard that remembers as many states as it may.
var ErrReplayGuardFull = errors.New("too many requestStates were used within their lifetime for this server to remember another; try again in a minute")

// memoryGuard keeps nonces in a map and, in order of use, in a queue it expires from
// the front. States of one server share one lifetime, so the queue is (nearly) in
// order of expiry; an entry past its time is dropped when it reaches the front.
type memoryGuard struct {
	mu    sync.Mutex
	max   int
	used  map[string]time.Time
	queue []guardEntry
	head  int
	now   func() time.Time // for tests
}

type guardEntry struct {
	nonce   string
	expires time.Time
}

func (g *memoryGuard) Use(_ context.Context, nonce string, expires time.Time) (bool, error) {
	now := time.Now()
	if g.now != nil {
		now = g.now()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.expire(now)
	if t, ok := g.used[nonce]; ok && now.Before(t) {
		return false, nil
	}
	if len(g.used) >= g.max {
		g.sweep(now)
		if len(g.used) >= g.max {
			return false, ErrReplayGuardFull
		}
	}
	g.used[nonce] = expires
	g.queue = append(g.queue, guardEntry{nonce, expires})
	return true, nil
}

// expire drops expired entries from the front of the queue.
func (g *memoryGuard) expire(now time.Time) {
	for g.head < len(g.queue) && !now.Before(g.queue[g.head].expires) {
		e := g.queue[g.head]
		if t, ok := g.used[e.nonce]; ok && t.Equal(e.expires) {
			delete(g.used, e.nonce)
		}
		g.queue[g.head] = guardEntry{}
		g.head++
	}
	if g.head > 1024 && g.head*2 > len(g.queue) {
		g.queue = append([]guardEntry(nil), g.queue[g.head:]...)
		g.head = 0
	}
}

// sweep drops every expired entry, wherever it is in the queue (states of different
// lifetimes in one guard).
func (g *memoryGuard) sweep(now time.Time) {
	kept := g.queue[:0]
	for _, e := range g.queue[g.head:] {
		if now.Before(e.expires) {
			kept = append(kept, e)
		} else if t, ok := g.used[e.nonce]; ok && t.Equal(e.expires) {
			delete(g.used, e.nonce)
		}
	}
	clear(g.queue[len(kept):])
	g.queue, g.head = kept, 0
}
