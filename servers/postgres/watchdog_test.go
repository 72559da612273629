package postgres

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCallContextDeadline: a call's context ends at its deadline (statement timeout
// plus the grace period, kept by the watchdog rather than a timer per call) with
// context.DeadlineExceeded, and one cancelled before then reports context.Canceled.
// Under a parent that ends sooner, Deadline reports the parent's.
func TestCallContextDeadline(t *testing.T) {
	db, err := prepare("postgres://nobody@/nowhere?host=/nonexistent-dir", Options{StatementTimeout: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	ctx, cancel := db.callContext(context.Background())
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || d.Sub(start) < 2*time.Second {
		t.Errorf("deadline %v, %v; want about 2s from now", d, ok)
	}
	parent, cancelParent := context.WithTimeout(context.Background(), time.Second)
	defer cancelParent()
	within, cancelWithin := db.callContext(parent)
	defer cancelWithin()
	pd, _ := parent.Deadline()
	if d, _ := within.Deadline(); !d.Equal(pd) {
		t.Errorf("deadline %v under a parent ending sooner; want the parent's", d)
	}
	early, cancelEarly := db.callContext(context.Background())
	cancelEarly()
	if !errors.Is(early.Err(), context.Canceled) {
		t.Errorf("a call cancelled early: %v", early.Err())
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context never ended")
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("ended after %s, before its deadline", took)
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err() = %v, want context.DeadlineExceeded", ctx.Err())
	}
}
