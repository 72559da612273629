package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How a read is made safe, in one round trip (see pipeline):
//
//  1. BEGIN READ ONLY: PostgreSQL itself refuses every write in the transaction.
//  2. SET LOCAL statement_timeout (via set_config(..., true)), plus output formats.
//  3. Parse of the caller's SQL with the extended protocol: PostgreSQL rejects a
//     string holding more than one statement. A text that passed the gate and ran
//     before may instead be a statement the connection keeps prepared, bound with no
//     Parse (stmtcache.go).
//  4. The gate: Parse of "EXPLAIN " + SQL, which only succeeds for a plannable
//     statement (SELECT, WITH, VALUES, TABLE, INSERT, UPDATE, DELETE, MERGE, …). The
//     server's own grammar decides, so COPY … TO PROGRAM, DO, CALL, SET, PREPARE,
//     LISTEN, VACUUM and transaction control never execute, whatever the spelling.
//     What passes is decided by the statement's text alone (its grammar), so a text
//     that passed once is remembered (plannable, a bounded set per DB) and not sent
//     through the gate again: the verdict is the same, one Parse cheaper.
//  5. Bind, Execute with a row limit: the server stops producing rows at the cap.
//  6. A check, still inside the transaction once the statement is done: session
//     advisory locks are released, and if a SQL prepared statement (which survives a
//     rollback) is found, the connection is discarded and the call fails. Running it
//     inside the transaction saves the transaction a statement outside would start.
//  7. ROLLBACK, always: settings changed with set_config(…, false) inside the
//     transaction are undone with it.
//
// Any error, cancellation or unexpected state closes the connection rather than
// returning it to the pool.

// setupSQL sets, for this transaction only, the statement timeout and, where the
// session's defaults differ from what the value decoders expect, the output formats
// (DateStyle ISO, bytea_output hex, extra_float_digits 1). Which settings are needed is
// decided once per connection, from its settings at connect time (ALTER ROLE/DATABASE
// SET included), so the common case sets the timeout alone.
func setupSQL(dateStyle, byteaOutput string, extraFloatDigits int) string {
	sql := "SELECT pg_catalog.set_config('statement_timeout', $1, true)"
	if !strings.HasPrefix(dateStyle, "ISO") {
		sql += ", pg_catalog.set_config('DateStyle', 'ISO', true)" // the output part only; the field order stays
	}
	if byteaOutput != "hex" {
		sql += ", pg_catalog.set_config('bytea_output', 'hex', true)"
	}
	if extraFloatDigits < 1 {
		sql += ", pg_catalog.set_config('extra_float_digits', '1', true)"
	}
	return sql
}

// checkSQL runs once the caller's statement is done. It releases session advisory locks (the
// one kind of session state a read-only statement can create that a rollback keeps
// and that is cheap to undo) and reports SQL-level prepared statements, which also
// survive a rollback (the gate stops PREPARE itself; this catches one made through a
// function's dynamic SQL). Holdable cursors, LISTEN and settings need no check: a
// rollback drops or undoes them (the bypass corpus verifies all of these).
//
// The third column says whether HypoPG is loaded in the session with its functions
// callable (the library defines hypopg.enabled once loaded; the extension must exist
// in the database). HypoPG's hypothetical indexes live in the backend's memory and
// survive a rollback: any statement could have made some (SELECT hypopg_create_index(…)
// is an ordinary function call), and they would show in later plans. A connection
// where HypoPG is callable is therefore retired after the call unless it resets
// HypoPG in every call (hypoManaged; see hypopg.go).
const checkSQL = `SELECT pg_catalog.pg_advisory_unlock_all(),
 CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_prepared_statements WHERE from_sql) THEN 'prepared statements' ELSE '' END,
 CASE WHEN pg_catalog.current_setting('hypopg.enabled', true) IS NULL THEN false
   ELSE EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'hypopg') END`

