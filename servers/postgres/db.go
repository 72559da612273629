// Package postgres is the PostgreSQL MCP server: this part is its database layer, DB,
// which the tools call. Reads are safe because PostgreSQL enforces them (READ ONLY
// transactions that are always rolled back, one statement per call over the extended
// protocol, a server-side gate that only lets plannable statements run), fast because
// rows stream and the server stops at the cap, and JSON-ready: every result type is a
// tool output type.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults for Options fields left zero.
const (
	DefaultStatementTimeout = 30 * time.Second
	DefaultMaxRows          = 1000
	DefaultMaxBytes         = 1 << 20
	DefaultConnectTimeout   = 10 * time.Second
)

// Options bound what one call may cost. Zero values take the defaults above.
type Options struct {
	// StatementTimeout is set with SET LOCAL statement_timeout in every transaction,
	// and (plus a grace period) as the call's context deadline.
	StatementTimeout time.Duration
	// MaxRows caps the rows a query returns; reading stops there.
	MaxRows int
	// MaxBytes caps the approximate JSON size of the rows a query returns.
	MaxBytes int
	// MaxConns is the pool size; 0 keeps pgxpool's default (or pool_max_conns from
	// the URL).
	MaxConns int32
	// ConnectTimeout bounds connecting, when the URL sets no connect_timeout.
	ConnectTimeout time.Duration
	// ApplicationName is reported to PostgreSQL (pg_stat_activity) when the URL sets
	// none.
	ApplicationName string
	// Tracer, when set, makes the tracer of the database's statements (package
	// pgotel: OpenTelemetry spans); it sees the tool statements (read) and the
	// server's own catalog queries, and must never record their parameters.
	Tracer func(Target) pgx.QueryTracer
}

func (o Options) withDefaults() Options {
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	o.MaxRows = min(o.MaxRows, 1<<30) // the portal row limit is a uint32
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ApplicationName == "" {
		o.ApplicationName = "mcp-server-postgres"
	}
	return o
}

// DB is the database layer of the server: a connection pool and the operations the
// tools expose. Every read runs in a READ ONLY transaction that is always rolled
// back; see Query.
type DB struct {
	pool   *pgxpool.Pool
	opts   Options
	target Target

	typesMu sync.Mutex
	types   map[uint32]typeInfo // non-builtin types seen so far (enums, domains' arrays, extension types)

	gate      *roleGate // the role check new connections pass (Start), or nil (Open)
	dog       watchdog  // ends calls past their deadline (callContext)
	plannable textSet   // statement texts the gate has passed (readonly.go, step 4)
	secrets   []string  // passwords to keep out of error text

	// stmtCacheMax is how many of the caller's statements each connection keeps
	// prepared (stmtcache.go); 0 turns the cache off (tests compare with it off).
	stmtCacheMax int

	tracer pgx.QueryTracer // Options.Tracer's, or nil
}

// Target identifies the database connected to, without the password: for logs and
// error messages.
type Target struct {
	Host     string `json:"host"`
	Port     uint16 `json:"port"`
	Database string `json:"database"`
	User     string `json:"user"`
}

func (t Target) String() string {
	return fmt.Sprintf("host=%s port=%d database=%s user=%s", t.Host, t.Port, t.Database, t.User)
}

// Open connects to the database at databaseURL (a postgres:// URL or a key=value
// connection string) and pings it. A failure names host, database and user, never the
// password. A URL asking for the simple query protocol is refused: that protocol runs
// several statements from one string. (Start is the same without waiting for the
// database, and with the role check.)
func Open(ctx context.Context, databaseURL string, opts Options) (*DB, error) {
	db, err := prepare(databaseURL, opts, nil)
	if err != nil {
		return nil, err
	}
	if err := db.connect(ctx); err != nil {
		db.pool.Close()
		return nil, err
	}
	return db, nil
}

