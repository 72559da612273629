package redisstore_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
)

// Of many clients (instances) presenting one nonce at once, exactly one sees it
// fresh; the nonce is forgotten when its state expires; an unreachable Redis refuses
// with an error that says so.
func TestReplayGuard(t *testing.T) {
	srv := redistest.StartServer(t)
	a, b := open(t, srv.URL).(*redisstore.Store), open(t, srv.URL).(*redisstore.Store)
	ctx := context.Background()
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := a
			if i%2 == 1 {
				g = b
			}
			ok, err := g.Use(ctx, "n1", time.Now().Add(time.Minute))
			if err != nil {
				t.Error(err)
			}
			if ok {
				fresh.Add(1)
			}
		}()
	}
	wg.Wait()
	if fresh.Load() != 1 {
		t.Fatalf("%d of 20 concurrent uses of one nonce were fresh, want 1", fresh.Load())
	}
	if ok, err := b.Use(ctx, "n2", time.Now().Add(50*time.Millisecond)); !ok || err != nil {
		t.Fatalf("a new nonce: %v %v", ok, err)
	}
	time.Sleep(100 * time.Millisecond) // past the state's expiry, which Redis keeps
	if ok, err := a.Use(ctx, "n2", time.Now().Add(time.Minute)); !ok || err != nil {
		t.Fatalf("a nonce past its state's expiry is still remembered: %v %v", ok, err)
	}

	srv.Stop()
	ok, err := a.Use(ctx, "n3", time.Now().Add(time.Minute))
	if ok || err == nil || !strings.Contains(err.Error(), "cannot be reached") || !strings.Contains(err.Error(), "writes and tasks are refused") {
		t.Fatalf("with Redis stopped: %v %v, want a refusal saying Redis cannot be reached", ok, err)
	}
	if strings.Contains(err.Error(), "redis://") {
		t.Errorf("the error shows the store's URL: %v", err)
	}
	srv.Restart()
	if ok, err := a.Use(ctx, "n3", time.Now().Add(time.Minute)); !ok || err != nil {
		t.Fatalf("with Redis back: %v %v", ok, err)
	}
}

// Two instances share one caller's concurrency and rate counts; callers do not
// share; a release frees the slot.
func TestSharedLimits(t *testing.T) {
	url := redistest.Start(t)
	a, b := open(t, url).(*redisstore.Store), open(t, url).(*redisstore.Store)
	ctx := context.Background()

	conc := mcpkit.CallerLimit{Concurrent: 2}
	r1, refused, err := a.Acquire(ctx, "ip:alice", conc)
	if err != nil || refused != "" {
		t.Fatal(refused, err)
	}
	r2, refused, err := b.Acquire(ctx, "ip:alice", conc)
	if err != nil || refused != "" {
		t.Fatal(refused, err)
	}
	if _, refused, err := a.Acquire(ctx, "ip:alice", conc); refused != mcpkit.LimitConcurrent || err != nil {
		t.Fatalf("third in flight across two instances: %q %v, want %q", refused, err, mcpkit.LimitConcurrent)
	}
	if rb, refused, _ := b.Acquire(ctx, "ip:bob", conc); refused != "" {
		t.Fatalf("another caller was refused: %q", refused)
	} else {
		rb()
	}
	r1()
	r3, refused, err := b.Acquire(ctx, "ip:alice", conc)
	if err != nil || refused != "" {
		t.Fatalf("after a release: %q %v", refused, err)
	}
	r2()
	r3()

	rate := mcpkit.CallerLimit{Rate: 3, Window: time.Minute}
	for i := range 3 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if _, refused, err := s.Acquire(ctx, "sub:carol", rate); refused != "" || err != nil {
			t.Fatalf("request %d within the rate: %q %v", i+1, refused, err)
		}
	}
	if _, refused, _ := b.Acquire(ctx, "sub:carol", rate); refused != mcpkit.LimitRate {
		t.Fatalf("fourth request in the window on either instance: %q, want %q", refused, mcpkit.LimitRate)
	}
	short := mcpkit.CallerLimit{Rate: 1, Window: 50 * time.Millisecond}
	if _, refused, _ := a.Acquire(ctx, "sub:dave", short); refused != "" {
		t.Fatal(refused)
	}
	if _, refused, _ := a.Acquire(ctx, "sub:dave", short); refused != mcpkit.LimitRate {
		t.Fatalf("over the rate: %q", refused)
	}
	time.Sleep(100 * time.Millisecond)
	if _, refused, _ := b.Acquire(ctx, "sub:dave", short); refused != "" {
		t.Fatalf("in the next window: %q", refused)
	}
}
