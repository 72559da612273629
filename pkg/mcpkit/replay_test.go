package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestMemoryReplayGuard: a nonce is fresh once until it expires; expired nonces are
// forgotten; a full guard refuses new nonces rather than forget live ones.
func TestMemoryReplayGuard(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	g := NewReplayGuard(3).(*memoryGuard)
	g.now = func() time.Time { return now }
	use := func(n string, ttl time.Duration) (bool, error) { return g.Use(ctx, n, now.Add(ttl)) }
	if ok, err := use("a", time.Minute); !ok || err != nil {
		t.Fatalf("first use of a: %v %v", ok, err)
	}
	if ok, _ := use("a", time.Minute); ok {
		t.Fatal("second use of a was fresh")
	}
	use("b", 2*time.Minute)
	use("c", 3*time.Minute)
	if _, err := use("d", time.Minute); !errors.Is(err, ErrReplayGuardFull) {
		t.Fatalf("fourth nonce in a guard of 3: %v; want ErrReplayGuardFull", err)
	}
	now = now.Add(90 * time.Second) // a has expired
	if ok, err := use("d", time.Minute); !ok || err != nil {
		t.Fatalf("d after a expired: %v %v", ok, err)
	}
	if ok, _ := use("b", time.Minute); ok {
		t.Error("b is still live but was fresh")
	}
	now = now.Add(time.Hour)
	for i := range 3 {
		if ok, err := use(fmt.Sprint("n", i), time.Minute); !ok || err != nil {
			t.Fatalf("after everything expired: %v %v", ok, err)
		}
	}
	if len(g.used) != 3 {
		t.Errorf("%d nonces remembered; want 3", len(g.used))
	}
}

// TestRequestStateHasNonce: every state carries a fresh nonce, and a state without one
// is refused.
func TestRequestStateHasNonce(t *testing.T) {
	a, b := newNonce(), newNonce()
	if len(a) != 22 || a == b {
		t.Errorf("nonces %q %q", a, b)
	}
}