// Names of server-side prepared statements. BEGIN, the setup, the check and ROLLBACK
// are prepared once per connection (see prepareConn) so each call only binds and
// executes them; the gate's statement is parsed per call and closed again in the same
// round trip. The caller's own statements are cached under other names (stmtcache.go).
const (
	beginName       = "mcpkit_begin"
	setupName       = "mcpkit_setup"
	setupCustomName = "mcpkit_setup_custom" // the setup plus plan_cache_mode force_custom_plan, for cached statements with params
	checkName       = "mcpkit_check"
	rollbackName    = "mcpkit_rollback"
	gateName        = "mcpkit_gate"
)

// prepareConn prepares the per-call statements on a new connection.
func prepareConn(ctx context.Context, c *pgx.Conn) error {
	var dateStyle, byteaOutput, planCacheMode string
	var extraFloatDigits int
	var hypoSchema *string // HypoPG's schema when the library is already loaded (preloaded) and the extension exists
	err := c.QueryRow(ctx, `SELECT current_setting('DateStyle'), current_setting('bytea_output'), current_setting('extra_float_digits')::int,
 current_setting('plan_cache_mode'),
 CASE WHEN current_setting('hypopg.enabled', true) IS NOT NULL THEN
   (SELECT n.nspname::text FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'hypopg') END`).
		Scan(&dateStyle, &byteaOutput, &extraFloatDigits, &planCacheMode, &hypoSchema)
	if err != nil {
		return fmt.Errorf("reading the connection's output settings: %w", err)
	}
	setup := setupSQL(dateStyle, byteaOutput, extraFloatDigits)
	setupCustom := setup
	if planCacheMode == "auto" {
		// A cached statement is planned for each call's params, as an unnamed one is
		// (see stmtcache.go). A mode set for the role or database applies to both alike.
		setupCustom += ", pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true)"
	}
	for _, st := range []struct{ name, sql string }{
		{beginName, "BEGIN READ ONLY"},
		{setupName, setup},
		{setupCustomName, setupCustom},
		{checkName, checkSQL},
		{rollbackName, "ROLLBACK"},
	} {
		if _, err := c.Prepare(ctx, st.name, st.sql); err != nil {
			return fmt.Errorf("preparing the per-call statement %s: %w", st.name, err)
		}
	}
	if hypoSchema != nil {
		// HypoPG is preloaded for every session: reset it in every call rather than
		// retire every connection.
		return manageHypoPG(ctx, c, *hypoSchema)
	}
	return nil
}

// readSpec describes one read.
type readSpec struct {
	sql     string   // the caller's SQL
	exec    string   // what is executed, when it is not sql itself (EXPLAIN … + sql)
	offset  int      // characters exec adds in front of sql, for error positions
	gate    bool     // require sql to be a plannable statement (step 4)
	params  [][]byte // text params, nil for NULL
	maxRows int      // portal row limit, 0 for all
	// cacheable lets sql be kept prepared on the connection (stmtcache.go): plain
	// reads only, where what is executed is the caller's SQL itself.
	cacheable bool
}

// read runs spec in a read-only, rolled-back transaction and feeds the results to c.
// When the pooled connection turns out to have been lost before the server processed
// anything of the call (typically ended while idle: see lost.go), the pool is reset
// and the read runs again, once, on a new connection, within the same time limit.
func (db *DB) read(ctx context.Context, spec readSpec, c *collector) (err error) {
	ctx, cancel := db.callContext(ctx)
	defer cancel()
	if t := db.tracer; t != nil {
		// The statement as the caller wrote it (never its parameters), traced like
		// the pool's own queries.
		ctx = t.TraceQueryStart(ctx, nil, pgx.TraceQueryStartData{SQL: spec.sql})
		defer func() {
			t.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{CommandTag: pgconn.NewCommandTag(c.tag), Err: err})
		}()
	}
	err = db.readOnce(ctx, spec, c, true)
	if err == errRetry {
		err = db.readOnce(ctx, spec, c, false)
	}
	if err == errReparse {
		// A cached statement failed where a fresh Parse might not (stmtcache.go): run
		// the call again the old way, once.
		*c = *newCollector(c.db, c.maxRows, c.maxBytes)
		spec.cacheable = false
		err = db.readOnce(ctx, spec, c, true)
		if err == errRetry {
			err = db.readOnce(ctx, spec, c, false)
		}
	}
	return err
}

