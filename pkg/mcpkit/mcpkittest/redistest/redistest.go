// Package redistest starts a throwaway Redis for tests, from Debian's redis-server
// package (apt-get install redis-server; .ci/run installs it), the way the postgres
// server's tests start PostgreSQL. It is importable (unlike an internal package) so
// that the servers' own modules (servers/postgres) can run their scale-out tests
// against a shared Redis task store too.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// Start runs redis-server on a free loopback port with nothing persisted, stops it
// when the test ends, and returns its URL (redis://127.0.0.1:PORT/0). Without
// redis-server the test is skipped, except in CI (CI set), where it fails: CI must
// run the shared-store tests.
func Start(t testing.TB) string { return StartServer(t).URL }

// Server is a throwaway redis-server that a test can stop and start again on the
// same port (an outage of the shared store, then its return; nothing is kept across).
type Server struct {
	URL string

	t    testing.TB
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
	out  *strings.Builder
}

// StartServer is [Start], returning the server for [Server.Stop] and [Server.Restart].
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	realclient.Require(t, err == nil, "redis-server is not installed (apt-get install -y redis-server); CI must run the shared task store tests")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), t: t, bin: bin, port: port, dir: t.TempDir()}
	t.Cleanup(s.Stop)
	s.Restart()
	return s
}

// Stop kills the server and waits for it to exit (clients then get connection
// refused). Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_, _ = s.cmd.Process.Wait()
	s.cmd = nil
}

// Restart starts the server (again) on its port and waits until it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	cmd := exec.Command(s.bin, "--port", fmt.Sprint(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--daemonize", "no", "--loglevel", "warning")
	s.out = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	s.cmd = cmd
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	deadline := time.Now().Add(10 * time.Second)
	for !ping(addr) {
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server did not answer on %s within 10 s:\n%s", addr, s.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
