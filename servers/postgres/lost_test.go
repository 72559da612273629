package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// Lost connections (issue 13, item 8): after the server ends the pooled connections
// (pg_terminate_backend, a fast restart, idle_session_timeout) or the network drops
// them, at most one call may fail, its message must be true, and no later call may
// get a dead connection.

// fillPool makes the pool hold n idle connections (acquired at once, so n distinct
// ones) and returns their backend PIDs.
func fillPool(t *testing.T, db *DB, n int) []int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var pids []int32
	var release []func()
	for range n {
		c, err := db.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		release = append(release, c.Release)
		pids = append(pids, int32(c.Conn().PgConn().PID()))
	}
	for _, r := range release {
		r()
	}
	if idle := db.Pool().Stat().IdleConns(); int(idle) != n {
		t.Fatalf("pool holds %d idle connections, want %d", idle, n)
	}
	return pids
}

// terminate ends the backends pids from a separate connection and waits until they
// are gone (pg_terminate_backend only signals).
func terminate(t *testing.T, adminURL string, pids []int32) {
	t.Helper()
	admin := connectAdmin(t, adminURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM unnest($1::int4[]) pid", pids); err != nil {
		t.Fatal(err)
	}
	for {
		var left int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int4[])", pids).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%d backends still running after pg_terminate_backend", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// queryPID calls the query tool for the serving backend's PID; failed is the error
// text when the call failed.
func queryPID(t *testing.T, c *mcpkittest.Client) (pid int32, failed string) {
	t.Helper()
	res := callTool(t, c, "query", map[string]any{"sql": "SELECT pg_backend_pid() AS pid"})
	if res.IsError {
		return 0, res.Text()
	}
	out := structured(t, "query", res)
	return int32(out["rows"].([]any)[0].([]any)[0].(float64)), ""
}

// TestLostConnectionsTerminated ends every pooled connection with pg_terminate_backend
// (PostgreSQL's fast shutdown ends them the same way: FATAL 57P01, then the socket
// closes). The server told the client first, so each call's first read proves the
// statement never ran: the call is retried on a new connection and no call fails.
func TestLostConnectionsTerminated(t *testing.T) {
	t.Parallel()
	t.Run("unix socket", func(t *testing.T) {
		t.Parallel()
		d, db := shopDB(t, Options{MaxConns: 4})
		testTerminated(t, d.URL, db)
	})
	t.Run("tcp", func(t *testing.T) {
		t.Parallel()
		d := pgtest.NewDatabase(t)
		d.Exec(t, shopSQL)
		testTerminated(t, d.URL, openDB(t, startProxy(t, d.URL).url, Options{MaxConns: 4}))
	})
}

func testTerminated(t *testing.T, adminURL string, db *DB) {
	c := mcpkittest.Connect(t, newServer(db, Config{}), "2026-07-28", nil)

	dead := fillPool(t, db, 4)
	terminate(t, adminURL, dead)
	for i := range 8 {
		pid, failed := queryPID(t, c)
		if failed != "" {
			t.Errorf("query call %d after pg_terminate_backend of every pooled connection failed: %s", i+1, failed)
			continue
		}
		for _, p := range dead {
			if pid == p {
				t.Errorf("query call %d ran on terminated backend %d", i+1, pid)
			}
		}
	}

	// Catalog reads, the tuning tools and the readiness probe take the same care.
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_schemas", map[string]any{}},
		{"health", map[string]any{"checks": []any{"constraints"}}},
		{"suggest_indexes", map[string]any{"sql": "SELECT id FROM shop.orders WHERE status = 'paid'"}},
	} {
		dead = fillPool(t, db, 4)
		terminate(t, adminURL, dead)
		for i := range 6 {
			if res := callTool(t, c, call.tool, call.args); res.IsError {
				t.Errorf("%s call %d after pg_terminate_backend failed: %s", call.tool, i+1, res.Text())
			}
		}
	}
	dead = fillPool(t, db, 4)
	terminate(t, adminURL, dead)
	for i := range 6 {
		if err := db.Ping(context.Background()); err != nil {
			t.Errorf("Ping %d after pg_terminate_backend: %v", i+1, err)
		}
	}
}

