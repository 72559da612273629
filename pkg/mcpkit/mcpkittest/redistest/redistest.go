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
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	realclient.Require(t, err == nil, "redis-server is not installed (apt-get install -y redis-server); CI must run the shared task store tests")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--loglevel", "warning")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ping(addr) {
			return "redis://" + addr + "/0"
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer on %s within 10 s:\n%s", addr, out.String())
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
