package mcpkit

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// lineWriter writes one message per line; writes from concurrent requests never
// interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

func (l *lineWriter) write(msg []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(append(l.buf[:0], msg...), '\n')
	err := l.writeLine(l.buf)
	if cap(l.buf) > 64<<10 {
		l.buf = nil // do not pin a large buffer after one big message
	}
	return err
}

// writeOwned writes msg, which the caller owns and will not use again, as one line: the
// newline is appended to msg itself (responses are encoded with room for it), which
// saves copying the whole message.
func (l *lineWriter) writeOwned(msg []byte) error {
	if cap(msg) == len(msg) {
		return l.write(msg)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLine(append(msg, '\n'))
}

// writeLine writes one whole line with l.mu held; after a failed write nothing more is
// written.
func (l *lineWriter) writeLine(line []byte) error {
	if l.err == nil {
		_, l.err = l.w.Write(line)
	}
	return l.err
}

// inlineBudget is how long a request may run on the reading goroutine before another
// goroutine takes over reading. The watch checks once per budget, so a request is
// handed over between one and two budgets after it started.
const inlineBudget = 500 * time.Microsecond

// maxListensPerConn bounds listen streams on one stdio connection.
const maxListensPerConn = 32

// ServeStdio serves one client speaking newline-delimited JSON-RPC on r and w (stdin
// and stdout) until r reaches EOF or ctx ends. Only protocol messages are written to w.
// Requests run concurrently; notifications/cancelled cancels one. The connection is
// one session (see lifecycle.go): stdio only frames lines and decides which goroutine
// reads next.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	s.markLive()
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := &stdioConn{s: s, ctx: ctx, out: &lineWriter{w: w}, br: bufio.NewReaderSize(r, 64<<10),
		sem: make(chan struct{}, s.opts.MaxConcurrent), readErr: make(chan error, 1)}
	c.sess = newSession(s, "")
	c.sess.maxListens = maxListensPerConn
	c.sess.setUnsolicited(c.out)
	defer s.closeSession(c.sess)
	c.watch = newInlineWatch(ctx, func() { go c.readLoop() })
	go c.readLoop()

	select {
	case <-ctx.Done():
		s.drain(&c.wg)
		return nil
	case err := <-c.readErr:
		// Reading has stopped; requests already read still get their answers. A
		// client that writes its requests and closes stdin at once (a pipeline, a
		// script) is owed every answer: only what still runs after stdinGrace is
		// cancelled, and drain then bounds the exit as before.
		// Listen streams are not waited for: they run until cancelled.
		waitGroupWithin(&c.calls, stdinGrace)
		cancelAll()
		s.drain(&c.wg)
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// stdioConn is one stdio connection: its session, its output, and the reading.
type stdioConn struct {
	s       *Server
	ctx     context.Context
	sess    *session
	out     *lineWriter
	br      *bufio.Reader
	watch   *inlineWatch
	wg      sync.WaitGroup // every request running
	calls   sync.WaitGroup // the requests that answer once (all but listen streams)
	sem     chan struct{}  // bounds requests running at once; listen streams do not count
	readErr chan error
}

// readLoop reads messages until the goroutine running it must answer a request that
// outlasts its inline budget.
//
// Reading follows the leader/follower pattern: the goroutine that reads a request
// answers it itself, so nothing stands between reading a request and running it (a
// hand-off to another goroutine costs a thread wake-up, which is most of a round trip
// over pipes). A request still running after inlineBudget passes the reading on to a
// follower, so a slow call never holds up cancellations or other requests. Only one
// goroutine reads at a time.
func (c *stdioConn) readLoop() {
	limit := c.s.opts.MaxMessageBytes
	for {
		line, over, err := readLine(c.br, limit)
		if c.ctx.Err() != nil {
			return
		}
		var job func()
		if over != nil {
			e := tooLarge(limit)
			c.s.logRefused("stdio", "", 0, e)
			_ = c.out.write(encodeResponse(oversizedID(over.head, over.tail), nil, e))
		} else if len(line) > 0 {
			job = c.accept(line)
		}
		if err != nil {
			if job != nil {
				go job()
			}
			c.readErr <- err
			return
		}
		if job == nil {
			continue
		}
		if c.br.Buffered() > 0 {
			// More messages are already waiting (a client pipelining requests): let a
			// follower read them now rather than after this job.
			go c.readLoop()
			job()
			return
		}
		if !c.watch.runInline(job) {
			return // the watch handed reading to a follower while job ran
		}
	}
}

// accept decodes one line on the reading goroutine and gives it to the session.
// Notifications and responses are acted on at once; a request comes back as the job
// that answers it.
func (c *stdioConn) accept(line []byte) (job func()) {
	m, derr := decodeMessage(line)
	if derr != nil {
		if m == nil || !m.isNotification() {
			var id ID
			method := ""
			if m != nil {
				id, method = m.ID, m.Method
			}
			c.s.logRefused("stdio", method, 0, derr)
			_ = c.out.write(encodeResponse(id, nil, derr))
		}
		return nil
	}
	if c.sess.receive(m) {
		return nil
	}
	ctx, refusal := c.sess.begin(c.ctx, m)
	if refusal != nil {
		c.s.logRefused("stdio", m.Method, 0, refusal)
		_ = c.out.write(encodeResponse(m.ID, nil, refusal))
		return nil
	}
	counted := m.Method != "subscriptions/listen"
	if counted {
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			c.sess.end(m)
			return nil
		}
	}
	c.wg.Add(1)
	if counted {
		c.calls.Add(1)
	}
	return func() {
		defer c.wg.Done()
		rep := c.s.handle(ctx, incoming{msg: m, sess: c.sess, out: c.out})
		c.sess.end(m)
		if counted {
			<-c.sem
		}
		if rep.msg != nil {
			_ = c.out.writeOwned(rep.msg)
			releaseResponse(rep.msg)
		}
		if counted {
			c.calls.Done() // after the answer is written: waiting for calls waits for answers
		}
	}
}

// stdinGrace is how long requests already read may go on running after stdin ends
// before they are cancelled. With drain's bound after it, a closed stdin still ends
// the process within about three seconds however long a call would run.
const stdinGrace = time.Second

// waitGroupWithin waits for wg up to d and reports whether it finished.
func waitGroupWithin(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// drain waits a moment for in-flight handlers to notice cancellation, so a closed
// stdin ends the process promptly without cutting a response in half.
func (s *Server) drain(wg *sync.WaitGroup) {
	if !waitGroupWithin(wg, 2*time.Second) {
		s.logger.Warn("exiting with requests still running after stdin closed")
	}
}

// readLine reads one newline-terminated line of at most limit bytes. A longer line is
// consumed, so the stream stays in sync, and reported as over with its first and last
// bytes kept (to answer it under its own id).
func readLine(br *bufio.Reader, limit int) (line []byte, over *oversized, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		switch {
		case over != nil:
			over.add(chunk)
		case len(line)+len(chunk) > limit:
			over = &oversized{}
			over.add(line)
			over.add(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			return line, over, err
		}
	}
}

// oversized keeps the two ends of a line too long to read whole.
type oversized struct{ head, tail []byte }

func (o *oversized) add(b []byte) {
	if n := min(oversizedKeep-len(o.head), len(b)); n > 0 {
		o.head = append(o.head, b[:n]...)
	}
	if len(b) >= oversizedKeep {
		o.tail = append(o.tail[:0], b[len(b)-oversizedKeep:]...)
		return
	}
	o.tail = append(o.tail, b...)
	if len(o.tail) > oversizedKeep {
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-oversizedKeep:]...)
	}
}