// TestLostConnectionsCut drops every pooled connection without a word from the server
// (a network failure, a killed server: the client reads EOF). Whether the first call's
// statement ran cannot be known, so it fails; its message must be true, and every
// later call gets a new, working connection.
func TestLostConnectionsCut(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	p := startProxy(t, d.URL)
	db := openDB(t, p.url, Options{MaxConns: 4})
	c := mcpkittest.Connect(t, newServer(db, Config{}), "2026-07-28", nil)

	dead := fillPool(t, db, 4)
	p.cut()
	for i := range 8 {
		pid, failed := queryPID(t, c)
		if failed != "" {
			if i > 0 {
				t.Errorf("query call %d failed after the first: %s", i+1, failed)
				continue
			}
			t.Logf("first call after the cut: %s", failed)
			if !strings.Contains(failed, "was lost") || !strings.Contains(failed, "the next call opens a new connection") {
				t.Errorf("first call's message does not say what happened and what comes next: %s", failed)
			}
			continue
		}
		for _, d := range dead {
			if pid == d {
				t.Errorf("query call %d ran on a cut connection's backend %d", i+1, pid)
			}
		}
	}

	// Catalog reads: at most the first fails, with a true message.
	fillPool(t, db, 4)
	p.cut()
	for i := range 6 {
		res := callTool(t, c, "list_schemas", map[string]any{})
		if res.IsError && i == 0 {
			t.Logf("first list_schemas after the cut: %s", res.Text())
		}
		if res.IsError && (i > 0 || !strings.Contains(res.Text(), "the next call opens a new connection")) {
			t.Errorf("list_schemas call %d after the cut: %s", i+1, res.Text())
		}
	}
}

// TestLostConnectionOwnStatementNotRetried: a statement that ends its own backend is
// not run again (the server replied to the calls' first steps before the FATAL, so
// the statement may have run), and the pool recovers for the next call.
func TestLostConnectionOwnStatementNotRetried(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{MaxConns: 2})
	fillPool(t, db, 2)
	before := db.Pool().Stat().NewConnsCount()
	_, err := db.Query(context.Background(), "SELECT pg_terminate_backend(pg_backend_pid())", nil)
	var se *SQLError
	if !errors.As(err, &se) || se.SQLState != "57P01" || se.Reason != reasonTerminate {
		t.Fatalf("want 57P01 with reasonTerminate, got %v", err)
	}
	if n := db.Pool().Stat().NewConnsCount() - before; n != 0 {
		t.Errorf("%d connections opened during the call: the statement was run again", n)
	}
	if _, err := db.Query(context.Background(), "SELECT 1", nil); err != nil {
		t.Errorf("next call: %v", err)
	}
}

// proxy forwards TCP connections to the test server and can cut them all at once,
// the way a network failure or a killed server would: no FATAL, just EOF.
type proxy struct {
	url   string
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, dbURL string) *proxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	host, port := q.Get("host"), q.Get("port")
	if host == "" {
		host, port = u.Hostname(), u.Port()
	}
	if port == "" {
		port = "5432"
	}
	network, addr := "tcp", net.JoinHostPort(host, port)
	if strings.HasPrefix(host, "/") {
		network, addr = "unix", filepath.Join(host, ".s.PGSQL."+port)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial(network, addr)
			if err != nil {
				client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, server)
			p.mu.Unlock()
			go func() { io.Copy(server, client); server.Close() }()
			go func() { io.Copy(client, server); client.Close() }()
		}
	}()
	q.Del("host")
	q.Del("port")
	u.Host = ln.Addr().String()
	u.RawQuery = q.Encode()
	p.url = u.String()
	return p
}

// cut closes every proxied connection, both sides.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	time.Sleep(50 * time.Millisecond) // let the FINs arrive
}
