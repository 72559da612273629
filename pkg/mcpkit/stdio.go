package mcpkit

import (
	"bufio"
	"context"
	"encoding/json"
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

// inlineBudget is how long a request may run on the reading goroutine before another
// goroutine takes over reading.
const inlineBudget = 200 * time.Microsecond

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

	// handle decodes and routes one line on the reading goroutine. Notifications and
	// responses are handled at once; a request comes back as the job that answers it.
	handle := func(line []byte) (job func()) {
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
			return func() {
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
			}
		}
		return nil

	}

	// Reading follows the leader/follower pattern: the goroutine that reads a request
	// answers it itself, so nothing stands between reading a request and running it
	// (a hand-off to another goroutine costs a thread wake-up, which is most of a
	// round trip over pipes). A request still running after inlineBudget passes the
	// reading on to a follower, so a slow call never holds up cancellations or other
	// requests. Only one goroutine reads at a time.
	readErr := make(chan error, 1)
	br := bufio.NewReaderSize(r, 64<<10)
	var readLoop func()
	readLoop = func() {
		for {
			line, tooLong, err := readLine(br, s.opts.MaxMessageBytes)
			if ctx.Err() != nil {
				return
			}
			var job func()
			if tooLong {
				_ = out.write(encodeResponse(ID{}, nil, Errorf(CodeInvalidRequest, "message too large: the limit is %d bytes", s.opts.MaxMessageBytes)))
			} else if len(line) > 0 {
				job = handle(line)
			}
			if err != nil {
				if job != nil {
					go job()
				}
				readErr <- err
				return
			}
			if job == nil {
				continue
			}
			// Whoever claims the flag first is the reader from then on: the timer
			// (then a follower reads while this goroutine finishes the job), or this
			// goroutine once the job is done.
			var claimed atomic.Bool
			t := time.AfterFunc(inlineBudget, func() {
				if claimed.CompareAndSwap(false, true) {
					go readLoop()
				}
			})
			job()
			t.Stop()
			if !claimed.CompareAndSwap(false, true) {
				return
			}
		}
	}
	go readLoop()

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