// errReparse is returned by a read attempt on a cached statement that failed at Bind
// in a way a fresh Parse might not have (see reparse).
var errReparse = errors.New("the cached statement failed where a fresh Parse might not; running it again with one")

// readOnce is one attempt of read. With mayRetry, a connection lost before the server
// processed anything of the call yields errRetry (after the pool was reset) instead
// of an error for the caller.
func (db *DB) readOnce(ctx context.Context, spec readSpec, c *collector, mayRetry bool) error {
	conn, pc, release, err := db.acquireWatched(ctx)
	if err != nil {
		return err
	}
	healthy := false
	defer func() { release(healthy) }()

	sc := connStmts(pc)
	p := newPipeline(pc)
	closing := len(sc.closing)
	for _, name := range sc.closing {
		p.closeStatement(stepClose, name)
	}
	// The statement executed: unnamed and parsed in this call (stmt ""), cached on
	// the connection (hit), or parsed in this call under a name, to be cached when
	// the call succeeds (fresh).
	var stmt string
	key := stmtKey{spec.sql, len(spec.params)}
	hit, fresh := false, false
	known := db.plannable.known(spec.sql)
	if spec.cacheable && db.stmtCacheMax > 0 {
		stmt, hit = sc.lookup(key)
		if !hit && known {
			stmt, fresh = sc.newName(), true
		}
	}
	p.runPrepared(stepBegin, beginName)
	if stmt != "" && len(spec.params) > 0 {
		p.runPrepared(stepSetup, setupCustomName, db.timeoutSetting())
	} else {
		p.runPrepared(stepSetup, setupName, db.timeoutSetting())
	}
	switch {
	case spec.exec != "":
		p.parse(stepUserParse, "", spec.sql)
		p.parse(stepMainParse, "", spec.exec)
	case !hit:
		p.parse(stepMainParse, stmt, spec.sql)
	}
	// A cached statement passed the gate when it was prepared: its text was known.
	gated := spec.gate && !hit && !known
	if gated {
		p.parse(stepGateParse, gateName, "EXPLAIN "+spec.sql)
		p.closeStatement(stepGateClose, gateName)
	}
	p.bind(stepBind, stmt, spec.params)
	p.describePortal(stepDescribe)
	p.execute(stepExecute, uint32(spec.maxRows))
	managed := hypoManaged(pc)
	if managed {
		p.runPrepared(stepHypoReset, hypoResetName)
	}
	p.runPrepared(stepCheck, checkName)
	p.runPrepared(stepEnd, rollbackName)
	p.sync()

	r, err := p.roundTrip(pc, c)
	var tooBig *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooBig) && c.cols != nil {
		// A row too large to read: keep the rows before it. The connection, in the
		// middle of the message, is discarded (which also ends the transaction).
		c.truncated = true
		c.bigRow = true
		return nil
	}
	if err != nil {
		if mayRetry && ctx.Err() == nil && notRun(err) && c.pristine() {
			db.forgetConnections()
			return errRetry
		}
		return db.brokenError(ctx, err, spec)
	}
	if r.err == nil || r.errStep != stepClose {
		sc.closing = sc.closing[closing:] // closed (closing a statement that is gone is no error)
	}
	if r.err != nil || r.txStatus != 'I' || !c.checked {
		// The server skipped the rest after an error: end the transaction and check.
		p.runPrepared(stepEnd, rollbackName)
		if managed && r.errStep != stepHypoReset {
			p.runPrepared(stepHypoReset, hypoResetName)
		}
		p.runPrepared(stepCheck, checkName)
		p.sync()
		r2, err := p.roundTrip(pc, c)
		if err != nil || r2.err != nil {
			if r.err != nil {
				return db.statementError(r, spec)
			}
			return db.brokenError(ctx, errors.Join(err, pgErrOrNil(r2.err)), spec)
		}
		r.txStatus = r2.txStatus
	}
	if ctx.Err() != nil && r.err == nil {
		return db.brokenError(ctx, ctx.Err(), spec)
	}
	if c.leftover != "" {
		return &RejectError{Reason: fmt.Sprintf("the statement left session state behind (%s); this server keeps no state "+
			"between calls, so the connection was discarded and the result withheld", c.leftover)}
	}
	if r.err != nil && (r.errStep == stepSetup || r.errStep == stepBegin) {
		// Our own statements failed (e.g. a prepared statement is gone): do not reuse.
		return newSQLError(r.err, "", 0, r.errStep, db.opts.StatementTimeout)
	}
	if !c.checked || r.txStatus != 'I' {
		return &errBroken{err: fmt.Errorf("connection not idle after the call (status %q)", r.txStatus)}
	}
	// HypoPG state: a managed connection was reset in this call; on any other, the
	// statement may have made hypothetical indexes, so the connection is retired (the
	// result stands). A failed reset (the extension was dropped) retires it too.
	retire := c.hypoLoaded && !managed
	if r.err != nil && r.errStep == stepHypoReset {
		retire, r.err = true, nil
	}
	healthy = !retire
	if stmt != "" {
		switch {
		case r.err == nil && fresh:
			sc.add(key, stmt, db.stmtCacheMax)
		case r.err != nil && hit:
			sc.forget(key)
		case r.err != nil && fresh:
			sc.discard(stmt)
		}
		if r.err != nil && r.errStep == stepBind && reparse(r.err) {
			return errReparse
		}
	}
	if r.err != nil {
		return db.statementError(r, spec)
	}
	if gated {
		db.plannable.add(spec.sql) // every step ran without error: the gate passed it
	}
	if len(c.unknown) > 0 {
		if err := db.resolveTypes(ctx, conn, c); err != nil {
			healthy = false
			return err
		}
	}
	return nil
}

