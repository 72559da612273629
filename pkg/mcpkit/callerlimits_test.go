package mcpkit_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// brokenLimits is a shared store that cannot be reached.
type brokenLimits struct{ calls atomic.Int32 }

func (b *brokenLimits) Acquire(context.Context, string, mcpkit.CallerLimit) (func(), string, error) {
	b.calls.Add(1)
	return nil, "", errors.New("connection refused")
}

// refusingLimits is a shared store that says the caller is over its rate (the count
// another instance made).
type refusingLimits struct{}

func (refusingLimits) Acquire(context.Context, string, mcpkit.CallerLimit) (func(), string, error) {
	return nil, mcpkit.LimitRate, nil
}

func TestCallerRateLimit(t *testing.T) {
	add := map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}
	tests := []struct {
		name   string
		shared mcpkit.SharedLimits
		within int // requests admitted before the first 429
	}{
		{"this instance's counters", nil, 3},
		{"the shared store's verdict", refusingLimits{}, 0},
		{"this instance's counters while the shared store cannot be reached", &brokenLimits{}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpoint, _, _ := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxRatePerCaller: 3, SharedLimits: tt.shared}})
			c := remotetest.NewClient(t, endpoint)
			for i := range tt.within {
				if r := c.Do("tools/call", add); r.Status != http.StatusOK {
					t.Fatalf("request %d within the rate: status %d %s", i+1, r.Status, r.Body)
				}
			}
			over := c.Do("tools/call", add)
			if over.Status != http.StatusTooManyRequests || over.Header.Get("Retry-After") == "" {
				t.Fatalf("over the rate: status %d, Retry-After %q, want 429 with Retry-After", over.Status, over.Header.Get("Retry-After"))
			}
			if over.Err == nil || !strings.Contains(over.Err.Message, "the limit is 3 per minute") {
				t.Errorf("429 without a clear reason: %s", over.Body)
			}
		})
	}
	// An unreachable store is asked once, not on every request (sharedRetry).
	b := &brokenLimits{}
	endpoint, _, _ := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxRatePerCaller: 100, SharedLimits: b}})
	c := remotetest.NewClient(t, endpoint)
	for range 20 {
		if r := c.Do("tools/call", add); r.Status != http.StatusOK {
			t.Fatalf("status %d", r.Status)
		}
	}
	if n := b.calls.Load(); n >= 20 {
		t.Errorf("the unreachable store was asked %d times for 20 requests, want fewer (once a second)", n)
	}
}