// inlineWatch hands reading on to a follower when a request has run on the reading
// goroutine for longer than inlineBudget. One goroutine per connection watches, instead
// of a timer per request: arming a short timer wakes the runtime's network poller, a
// thread wake-up that cost about a third of a whole round trip over pipes. The watch
// ticks every budget while requests arrive, backs off to idleTick between them (so a
// request arriving after a pause needs no wake-up either), and parks after parkAfter
// without any, when only the next request wakes it.
//
// The watch's clock is a timerfd read through the network poller (watchTimer, on
// Linux), not the runtime's timers. With a timer, every tick had to be run by the
// scheduler: a tick falling due while the reading goroutine sat in read(2) on stdin
// (most of the time) made the runtime wake threads and move Ps about, so that the
// reader, coming back from read(2) with the next request, often had to find a P
// again. On an idle machine that costs little; with every core busy each of those
// wake-ups waits for a CPU, and measured side by side (BenchmarkStdioLatency,
// schedstat per process) the ticking added 0.5 to 1.5 thread wake-ups to each call and
// moved the p50 from 2× the bare echo to up to 3–4×. The hand-offs themselves were
// never the cost: a sequential client's calls are handed over a few times per
// thousand, when a call outlives the budget because the machine took its CPU away. A
// goroutine parked on a timerfd holds no P and touches no timer heap; the thread that
// wakes for it is one already waiting in the poller, and it runs the watch on the P
// the reader is not using. (Sleeping in nanosleep on a locked thread was tried too: it
// held a P through every sleep, and a follower started by a hand-off then waited for
// sysmon to free it.)
type inlineWatch struct {
	budget, idleTick, parkAfter time.Duration

	base    time.Time
	cur     atomic.Pointer[inlineJob] // the job running inline, if any
	starts  atomic.Uint64             // jobs started, so an idle tick can be told apart
	parked  atomic.Bool
	wake    chan struct{}
	handOff func() // starts a follower reading
}

