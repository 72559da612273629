package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// ReaderRoleSQL is the recommended setup: a login role that can read every table and
// nothing else, so PostgreSQL refuses writes a second time, whatever this server does.
// The README adds a connection limit and a role-level statement timeout.
const ReaderRoleSQL = "CREATE ROLE mcp_reader LOGIN PASSWORD '…'; GRANT pg_read_all_data TO mcp_reader;"

// RolePolicy is what the operator allowed at start-up.
type RolePolicy struct {
	AllowWrites    bool // --allow-writes
	AllowSuperuser bool // --allow-superuser
}

// CheckRole decides, from what the connected role may do, whether the server starts,
// and what it should warn about.
//
// A superuser is refused unless AllowSuperuser: read-only transactions stop writes,
// but a superuser can still read any file the database server can
// (pg_read_file, pg_ls_dir, pg_stat_file) and signal other sessions
// (pg_terminate_backend), none of which a READ ONLY transaction forbids or a
// rollback undoes. A role that can write is allowed (this server's read-only
// transactions hold the line), with a warning naming the recommended role.
func CheckRole(a *WriteAccess, p RolePolicy) (warnings []string, err error) {
	if a.Superuser && !p.AllowSuperuser {
		return nil, &RefusedError{Role: a.Role, Reason: fmt.Sprintf("role %q is a superuser. Read-only transactions stop writes, but a superuser can still read "+
			"the database server's files (pg_read_file, pg_ls_dir) and end other sessions (pg_terminate_backend) from a read-only query. "+
			"Connect as a role with only pg_read_all_data (%s), or pass --allow-superuser (POSTGRES_ALLOW_SUPERUSER=1) to accept this risk",
			a.Role, ReaderRoleSQL)}
	}
	if a.Superuser {
		warnings = append(warnings, fmt.Sprintf("role %q is a superuser (allowed by --allow-superuser): queries can read the database server's files and end other sessions", a.Role))
	}
	switch {
	case p.AllowWrites && !a.CanWrite:
		warnings = append(warnings, fmt.Sprintf("--allow-writes is set but role %q holds no write privilege: execute calls will fail with permission errors", a.Role))
	case !p.AllowWrites && a.CanWrite && !a.Superuser:
		warnings = append(warnings, fmt.Sprintf("role %q can write (%s); every query runs in a READ ONLY transaction that is rolled back, "+
			"but the recommended setup is a role with only pg_read_all_data, so PostgreSQL refuses writes a second time: %s",
			a.Role, strings.Join(a.Reasons, "; "), ReaderRoleSQL))
	}
	return warnings, nil
}

// RefusedError is the role check's refusal (see CheckRole): the server runs nothing on
// the database, every call that would is answered with this error, and the process
// ends with it.
type RefusedError struct {
	Role   string
	Reason string // what is wrong and what to do about it
}

func (e *RefusedError) Error() string { return "refusing to start: " + e.Reason }

// StartConfig is what Start checks and whom it tells.
type StartConfig struct {
	// Policy is what the operator allowed; the connected role is checked against it.
	Policy RolePolicy
	// Checked, when set, is called once with the outcome of the first connection
	// attempt, before Startup.Done closes: the role's access and CheckRole's warnings,
	// or the error (a *RefusedError for a refusal).
	Checked func(access *WriteAccess, warnings []string, err error)
}

// Startup is the background start of a DB made by Start.
type Startup struct {
	db   *DB
	done chan struct{}
	err  error
}

// Done is closed when the first connection attempt (connect and role check) is over.
func (s *Startup) Done() <-chan struct{} { return s.done }

// Err is, once Done is closed, why the database cannot be used: nil once a connection
// passed the role check (at start or on a later call), the refusal if the role was
// refused, else the first attempt's error (the database was unreachable and no call
// has reached it since).
func (s *Startup) Err() error {
	select {
	case <-s.done:
	default:
		return errors.New("the connection check is still running")
	}
	g := s.db.gate
	if g.passed.Load() {
		return nil
	}
	if r := g.refused.Load(); r != nil {
		return r
	}
	return s.err
}

// Start is Open without waiting: it checks the settings and returns at once, while
// the first connection is made in the background and checked against cfg.Policy (the
// role's privileges, CheckRole). The server can answer everything that needs no
// database meanwhile (discovery, initialize, tools/list). A call that needs the
// database waits for the check (every new connection passes it before the pool hands
// it out, so no query runs on an unchecked role), then runs, or fails with the real
// reason: the connection error, or the refusal, which then answers every call. A
// database that was unreachable at start is tried again by the next call.
func Start(ctx context.Context, databaseURL string, opts Options, cfg StartConfig) (*DB, *Startup, error) {
	gate := &roleGate{policy: cfg.Policy, sem: make(chan struct{}, 1)}
	db, err := prepare(databaseURL, opts, gate)
	if err != nil {
		return nil, nil, err
	}
	gate.database, gate.timeout = db.target.Database, string(db.timeoutSetting())
	st := &Startup{db: db, done: make(chan struct{})}
	go func() {
		defer close(st.done)
		st.err = db.connect(ctx)
		if cfg.Checked != nil {
			access, warnings := gate.result()
			cfg.Checked(access, warnings, st.err)
		}
	}()
	return db, st, nil
}

// roleGate is the role check every new connection of a started DB passes before the
// pool hands it out (from the pool's AfterConnect): once passed, it costs an atomic
// load per new connection; once refused, every new connection fails with the refusal.
// One check runs at a time; a check that failed for another reason (a lost
// connection) is run again by the next connection.
type roleGate struct {
	policy            RolePolicy
	database, timeout string
	sem               chan struct{} // one check at a time

	passed  atomic.Bool
	refused atomic.Pointer[RefusedError]

	mu       sync.Mutex
	access   *WriteAccess
	warnings []string
}

func (g *roleGate) check(ctx context.Context, c *pgx.Conn) error {
	if g.passed.Load() {
		return nil
	}
	if r := g.refused.Load(); r != nil {
		return r
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.sem }()
	if g.passed.Load() {
		return nil
	}
	if r := g.refused.Load(); r != nil {
		return r
	}
	access, err := g.inspect(ctx, c)
	if err != nil {
		return fmt.Errorf("checking the privileges of the role: %w", err)
	}
	warnings, err := CheckRole(access, g.policy)
	g.mu.Lock()
	g.access, g.warnings = access, warnings
	g.mu.Unlock()
	var refused *RefusedError
	if errors.As(err, &refused) {
		g.refused.Store(refused)
		return refused
	}
	if err != nil {
		return err
	}
	g.passed.Store(true)
	return nil
}

// inspect runs CanWrite's query on c, in a read-only transaction with the statement
// timeout, rolled back.
func (g *roleGate) inspect(ctx context.Context, c *pgx.Conn) (*WriteAccess, error) {
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_catalog.set_config('statement_timeout', $1, true)", g.timeout); err != nil {
		return nil, err
	}
	return scanWriteAccess(ctx, tx, g.database)
}

func (g *roleGate) result() (*WriteAccess, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.access, g.warnings
}
