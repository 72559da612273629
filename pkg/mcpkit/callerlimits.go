package mcpkit

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// SharedLimits keeps callers' request counts in a store every instance behind one
// load balancer reaches ([HTTPOptions].SharedLimits), so that a caller's concurrency
// and rate limits hold for the deployment, not once per instance: with three
// replicas a caller limited to 64 concurrent requests gets 64, not 192.
//
// Listen streams are not shared: MaxStreams and MaxStreamsPerCaller stay per
// instance (a stream is a connection to one instance, whose memory and file
// descriptors it holds; a shared count would have to be kept for the stream's whole
// life and is lost with the instance that holds it).
type SharedLimits interface {
	// Acquire counts one request of the caller key against l. When the request is
	// over a limit it returns the refusing limit (LimitConcurrent or LimitRate) and
	// a nil release; otherwise "" and a release that ends the request's in-flight
	// count (called once, when the request is answered). An error means the store
	// cannot be reached: the instance then applies its own limits to the request.
	Acquire(ctx context.Context, key string, l CallerLimit) (release func(), refused string, err error)
}

// CallerLimit is what one caller may do: at most Concurrent requests in flight (0: no
// limit) and at most Rate requests per Window (0: no limit).
type CallerLimit struct {
	Concurrent int
	Rate       int
	Window     time.Duration
}

// The limits [SharedLimits].Acquire names when it refuses a request.
const (
	LimitConcurrent = "concurrent"
	LimitRate       = "rate"
)

// RateWindow is the window of [HTTPOptions].MaxRatePerCaller: a caller may send that
// many requests per minute (a fixed window, so up to twice as many across a window's
// boundary).
const RateWindow = time.Minute

// callerGate admits a caller's request under its concurrency and rate limits, through
// the shared store when one is set and this instance's own counters otherwise (also
// while the shared store cannot be reached: limits degrade to per instance rather
// than refuse every request, since a request a limit admits changes nothing that a
// replay could repeat).
type callerGate struct {
	limit  CallerLimit
	shared SharedLimits
	calls  *callerLimiter
	rate   *rateLimiter
	s      *Server // for its logger

	// downUntil (unix nanoseconds) skips the shared store for a moment after it
	// failed, so that an unreachable store costs one attempt per second, not one per
	// request.
	downUntil atomic.Int64
	lastWarn  atomic.Int64
}

// sharedRetry is how long the gate uses its own counters after the shared store
// failed; sharedTimeout bounds one question to it.
const (
	sharedRetry   = time.Second
	sharedTimeout = 2 * time.Second
)

func newCallerGate(o *HTTPOptions, s *Server) *callerGate {
	g := &callerGate{
		limit:  CallerLimit{Concurrent: max(o.MaxConcurrentPerCaller, 0), Rate: max(o.MaxRatePerCaller, 0), Window: RateWindow},
		shared: o.SharedLimits,
		calls:  newCallerLimiter(o.MaxConcurrentPerCaller),
		rate:   newRateLimiter(o.MaxRatePerCaller, RateWindow),
		s:      s,
	}
	return g
}

// admit takes the request's place under the caller's limits, or answers 429 and
// reports false.
func (g *callerGate) admit(w http.ResponseWriter, r *http.Request, key string, id ID) (release func(), ok bool) {
	if g.limit.Concurrent == 0 && g.limit.Rate == 0 {
		return func() {}, true
	}
	if g.shared != nil && time.Now().UnixNano() >= g.downUntil.Load() {
		// Not the request's context: a client that hangs up must not count as the
		// store failing (which would switch this instance to its own counters).
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), sharedTimeout)
		rel, refused, err := g.shared.Acquire(ctx, key, g.limit)
		cancel()
		if err == nil {
			if refused != "" {
				g.refuse(w, id, refused)
				return nil, false
			}
			return rel, true
		}
		now := time.Now()
		g.downUntil.Store(now.Add(sharedRetry).UnixNano())
		if last := g.lastWarn.Load(); now.UnixNano()-last > int64(30*time.Second) && g.lastWarn.CompareAndSwap(last, now.UnixNano()) {
			g.s.Logger().Warn("the shared caller limits cannot be reached: this instance applies its own limits until they answer again", "err", err)
		}
	}
	if !g.rate.allow(key) {
		g.refuse(w, id, LimitRate)
		return nil, false
	}
	if !g.calls.acquire(key) {
		g.refuse(w, id, LimitConcurrent)
		return nil, false
	}
	return func() { g.calls.release(key) }, true
}

func (g *callerGate) refuse(w http.ResponseWriter, id ID, limit string) {
	if limit == LimitRate {
		tooMany(w, id, "too many requests from this caller (the limit is %d per %s)", g.limit.Rate, windowName(g.limit.Window))
		return
	}
	tooMany(w, id, "too many concurrent requests from this caller (the limit is %d)", g.limit.Concurrent)
}

func windowName(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}

// rateLimiter counts each caller's requests in fixed windows. Counts of a past window
// are dropped when the next begins, and at most maxRateCallers callers are counted
// in one window (beyond that a new caller goes uncounted until the next window,
// rather than the map growing without bound under a flood of addresses).
type rateLimiter struct {
	limit  int
	window time.Duration

	mu     sync.Mutex
	start  time.Time
	counts map[string]int
}

const maxRateCallers = 1 << 16

func newRateLimiter(limit int, window time.Duration) *rateLimiter {
	if limit <= 0 {
		return nil
	}
	return &rateLimiter{limit: limit, window: window, counts: map[string]int{}}
}

func (l *rateLimiter) allow(key string) bool {
	if l == nil {
		return true
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= l.window {
		l.start = now.Truncate(l.window)
		clear(l.counts)
	}
	n, ok := l.counts[key]
	if !ok && len(l.counts) >= maxRateCallers {
		return true
	}
	if n >= l.limit {
		return false
	}
	l.counts[key] = n + 1
	return true
}