// inlineJob is one request running on the reading goroutine. Whoever claims it first
// decides who reads next: the watch (a follower reads while the job finishes) or the
// reading goroutine itself once the job is done.
type inlineJob struct {
	start   time.Duration
	claimed atomic.Bool
}

func newInlineWatch(ctx context.Context, handOff func()) *inlineWatch {
	return newInlineWatchTimed(ctx, handOff, inlineBudget, idleTick, parkAfter)
}

func newInlineWatchTimed(ctx context.Context, handOff func(), budget, idle, park time.Duration) *inlineWatch {
	w := &inlineWatch{budget: budget, idleTick: idle, parkAfter: park,
		base: time.Now(), wake: make(chan struct{}, 1), handOff: handOff}
	w.parked.Store(true)
	go w.loop(ctx)
	return w
}

// runInline runs job on the calling (reading) goroutine and reports whether that
// goroutine should go on reading.
func (w *inlineWatch) runInline(job func()) bool {
	j := &inlineJob{start: time.Since(w.base)}
	w.cur.Store(j)
	w.starts.Add(1)
	if w.parked.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	job()
	w.cur.CompareAndSwap(j, nil)
	return j.claimed.CompareAndSwap(false, true)
}

// Watch timing: see inlineWatch. The first long request after a pause is handed over
// within idleTick (the Buffered check in [Server.ServeStdio] hands over at once when more
// messages are waiting); an idle connection costs 1/idleTick wake-ups a second for
// parkAfter, then none.
const (
	idleTick  = 20 * time.Millisecond
	parkAfter = 10 * time.Second
)

func (w *inlineWatch) loop(ctx context.Context) {
	clock := newWatchTimer()
	defer clock.close()
	stop := context.AfterFunc(ctx, clock.close) // ends a sleep in progress
	defer stop()
	var seen uint64
	tick := w.budget
	lastBusy := time.Now()
	for {
		if w.parked.Load() {
			select {
			case <-w.wake:
			case <-ctx.Done():
				return
			}
			w.parked.Store(false)
			tick, lastBusy = w.budget, time.Now()
		}
		if !clock.sleep(tick) || ctx.Err() != nil {
			return
		}
		if j := w.cur.Load(); j != nil && time.Since(w.base)-j.start >= w.budget && j.claimed.CompareAndSwap(false, true) {
			w.cur.CompareAndSwap(j, nil)
			w.handOff()
		}
		n := w.starts.Load()
		switch {
		case n != seen || w.cur.Load() != nil:
			tick, lastBusy = w.budget, time.Now()
		case time.Since(lastBusy) < w.parkAfter:
			tick = min(2*tick, w.idleTick)
		default:
			// Idle for parkAfter: park until the next request. Parking is announced
			// before the final check, so a request starting meanwhile either sees
			// the flag (and wakes the watch) or is seen here.
			w.parked.Store(true)
			if w.starts.Load() != n || w.cur.Load() != nil {
				w.parked.Store(false)
			}
		}
		seen = n
	}
}