// prepare checks the settings and sets up the pool without connecting: pgxpool
// connects on first use. With a roleGate, every new connection passes the role check
// (see startup.go) before the pool hands it out.
func prepare(databaseURL string, opts Options, gate *roleGate) (*DB, error) {
	opts = opts.withDefaults()
	if opts.StatementTimeout < time.Millisecond {
		return nil, fmt.Errorf("statement timeout %s is too short: use at least 1ms", opts.StatementTimeout)
	}
	password := passwordOf(databaseURL)
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("invalid database URL (not shown, as it may hold a password): %s; expected postgres://user:password@host:port/database?sslmode=… or host=… dbname=… user=…",
			redact(parseErrorText(err), password))
	}
	cc := cfg.ConnConfig
	target := Target{Host: cc.Host, Port: cc.Port, Database: cc.Database, User: cc.User}
	if err := checkExecMode(cc.DefaultQueryExecMode); err != nil {
		return nil, err
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Tracer != nil {
		cc.Tracer = opts.Tracer(target)
	}
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = opts.ConnectTimeout
	}
	if _, ok := cc.RuntimeParams["application_name"]; !ok {
		cc.RuntimeParams["application_name"] = opts.ApplicationName
	}
	// A row (protocol message) larger than this is not read at all: the byte cap
	// drops such a row anyway, and reading it would buffer it whole. Meeting one ends
	// the call's reading (the result is marked truncated) and the connection.
	maxBody := max(8<<20, 4*opts.MaxBytes)
	userAfterConnect := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		c.PgConn().Frontend().SetMaxBodyLen(maxBody)
		if err := prepareConn(ctx, c); err != nil {
			return err
		}
		if userAfterConnect != nil {
			if err := userAfterConnect(ctx, c); err != nil {
				return err
			}
		}
		if gate != nil {
			return gate.check(ctx, c)
		}
		return nil
	}

	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot set up PostgreSQL connections to %s: %s", target, redact(err.Error(), password, cc.Password))
	}
	return &DB{pool: pool, opts: opts, target: target, tracer: cc.Tracer, types: make(map[uint32]typeInfo), gate: gate, stmtCacheMax: stmtCacheSize,
		secrets: []string{password, cc.Password}}, nil
}

// connect makes the first connection (and with a role gate, the role check), bounded
// by the connect timeout. The error names the target, never the password.
func (db *DB) connect(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, db.opts.ConnectTimeout+time.Second)
	defer cancel()
	if err := db.pool.Ping(pctx); err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			return refused
		}
		return fmt.Errorf("cannot connect to PostgreSQL at %s: %s", db.target, redact(connectErrorText(err), db.secrets...))
	}
	return nil
}

// checkExecMode refuses the simple protocol (default_query_exec_mode=simple_protocol),
// under which pgx would send a whole string, several statements included, in one go.
func checkExecMode(m pgx.QueryExecMode) error {
	switch m {
	case pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec:
		return nil
	case pgx.QueryExecModeSimpleProtocol:
		return errors.New("default_query_exec_mode=simple_protocol is not allowed: the simple query protocol runs several " +
			"statements from one string, which could escape the read-only transaction; remove it from the database URL")
	}
	return fmt.Errorf("unknown query exec mode %v", m)
}

// Close closes all connections.
func (db *DB) Close() { db.pool.Close() }

// Target says which database this is, without the password.
func (db *DB) Target() Target { return db.target }

// Options returns the limits in force, defaults filled in.
func (db *DB) Options() Options { return db.opts }

// Pool exposes the connection pool, for tests and benchmarks that compare against pgx
// used directly.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// callContext bounds a call: the statement timeout plus a grace period for the
// server to report it, so the server's own timeout normally fires first and the
// context deadline only catches a server or network that stopped answering.
//
// The deadline is kept by the DB's watchdog, not by a timer per call: arming a timer
// that falls due before every other one wakes the runtime's network poller, a thread
// wake-up on every call (a measurable part of a one-row query's round trip on a busy
// machine), for a deadline that is almost never reached. The watchdog looks at the
// calls in flight every callWatchTick, so a call ends at most that much after its
// deadline; its context then reports context.DeadlineExceeded, as a timer's would.
func (db *DB) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithCancel(ctx)
	c := &callCtx{Context: inner, deadline: time.Now().Add(db.opts.StatementTimeout + 2*time.Second), cancel: cancel}
	db.dog.add(c)
	return c, func() {
		db.dog.remove(c)
		cancel()
	}
}

// callWatchTick is how often the watchdog looks for calls past their deadline.
const callWatchTick = 250 * time.Millisecond