// statementError turns the server's error into what the caller should see.
func (db *DB) statementError(r reply, spec readSpec) error {
	switch {
	case r.errStep == stepGateParse:
		return &RejectError{Reason: reasonNotAQuery}
	case r.errStep == stepMainParse && spec.exec != "" && r.err.Code == "42601":
		return &RejectError{Reason: reasonNotExplainable}
	}
	offset := spec.offset // the prefix is only in what stepMainParse and later ran
	if r.errStep == stepUserParse {
		offset = 0
	}
	return newSQLError(r.err, spec.sql, offset, r.errStep, db.opts.StatementTimeout)
}

// brokenError reports a call whose connection failed: a server error that closed it
// (a FATAL, such as pg_terminate_backend), a cancellation, or an I/O error. When the
// connection was lost (see lostConnection) every pooled connection is closed too, so
// that what the message says of the next call is true.
func (db *DB) brokenError(ctx context.Context, err error, spec readSpec) error {
	lost := lostConnection(err)
	if lost {
		db.forgetConnections()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		se := newSQLError(pe, spec.sql, spec.offset, stepExecute, db.opts.StatementTimeout)
		if lost && se.Reason == "" {
			se.Reason = reasonLost
		}
		return se
	}
	var tooBig *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooBig) {
		return &RejectError{Reason: fmt.Sprintf("a value returned is %d bytes, more than this server reads (%d)", tooBig.ActualBodyLen, tooBig.MaxExpectedBodyLen)}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the call did not finish within its time limit (statement timeout %s plus grace); "+
			"PostgreSQL did not answer in time: %w", db.opts.StatementTimeout, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the call was cancelled: %w", ctx.Err())
	}
	if lost {
		return fmt.Errorf("the connection to PostgreSQL at %s was lost during the call (%w); %s", db.target, err, afterLoss)
	}
	return fmt.Errorf("the connection to PostgreSQL at %s failed during the call and was closed, not reused: %w", db.target, err)
}

