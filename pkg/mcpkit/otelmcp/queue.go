package otelmcp

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queueProcessor is the span processor between a finished span and the exporter:
// a bounded queue that one goroutine drains in batches. A span ending while the
// queue is full is dropped and counted, never waited for, so a slow or unreachable
// collector costs a call nothing. (The SDK's batch processor drops the same way but
// keeps its count to itself; the operator needs it in a log line.)
type queueProcessor struct {
	exp      sdktrace.SpanExporter
	queue    chan sdktrace.ReadOnlySpan
	batch    int
	interval time.Duration
	logger   *slog.Logger

	dropped, failed atomic.Int64

	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func newQueueProcessor(exp sdktrace.SpanExporter, size, batch int, interval time.Duration, logger *slog.Logger) *queueProcessor {
	if size <= 0 {
		size = 2048
	}
	if batch <= 0 || batch > size {
		batch = min(512, size)
	}
	if interval <= 0 {
		interval = 2 * time.Second
	}
	q := &queueProcessor{exp: exp, queue: make(chan sdktrace.ReadOnlySpan, size), batch: batch, interval: interval,
		logger: logger, flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go q.run()
	return q
}

func (q *queueProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it when the queue is full.
func (q *queueProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case <-q.stop:
		return
	default:
	}
	select {
	case q.queue <- s:
	default:
		q.dropped.Add(1)
	}
}

// exportTimeout bounds one export, so that Shutdown and ForceFlush end.
const exportTimeout = 10 * time.Second

func (q *queueProcessor) run() {
	defer close(q.done)
	tick := time.NewTicker(q.interval)
	defer tick.Stop()
	buf := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	var reported struct{ dropped, failed int64 }
	var lastReport time.Time
	export := func() {
		if len(buf) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
			if err := q.exp.ExportSpans(ctx, buf); err != nil {
				q.failed.Add(int64(len(buf)))
			}
			cancel()
			clear(buf)
			buf = buf[:0]
		}
		d, f := q.dropped.Load(), q.failed.Load()
		if (d != reported.dropped || f != reported.failed) && time.Since(lastReport) >= time.Minute {
			q.logger.Warn("OpenTelemetry spans dropped", "queue_full", d, "export_failed", f)
			reported.dropped, reported.failed, lastReport = d, f, time.Now()
		}
	}
	drain := func() {
		for {
			select {
			case s := <-q.queue:
				if buf = append(buf, s); len(buf) == q.batch {
					export()
				}
			default:
				export()
				return
			}
		}
	}
	for {
		select {
		case s := <-q.queue:
			if buf = append(buf, s); len(buf) == q.batch {
				export()
			}
		case <-tick.C:
			export()
		case ack := <-q.flush:
			drain()
			close(ack)
		case <-q.stop:
			drain()
			if d, f := q.dropped.Load(), q.failed.Load(); d != reported.dropped || f != reported.failed {
				q.logger.Warn("OpenTelemetry spans dropped", "queue_full", d, "export_failed", f)
			}
			return
		}
	}
}

// ForceFlush exports every queued span before returning (or when ctx ends).
func (q *queueProcessor) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flush <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops the exporter, within ctx.
func (q *queueProcessor) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exp.Shutdown(ctx)
}

// limiter lets one event through per period and counts the ones it held back.
type limiter struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func (l *limiter) allow(period time.Duration) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && time.Since(l.last) < period {
		l.suppressed++
		return 0, false
	}
	n := l.suppressed
	l.last, l.suppressed = time.Now(), 0
	return n, true
}
