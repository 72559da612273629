package mcpkit

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// DefaultProgressEvery is how often ReportProgress reports at most by default.
const DefaultProgressEvery = 100 * time.Millisecond

type progressKey struct{}

// progressMeter reports one request's progress at a bounded rate.
type progressMeter struct {
	req   *Request
	every time.Duration

	mu   sync.Mutex
	last time.Time
}

// WithProgress returns ctx carrying req's progress reporting, for the code below a
// handler that sees only a context (a file walk, a query loop): ReportProgress(ctx,
// …) then reports through [Request.Progress] at most once per every
// (DefaultProgressEvery when every <= 0). When nobody listens (no progress token,
// and the call is not one that may run as a task) ctx is returned as is and
// ReportProgress costs nothing.
func WithProgress(ctx context.Context, req *Request, every time.Duration) context.Context {
	if req == nil || (len(req.Meta.ProgressToken) == 0 && req.task == nil) {
		return ctx
	}
	if every <= 0 {
		every = DefaultProgressEvery
	}
	return context.WithValue(ctx, progressKey{}, &progressMeter{req: req, every: every})
}

// ReportProgress reports that done of total units of work are done (total 0:
// unknown), through the request WithProgress put in ctx. Reports closer together
// than the meter's interval are dropped, except the one that reaches total.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if m := dueMeter(ctx, done, total); m != nil {
		m.req.Progress(done, total, message)
	}
}

// ReportProgressFunc is ReportProgress with a message made only for a report that is
// sent, for a loop that reports on every step: a dropped report then costs no
// formatting.
func ReportProgressFunc(ctx context.Context, done, total float64, message func() string) {
	if m := dueMeter(ctx, done, total); m != nil {
		m.req.Progress(done, total, message())
	}
}

// dueMeter returns ctx's progress meter when a report of done of total is due now
// (and counts it as sent), or nil.
func dueMeter(ctx context.Context, done, total float64) *progressMeter {
	m, _ := ctx.Value(progressKey{}).(*progressMeter)
	if m == nil {
		return nil
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.last) < m.every && !(total > 0 && done >= total) {
		return nil
	}
	m.last = now
	return m
}

// ProgressReported reports whether ctx carries a progress meter (someone listens).
func ProgressReported(ctx context.Context) bool {
	_, ok := ctx.Value(progressKey{}).(*progressMeter)
	return ok
}

// ReportElapsed reports, every interval while work whose extent is unknown runs (a
// database statement, a remote search), how long it has run: progress is the seconds
// so far (increasing, no total), the message "<what> running for N s". It goes to a
// client that asked for progress, or becomes the statusMessage of a call running as
// a task; when nobody listens it starts nothing. Call the returned stop when the work
// ends. The reports also end with ctx.
func ReportElapsed(ctx context.Context, req *Request, every time.Duration, what string) (stop func()) {
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	ctx = WithProgress(ctx, req, every/2) // the ticker paces the reports
	if !ProgressReported(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				el := time.Since(start).Seconds()
				ReportProgress(ctx, el, 0, what+" running for "+strconv.FormatFloat(el, 'f', 1, 64)+" s")
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