// connError reports a failure to get a connection.
func (db *DB) connError(err error) error {
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused // the role check refused the connection: say so, as it is
	}
	return fmt.Errorf("cannot get a connection to PostgreSQL at %s: %s", db.target, connectErrorText(err))
}

func pgErrOrNil(pe *pgconn.PgError) error {
	if pe == nil {
		return nil
	}
	return pe
}

// acquireWatched takes a pooled connection for one call and watches ctx on it (see
// watchContext). release(healthy) returns it to the pool when the call left it
// healthy and the watch did not fire, and closes it otherwise.
func (db *DB) acquireWatched(ctx context.Context) (conn *pgxpool.Conn, pc *pgconn.PgConn, release func(healthy bool), err error) {
	conn, err = db.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, nil, db.connError(err)
	}
	pc = conn.Conn().PgConn()
	stopWatch := watchContext(ctx, pc)
	return conn, pc, func(healthy bool) {
		if cancelled := stopWatch(); cancelled || !healthy {
			discard(conn)
			return
		}
		conn.Release()
	}, nil
}

// discard closes a connection instead of returning it to the pool.
func discard(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn.Conn().Close(ctx)
	conn.Release() // the pool sees it closed and destroys it
}

// checkStatementText rejects SQL the protocol cannot carry or that is empty.
func checkStatementText(sql string) error {
	if strings.TrimSpace(sql) == "" {
		return &RejectError{Reason: "sql is empty: pass one SQL statement"}
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return &RejectError{Reason: "sql contains a NUL byte, which PostgreSQL cannot accept in statement text"}
	}
	if strings.EqualFold(leadingKeyword(sql), "EXECUTE") {
		// EXPLAIN EXECUTE is plannable, so the gate would pass it; but the only
		// prepared statements a call can reach are this server's own (a PREPARE made by
		// a caller does not outlive its call), and EXECUTE of the per-call ROLLBACK in
		// the middle of a call makes PostgreSQL end the session (FATAL XX000), which
		// would let any caller reset the connection pool at will.
		return &RejectError{Reason: "EXECUTE of a prepared statement is not allowed: send the statement itself (with $1, $2 … and params)"}
	}
	return nil
}

// leadingKeyword is the first word of sql past white space, comments (-- to the end
// of the line, and /* */, which nest in PostgreSQL) and opening parentheses; "" when
// there is none. It only sorts out a statement the server refuses anyway (EXECUTE):
// PostgreSQL's own parser, through the gate and the READ ONLY transaction, is what
// keeps a read from writing.
func leadingKeyword(sql string) string {
	i := 0
	for i < len(sql) {
		switch c := sql[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '(':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return ""
			}
			i += j + 1
		case strings.HasPrefix(sql[i:], "/*"):
			depth := 0
			for i < len(sql) {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			if depth > 0 {
				return ""
			}
		default:
			j := i
			for j < len(sql) && (sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] == '_') {
				j++
			}
			return sql[i:j]
		}
	}
	return ""
}

// textSet is a bounded set of statement texts: those the gate passed (see step 4). When
// full it starts again empty, which costs one gate Parse per text seen afterwards.
type textSet struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

const (
	textSetMax     = 1024
	textSetMaxText = 8 << 10 // longer statements are gated every time
)

func (s *textSet) known(text string) bool {
	s.mu.RLock()
	_, ok := s.m[text]
	s.mu.RUnlock()
	return ok
}

func (s *textSet) add(text string) {
	if len(text) > textSetMaxText {
		return
	}
	s.mu.Lock()
	if s.m == nil || len(s.m) >= textSetMax {
		s.m = make(map[string]struct{})
	}
	s.m[text] = struct{}{}
	s.mu.Unlock()
}
