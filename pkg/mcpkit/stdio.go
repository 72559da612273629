package mcpkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
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
	if l.err != nil {
		return l.err
	}
	l.buf = append(append(l.buf[:0], msg...), '\n')
	_, l.err = l.w.Write(l.buf)
	if cap(l.buf) > 64<<10 {
		l.buf = nil // do not pin a large buffer after one big message
	}
	return l.err
}

// maxListensPerConn bounds listen streams on one stdio connection.
const maxListensPerConn = 32

// ServeStdio serves one client speaking newline-delimited JSON-RPC on r and w (stdin
// and stdout) until r reaches EOF or ctx ends. Only protocol messages are written to w.
// Requests run concurrently; notifications/cancelled cancels one.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	s.markLive()
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	out := &lineWriter{w: w}
	sess := newSession("")
	sess.setUnsolicited(out)
	defer s.closeSession(sess)

	var (
		mu       sync.Mutex
		inflight = map[string]context.CancelFunc{}
		listens  int
		wg       sync.WaitGroup
		sem      = make(chan struct{}, s.opts.MaxConcurrent)
	)

	pool := newWorkerPool(ctx, s.opts.MaxConcurrent+maxListensPerConn)
	// handle decodes and routes one line. It runs on the reading goroutine, so a
	// request costs one hand-off (to its worker) between reading and answering.
	handle := func(line []byte) {
		m, derr := decodeMessage(line)
		if derr != nil {
			var id ID
			if m != nil {
				id = m.ID
			}
			if m == nil || !m.isNotification() {
				_ = out.write(encodeResponse(id, nil, derr))
			}
			return
		}
		switch {
		case m.isResponse():
			sess.deliver(m)
		case m.isNotification():
			switch m.Method {
			case "notifications/cancelled":
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
					mu.Lock()
					if c, ok := inflight[string(p.RequestID)]; ok {
						c()
					}
					mu.Unlock()
				}
			case "notifications/initialized":
				s.initialized(sess)
			case "notifications/roots/list_changed":
				sess.rootsChanged()
			}
		default:
			key := m.ID.String()
			isListen := m.Method == "subscriptions/listen"
			mu.Lock()
			_, dup := inflight[key]
			tooMany := isListen && listens >= maxListensPerConn
			var reqCtx context.Context
			var cancel context.CancelFunc
			if !dup && !tooMany {
				reqCtx, cancel = context.WithCancel(ctx)
				inflight[key] = cancel
				if isListen {
					listens++
				}
			}
			mu.Unlock()
			if dup {
				_ = out.write(encodeResponse(m.ID, nil, Errorf(CodeInvalidRequest, "request id %s is already in use by a request in flight: use a new id", key)))
				return
			}
			if tooMany {
				_ = out.write(encodeResponse(m.ID, nil, Errorf(CodeInvalidRequest, "too many open subscriptions/listen streams on this connection (limit %d)", maxListensPerConn)))
				return
			}
			if !isListen {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					cancel()
					return
				}
			}
			wg.Add(1)
			pool.run(func() {
				defer wg.Done()
				resp := s.serve(reqCtx, incoming{msg: m, sess: sess, out: out})
				mu.Lock()
				delete(inflight, key)
				if isListen {
					listens--
				}
				mu.Unlock()
				cancel()
				if !isListen {
					<-sem
				}
				if resp != nil {
					_ = out.write(resp)
				}
			})
		}

	}

	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, s.opts.MaxMessageBytes)
			if ctx.Err() != nil {
				return
			}
			if tooLong {
				_ = out.write(encodeResponse(ID{}, nil, Errorf(CodeInvalidRequest, "message too large: the limit is %d bytes", s.opts.MaxMessageBytes)))
			} else if len(line) > 0 {
				handle(line)
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	select {
	case <-ctx.Done():
		s.drain(&wg)
		return nil
	case err := <-readErr:
		cancelAll()
		s.drain(&wg)
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// drain waits a moment for in-flight handlers to notice cancellation, so a closed
// stdin ends the process promptly without cutting a response in half.
func (s *Server) drain(wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		s.logger.Warn("exiting with requests still running after stdin closed")
	}
}

// readLine reads one newline-terminated line of at most limit bytes. A longer line is
// consumed and reported as tooLong, so the stream stays in sync.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line)+len(chunk) > limit {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if err != nil {
			return line, tooLong, err
		}
		if !isPrefix {
			return line, tooLong, nil
		}
	}
}

// workerPool runs request handlers on long-lived goroutines. A fresh goroutine per
// request starts on a small stack and grows it on every call (JSON decoding and schema
// validation are deep); reused workers keep their grown stacks. Workers are started on
// demand up to max, and end with ctx.
type workerPool struct {
	ctx  context.Context
	work chan func()
	mu   sync.Mutex
	n    int
	max  int
}

func newWorkerPool(ctx context.Context, max int) *workerPool {
	return &workerPool{ctx: ctx, work: make(chan func()), max: max}
}

func (p *workerPool) run(f func()) {
	select {
	case p.work <- f: // an idle worker took it
		return
	default:
	}
	p.mu.Lock()
	if p.n < p.max {
		p.n++
		p.mu.Unlock()
		go p.worker(f)
		return
	}
	p.mu.Unlock()
	select {
	case p.work <- f: // every worker was busy: this one is free now
	case <-p.ctx.Done():
		go f() // shutting down: let it see the cancelled context and finish
	}
}

func (p *workerPool) worker(f func()) {
	for {
		f()
		select {
		case f = <-p.work:
		case <-p.ctx.Done():
			p.mu.Lock()
			p.n--
			p.mu.Unlock()
			return
		}
	}
}