// callCtx is a call's context: cancelled with its parent, or by the watchdog at its
// deadline (then Err is context.DeadlineExceeded).
type callCtx struct {
	context.Context
	deadline time.Time
	cancel   context.CancelFunc
	expired  atomic.Bool
}

// Deadline is the earlier of the call's deadline and its parent's, as a timer's
// context reports it.
func (c *callCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *callCtx) Err() error {
	if c.expired.Load() {
		return context.DeadlineExceeded
	}
	return c.Context.Err()
}

// watchdog ends calls that outlive their deadline (see callContext). Its goroutine
// runs while calls are in flight and for a few ticks after the last one.
type watchdog struct {
	mu      sync.Mutex
	calls   map[*callCtx]struct{}
	running bool
}

func (w *watchdog) add(c *callCtx) {
	w.mu.Lock()
	if w.calls == nil {
		w.calls = make(map[*callCtx]struct{})
	}
	w.calls[c] = struct{}{}
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		go w.loop()
	}
}

func (w *watchdog) remove(c *callCtx) {
	w.mu.Lock()
	delete(w.calls, c)
	w.mu.Unlock()
}

func (w *watchdog) loop() {
	idle := 0
	for {
		time.Sleep(callWatchTick)
		now := time.Now()
		w.mu.Lock()
		var due []*callCtx
		for c := range w.calls {
			if now.After(c.deadline) {
				due = append(due, c)
				delete(w.calls, c)
			}
		}
		if len(w.calls) == 0 {
			idle++
		} else {
			idle = 0
		}
		stop := idle >= 8 // two seconds without calls: stop until the next one
		if stop {
			w.running = false
		}
		w.mu.Unlock()
		for _, c := range due {
			c.expired.Store(true)
			c.cancel()
		}
		if stop {
			return
		}
	}
}

// timeoutSetting is the statement_timeout value set per transaction, in milliseconds.
func (db *DB) timeoutSetting() []byte {
	ms := db.opts.StatementTimeout.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	return []byte(fmt.Sprint(ms))
}

// parseErrorText is a parse error's message without the connection string, which the
// error quotes (best-effort redacted by pgx).
func parseErrorText(err error) string {
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		msg := pce.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return msg
	}
	return err.Error()
}

// connectErrorText keeps what helps (the server's message, the address tried) and
// drops pgx's prefix, which repeats user and database.
func connectErrorText(err error) string {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if inner := errors.Unwrap(ce); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

// kvPassword is compiled on first use: a URL that holds its password never needs it.
var kvPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)
})

// passwordOf finds the password in a URL or key=value string, best effort, so that
// error text can be scrubbed of it even when the string does not parse.
func passwordOf(conn string) string {
	if u, err := url.Parse(conn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
	}
	if m := kvPassword().FindStringSubmatch(conn); m != nil {
		return strings.Trim(m[1], "'")
	}
	if i, j := strings.Index(conn, "://"), strings.LastIndex(conn, "@"); i >= 0 && j > i {
		if k := strings.Index(conn[i+3:j], ":"); k >= 0 {
			return conn[i+3+k+1 : j]
		}
	}
	return ""
}

// redact removes every given secret from s.
func redact(s string, secrets ...string) string {
	for _, p := range secrets {
		if p != "" {
			s = strings.ReplaceAll(s, p, "xxxxx")
			if esc := url.QueryEscape(p); esc != p {
				s = strings.ReplaceAll(s, esc, "xxxxx")
			}
			if esc := url.PathEscape(p); esc != p {
				s = strings.ReplaceAll(s, esc, "xxxxx")
			}
		}
	}
	return s
}

// Ping checks that PostgreSQL answers on a pooled connection: the readiness probe
// (/readyz) of an HTTP deployment. The error names the target, never the password. A
// pooled connection found lost resets the pool and the ping is tried once more on a
// new connection (see lost.go), so a restarted server reads as ready.
func (db *DB) Ping(ctx context.Context) error {
	err := db.pool.Ping(ctx)
	if err != nil && ctx.Err() == nil && lostConnection(err) {
		db.forgetConnections()
		err = db.pool.Ping(ctx)
	}
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused
	}
	if err != nil {
		return fmt.Errorf("PostgreSQL at %s does not answer: %s", db.target, connectErrorText(err))
	}
	return nil
}
