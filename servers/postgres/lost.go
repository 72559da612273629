package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Lost connections. When PostgreSQL ends a session (pg_terminate_backend, a fast or
// immediate shutdown or restart, idle_session_timeout) or the network drops it, every
// other pooled connection is probably gone too, and pgxpool only checks a connection
// that has been idle for more than a second before handing it out. So the first call
// that meets a lost connection resets the pool (pgxpool.Pool.Reset: idle connections
// are closed at once, connections in use by other calls when they come back), and every
// later call runs on a connection opened after that. A healthy call pays nothing for
// this: there is no check before use.
//
// A read is also run again, once, on a new connection when the connection was lost
// before PostgreSQL processed any of the call's messages (see errBroken.notRun), so
// that the caller sees no failure at all in the common case of connections ended
// while idle in the pool. Writes are never run again.

// lostConnection reports whether err means that an established connection to the
// server is gone: a FATAL from the server (or a class 57P error: admin_shutdown, which
// pg_terminate_backend and a fast shutdown send, crash_shutdown, cannot_connect_now,
// database_dropped, idle_session_timeout), EOF, a reset or broken pipe, a use of a
// closed connection. Timeouts and cancellations are not: they
// are this server giving up, and say nothing about other connections. Neither is a
// failure to connect, which leaves nothing in the pool.
func lostConnection(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fatal(pe) || strings.HasPrefix(pe.Code, "57P")
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && !ne.Timeout()
}

// forgetConnections closes every pooled connection after one was found lost (see
// above). It is cheap: idle connections are closed in the background and the next
// Acquire dials a new one.
func (db *DB) forgetConnections() { db.pool.Reset() }

// errRetry is returned by a read attempt whose connection was lost before the server
// processed anything of the call: it is safe, and wanted, to run it again.
var errRetry = errors.New("connection lost before the call reached the server; retrying on a new connection")

// notRun reports whether err is a lost connection that certainly did not run any of
// the call's statements.
func notRun(err error) bool {
	var eb *errBroken
	return errors.As(err, &eb) && eb.notRun && lostConnection(eb.err)
}

// pristine reports whether c has received nothing yet, so a read can run again into it.
func (c *collector) pristine() bool {
	return c.cols == nil && len(c.rows) == 0 && c.bytes == 0 && c.tag == "" && !c.checked && !c.truncated && c.leftover == ""
}

// fatal reports whether the server ended the session with pe (FATAL or PANIC), by the
// severity's unlocalized name when the server sent it (PostgreSQL 9.6 and later).
func fatal(pe *pgconn.PgError) bool {
	s := pe.SeverityUnlocalized
	if s == "" {
		s = pe.Severity
	}
	return s == "FATAL" || s == "PANIC"
}
