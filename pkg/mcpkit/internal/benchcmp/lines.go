// Package benchcmp drives MCP servers with raw JSON-RPC for benchmarks: the same
// bytes go to mcpkit and to the Go SDK's fixture, over stdio pipes or HTTP, so a
// ratio of their timings measures the servers and not two different clients. It is
// test support: errors are returned, never hidden, and nothing here validates
// protocol semantics beyond recognising the response to a request.
package benchcmp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// maxLine bounds one response line: far above any benchmark answer, small enough
// that a runaway server fails the benchmark instead of exhausting memory.
const maxLine = 4 << 20

// LineConn is a JSON-RPC client over a newline-delimited stream (a server's stdin
// and stdout). RoundTrip is the sequential path: one request in flight, no
// goroutine hand-off, so it times the server and the pipes. Call is the concurrent
// path: any number of goroutines, responses matched to callers by id.
type LineConn struct {
	w  io.Writer
	br *bufio.Reader

	wmu sync.Mutex // one line written at a time

	muxOnce sync.Once
	mu      sync.Mutex
	pending map[int64]chan []byte
	readErr error
	nextID  atomic.Int64
}

// NewLineConn reads responses from r and writes requests to w.
func NewLineConn(w io.Writer, r io.Reader) *LineConn {
	c := &LineConn{w: w, br: bufio.NewReaderSize(r, 64<<10), pending: map[int64]chan []byte{}}
	c.nextID.Store(1 << 20) // ids of Call never collide with the small ids callers of RoundTrip use
	return c
}

// Pipe runs serve on in-memory pipes, reading requests from r and writing responses
// to w, and returns a connection to it and a stop function that ends the requests
// and returns what serve returned.
func Pipe(serve func(r io.Reader, w io.Writer) error) (*LineConn, func() error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(inR, outW)
		outW.Close()
	}()
	return NewLineConn(inW, outR), func() error {
		inW.Close()
		return <-done
	}
}

// RoundTrip writes one request line (with its trailing newline) and returns the
// next response line, skipping notifications and server requests. It must not be
// used concurrently, nor after Call.
func (c *LineConn) RoundTrip(line []byte) ([]byte, error) {
	if _, err := c.w.Write(line); err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	for {
		resp, err := c.readLine()
		if err != nil {
			return nil, err
		}
		if isResponse(resp) {
			return resp, nil
		}
	}
}

// Send writes a line (a notification) and waits for nothing.
func (c *LineConn) Send(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(line)
	return err
}

// Call sends the request built by build(id) and waits for the response with that
// id. Safe for concurrent use; the first Call starts the reader goroutine.
func (c *LineConn) Call(build func(id int64) []byte) ([]byte, error) {
	c.muxOnce.Do(func() { go c.readLoop() })
	id := c.nextID.Add(1)
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.Send(build(id)); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	resp, ok := <-ch
	if !ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return nil, c.readErr
	}
	return resp, nil
}

func (c *LineConn) readLoop() {
	for {
		line, err := c.readLine()
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		if !isResponse(line) {
			continue
		}
		id, ok := responseID(line)
		if !ok {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (c *LineConn) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := c.br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a response line exceeds %d bytes", maxLine)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("the server closed its output: %w", io.ErrUnexpectedEOF)
		default:
			return nil, err
		}
	}
}

// isResponse tells a response from a notification or server request: only those
// two carry "method".
func isResponse(line []byte) bool {
	return !bytes.Contains(line, []byte(`"method"`))
}

// responseID finds the numeric id of a compact response line without decoding the
// rest of it.
func responseID(line []byte) (int64, bool) {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(`"id":`):]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(bytes.TrimSpace(rest[:end])), 10, 64)
	return id, err == nil
}
