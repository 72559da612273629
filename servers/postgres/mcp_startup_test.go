package postgres

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBinaryStartup starts the built binary against a real database as different
// roles (stdin closed at once, so a server that starts serves nothing and exits 0):
// a superuser is refused with a message naming the recommended role unless
// POSTGRES_ALLOW_SUPERUSER is set; a role that can write starts with a warning naming
// the recommended role; the recommended pg_read_all_data role starts without one.
func TestBinaryStartup(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	writer := d.CreateRole(t, "writer", "", "")
	d.Exec(t, "GRANT SELECT, UPDATE ON public.t TO "+writer)
	for _, tc := range []struct {
		name    string
		env     []string
		exit    int
		want    []string // in stderr
		notWant []string
	}{
		{"superuser refused", []string{"DATABASE_URL=" + d.URL}, 1,
			[]string{`refusing to start: role "postgres" is a superuser`, "pg_read_file", ReaderRoleSQL, "--allow-superuser"}, nil},
		{"superuser allowed", []string{"DATABASE_URL=" + d.URL, "POSTGRES_ALLOW_SUPERUSER=1"}, 0,
			[]string{"level=WARN", "is a superuser (allowed by --allow-superuser)", "msg=connected", "database=" + d.Name, "allowWrites=false"}, nil},
		{"writer warned", []string{"DATABASE_URL=" + d.URLAs(writer, "")}, 0,
			[]string{"level=WARN", `can write (INSERT/UPDATE/DELETE/TRUNCATE on public.t)`, ReaderRoleSQL}, nil},
		{"writer with writes", []string{"DATABASE_URL=" + d.URLAs(writer, ""), "POSTGRES_ALLOW_WRITES=true"}, 0,
			[]string{"msg=connected", "allowWrites=true"}, []string{"level=WARN"}},
		{"reader", []string{"DATABASE_URL=" + readerURL(t, d)}, 0,
			[]string{"msg=connected", "serving MCP on stdio"}, []string{"level=WARN"}},
		// Several databases: each is started and role-checked on its own, a refusal of
		// any ends the process naming that database, and the logs name each.
		{"several databases", []string{"DATABASE_URL=" + readerURL(t, d), "POSTGRES_DATABASES=second=" + readerURL(t, d) + "\nthird=" + readerURL(t, d),
			"POSTGRES_DATABASE_DESCRIPTIONS=second=the same shop again"}, 0,
			[]string{"msg=connected name=" + d.Name, "msg=connected name=second", "msg=connected name=third"}, []string{"level=WARN"}},
		{"several databases, one superuser", []string{"DATABASE_URL=" + readerURL(t, d), "POSTGRES_DATABASES=admin=" + d.URL}, 1,
			[]string{`database admin: refusing to start: role "postgres" is a superuser`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, serverBinary(t))
			cmd.Env = append(append(os.Environ(), cleanEnv()...), tc.env...)
			cmd.Stdin = strings.NewReader("")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.exit {
				t.Errorf("exit status %d; want %d\n%s", code, tc.exit, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(stderr.String(), w) {
					t.Errorf("stderr has %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

// binaryConn is the built binary on pipes, for tests that talk to it line by line.
type binaryConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	id     int
}

func startBinary(t *testing.T, env ...string) *binaryConn {
	t.Helper()
	cmd := exec.Command(serverBinary(t))
	cmd.Env = append(append(os.Environ(), cleanEnv()...), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &binaryConn{cmd: cmd, stdin: stdin, lines: make(chan []byte, 16), stderr: &bytes.Buffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			c.lines <- line
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// call sends a 2026-07-28 request and returns its answer, failing t after within.
func (c *binaryConn) call(t *testing.T, within time.Duration, method, params string) string {
	t.Helper()
	c.id++
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		params = "," + params
	}
	fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`+"\n", c.id, method, meta, params)
	timeout := time.After(within)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("%s: the server ended its output\nstderr:\n%s", method, c.stderr)
			}
			if bytes.Contains(line, []byte(fmt.Sprintf(`"id":%d,`, c.id))) {
				return string(line)
			}
		case <-timeout:
			t.Fatalf("%s: no answer within %s\nstderr:\n%s", method, within, c.stderr)
		}
	}
}

// TestBinaryAnswersBeforeTheDatabase: the first answers never wait for the database.
// Against an address that accepts connections and never speaks, tools/list is answered
// at once, a query fails with the real reason once the connection attempt gives up,
// and the process, when stdin closes, exits 1 naming the database it never reached.
func TestBinaryAnswersBeforeTheDatabase(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered; closed with the listener's test
		}
	}()
	const connectTimeout = 4 * time.Second
	url := fmt.Sprintf("postgres://alice:pw@%s/silentdb?sslmode=disable&connect_timeout=%d", ln.Addr(), int(connectTimeout.Seconds()))
	c := startBinary(t, "DATABASE_URL="+url)
	start := time.Now()
	if got := c.call(t, connectTimeout, "tools/list", ""); !strings.Contains(got, `"name":"query"`) {
		t.Fatalf("tools/list: %s", got)
	}
	if took := time.Since(start); took >= connectTimeout {
		t.Errorf("tools/list took %s: it waited for the database", took)
	}
	got := c.call(t, 3*connectTimeout, "tools/call", `"name":"query","arguments":{"sql":"SELECT 1"}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "silentdb") {
		t.Errorf("a query against a silent database: %s", got)
	}
	c.stdin.Close()
	err = c.cmd.Wait()
	if code := c.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d (%v); want 1\n%s", code, err, c.stderr)
	}
	if want := "cannot connect to PostgreSQL at host=127.0.0.1"; !strings.Contains(c.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, c.stderr)
	}
}

// TestBinaryRefusesEveryCallAsSuperuser: a superuser without --allow-superuser is
// refused as before, and a call made before the check finished is answered with the
// refusal rather than run; the process then exits 1 with it, without waiting for stdin
// to close.
func TestBinaryRefusesEveryCallAsSuperuser(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	c := startBinary(t, "DATABASE_URL="+d.URL)
	got := c.call(t, 30*time.Second, "tools/call", `"name":"query","arguments":{"sql":"SELECT pg_catalog.pg_read_file('PG_VERSION')"}`)
	for _, want := range []string{`"isError":true`, `refusing to start: role \"postgres\" is a superuser`, "--allow-superuser"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q: %s", want, got)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("a refused server kept running\n%s", c.stderr)
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(c.stderr.String(), "refusing to start") {
		t.Errorf("exit status %d; want 1 with the refusal\n%s", code, c.stderr)
	}
}

// TestBinaryFirstCallWaitsForTheCheck: a call sent with the very first bytes waits for
// the connection and the role check, then runs.
func TestBinaryFirstCallWaitsForTheCheck(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	c := startBinary(t, "DATABASE_URL="+readerURL(t, d))
	got := c.call(t, 30*time.Second, "tools/call", `"name":"query","arguments":{"sql":"SELECT 41 + 1 AS n"}`)
	if !strings.Contains(got, `"rows":[[42]]`) || strings.Contains(got, `"isError":true`) {
		t.Errorf("first query: %s", got)
	}
}
