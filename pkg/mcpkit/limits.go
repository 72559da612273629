package mcpkit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// callerLimiter bounds how many requests one caller has in flight. A request over the
// limit is refused at once (429 with Retry-After), never queued: a queue would hold
// memory and connections for a caller who is already using its share. Entries exist
// only while a caller has requests in flight, so the map cannot grow without bound.
type callerLimiter struct {
	limit int

	mu       sync.Mutex
	inflight map[string]int
}

func newCallerLimiter(limit int) *callerLimiter {
	if limit <= 0 {
		return nil
	}
	return &callerLimiter{limit: limit, inflight: map[string]int{}}
}

// acquire takes a slot for key; false when the caller is at its limit.
func (l *callerLimiter) acquire(key string) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inflight[key] >= l.limit {
		return false
	}
	l.inflight[key]++
	return true
}

func (l *callerLimiter) release(key string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.inflight[key] - 1; n > 0 {
		l.inflight[key] = n
	} else {
		delete(l.inflight, key)
	}
}

// callerKey identifies the caller a limit applies to: the token's subject qualified
// by its issuer when the request is authenticated (the static token "alice" and a
// JWT's "alice" have separate limits), otherwise the peer address (behind a proxy
// that is the proxy: enable authorization to limit per caller there). The quoted
// issuer ends unambiguously, so no (issuer, subject) pair shares another's key.
func callerKey(r *http.Request, c caller) string {
	if c.authed {
		return "sub:" + strconv.Quote(c.issuer) + c.subject
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}

// tooMany answers 429 with Retry-After. Clients are expected to retry after the
// given seconds; nothing of the request was done.
func tooMany(w http.ResponseWriter, id ID, format string, args ...any) {
	w.Header().Set("Retry-After", strconv.Itoa(1))
	writeJSONError(w, http.StatusTooManyRequests, id, Errorf(CodeInvalidRequest, format+"; retry after 1 second", args...))
}

// DefaultMaxStreamsPerCaller is the default of [HTTPOptions].MaxStreamsPerCaller:
// enough for a client listening from several windows or agents at once, and a
// small part of the default MaxStreams (1000), so that one caller, or a few, cannot
// take every stream.
const DefaultMaxStreamsPerCaller = 16

// streamLimiter bounds the long-lived streams of one instance (subscriptions/listen
// and legacy GET streams): how many are open at once.
type streamLimiter struct {
	max int

	mu   sync.Mutex
	open int
}

func (l *streamLimiter) acquire() bool {
	if l.max <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		return false
	}
	l.open++
	return true
}

func (l *streamLimiter) release() {
	if l.max <= 0 {
		return
	}
	l.mu.Lock()
	l.open--
	l.mu.Unlock()
}

// listenEndKey carries, in a listen request's context, the channel that ends the
// stream gracefully when its lifetime is over.
type listenEndKey struct{}

// withListenLifetime arranges for a listen stream to end with its completion result
// after d (d <= 0: no limit). The client is expected to listen again, which also
// spreads long-lived streams across instances as they scale.
func withListenLifetime(ctx context.Context, d time.Duration) (context.Context, func()) {
	if d <= 0 {
		return ctx, func() {}
	}
	t := time.NewTimer(d)
	return context.WithValue(ctx, listenEndKey{}, t.C), func() { t.Stop() }
}

// listenEnd is the lifetime channel of a listen request, or nil (never fires).
func listenEnd(ctx context.Context) <-chan time.Time {
	ch, _ := ctx.Value(listenEndKey{}).(<-chan time.Time)
	return ch
}

// toolDeadline runs a tools/call with the server's per-call limit. A handler that
// honours its context stops when the limit fires, and the call answers isError with
// a message the model can act on instead of an internal error.
func (s *Server) toolDeadline(ctx context.Context, req *Request, run func(context.Context) (any, error)) (any, error) {
	d := s.opts.ToolTimeout
	if d <= 0 {
		return run(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	res, err := run(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() == context.DeadlineExceeded {
		return ToolError(fmt.Sprintf("the tool did not finish within %s, this server's limit for one call; try again with a narrower request (fewer items, a smaller range)", d)), nil
	}
	return res, err
}
