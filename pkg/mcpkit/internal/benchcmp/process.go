package benchcmp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"time"
)

// Process is a server started as a subprocess: over stdio, Conn talks to it through
// real pipes; over HTTP, URL is its endpoint.
type Process struct {
	Conn *LineConn // stdio only
	URL  string    // HTTP only

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *os.File // a temporary file: a server that logs every call costs us no reads
	done   chan error
}

// newStderr makes the file a server's stderr goes to.
func newStderr() (*os.File, error) {
	return os.CreateTemp("", "benchcmp-stderr-*.log")
}

// StartStdio starts argv with env added to this process's environment and connects
// a LineConn to its stdin and stdout.
func StartStdio(argv, env []string) (*Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := newStderr()
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, stdin: stdin, stderr: stderr, done: make(chan error, 1)}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		p.removeStderr()
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	go func() { p.done <- cmd.Wait() }()
	p.Conn = NewLineConn(stdin, stdout)
	return p, nil
}

// StartHTTP starts the server that argv(addr) describes on a free loopback port and
// waits until it accepts connections; URL is then its endpoint at path. The address
// is chosen by listening on port 0 and closing: another process could take it in
// between, which StartHTTP reports.
func StartHTTP(argv func(addr string) []string, env []string, path string) (*Process, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	args := argv(addr)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := newStderr()
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, stderr: stderr, done: make(chan error, 1), URL: "http://" + addr + path}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		p.removeStderr()
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	go func() { p.done <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-p.done:
			defer p.removeStderr()
			return nil, fmt.Errorf("%s exited before serving: %v\nstderr: %s", args[0], err, p.Stderr())
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			return p, nil
		}
		if time.Now().After(deadline) {
			msg := p.Stderr()
			p.Close()
			return nil, fmt.Errorf("%s did not accept connections on %s within 15 s\nstderr: %s", args[0], addr, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Stderr is the last 16 KiB the server wrote to stderr.
func (p *Process) Stderr() string {
	const limit = 16 << 10
	info, err := p.stderr.Stat()
	if err != nil {
		return err.Error()
	}
	off := max(0, info.Size()-limit)
	b := make([]byte, info.Size()-off)
	n, _ := p.stderr.ReadAt(b, off)
	return string(b[:n])
}

func (p *Process) removeStderr() {
	p.stderr.Close()
	os.Remove(p.stderr.Name())
}

// Close ends the server: stdio servers get EOF on stdin and a moment to exit, HTTP
// servers (and stdio servers that linger) are killed.
func (p *Process) Close() error {
	defer p.removeStderr()
	if p.stdin != nil {
		_ = p.stdin.Close()
		select {
		case err := <-p.done:
			return err
		case <-time.After(5 * time.Second):
		}
	}
	_ = p.cmd.Process.Kill()
	err := <-p.done
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // killed on purpose
	}
	return err
}

// Initialize runs the legacy handshake on a stdio server.
func (p *Process) Initialize(revision string) error {
	resp, err := p.Conn.RoundTrip(InitializeLine(revision))
	if err != nil {
		return fmt.Errorf("initialize: %w\nstderr: %s", err, p.Stderr())
	}
	if !bytes.Contains(resp, []byte(`"protocolVersion":"`+revision+`"`)) {
		return fmt.Errorf("initialize did not negotiate %s: %s", revision, resp)
	}
	return p.Conn.Send(InitializedLine)
}

// Pid is the server process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }
