package mcpkit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// The watch must hand a long request's reading on in every state it can be in: just
// started (parked), ticking after recent requests, backed off, and parked again after
// an idle spell; and never hand a short request on. No assertion is about how fast:
// each wait is bounded generously and only guards against a hang.
func TestInlineWatchHandsOverLongRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var handOffs atomic.Int32
	w := newInlineWatchTimed(ctx, func() { handOffs.Add(1) }, time.Millisecond, 4*time.Millisecond, 30*time.Millisecond)

	// long runs a job until the watch hands it over, and reports that the reading
	// goroutine must then stop reading.
	long := func(state string) {
		t.Helper()
		before := handOffs.Load()
		deadline := time.Now().Add(10 * time.Second)
		goOn := w.runInline(func() {
			for handOffs.Load() == before {
				if time.Now().After(deadline) {
					t.Fatalf("%s: a long request was never handed over", state)
				}
				time.Sleep(100 * time.Microsecond)
			}
		})
		if goOn {
			t.Errorf("%s: the reading goroutine was told to go on reading after the watch handed over", state)
		}
	}
	long("fresh watch (parked)")
	for range 5 {
		if !w.runInline(func() {}) {
			t.Fatal("a short request was handed over")
		}
	}
	long("ticking")
	time.Sleep(10 * time.Millisecond)
	long("backed off")
	for deadline := time.Now().Add(10 * time.Second); !w.parked.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch never parked while idle")
		}
	}
	long("parked after idling")
	if n := handOffs.Load(); n != 4 {
		t.Errorf("%d hand-offs, want exactly 4 (one per long request)", n)
	}
}
