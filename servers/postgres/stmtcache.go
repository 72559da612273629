package postgres

import (
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// The statement cache: the caller's SQL kept prepared on the connection, so that a
// repeated query costs Bind/Describe/Execute of a named statement and no Parse (no
// raw parse, no parse analysis, no rewrite), as pgx's own statement cache does for
// pgx's QueryRow. It is what separates a one-row query from a safe read through pgx.
//
// What is cached, and when:
//   - Only the query tool's plain reads (readSpec.cacheable): not the EXPLAIN
//     variants, whose statement carries a prefix, and never a write (Execute closes
//     its connection after every call anyway).
//   - A text is prepared under a name only once it has passed the gate and run
//     without error before (DB.plannable knows it), so a one-off query never becomes
//     a named statement, and an entry is added only when its call ran without error.
//     A syntax error is therefore never cached: it is reported by the unnamed Parse,
//     with its exact position, as before.
//   - The key is the text and the number of params: the types PostgreSQL infers for
//     $1, $2, … at Parse depend on the text alone, and a call with another number of
//     params misses and gets the fresh Parse's own error.
//
// What a cached statement can meet, and how each is handled:
//   - DDL on what it reads, or a changed search_path or role: PostgreSQL re-analyses
//     and replans a prepared statement itself before using it (plancache.c), from the
//     original text with the current search_path and role. When the re-analysis
//     changes the result columns, PostgreSQL refuses ("cached plan must not change
//     result type", 0A000); when the objects are gone, it reports what the Parse
//     would have. Any error a call on a named statement gets at Bind (where the
//     re-analysis, the params' input conversion and the privilege checks happen) in a
//     class a fresh Parse could answer differently (see reparse) makes the call run
//     again, once, the old way: unnamed Parse, no cache, so the caller sees exactly
//     the result or error of today's path and never 0A000.
//   - Any error: the entry is dropped (the cache holds only statements whose last
//     use succeeded) and its statement closed in the next round trip.
//   - Lost or reset connections: the cache lives in the physical connection's
//     CustomData and dies with it; a new connection starts empty.
//   - Plans: a named statement with params would switch to a generic plan after
//     five executions (plan_cache_mode auto), where an unnamed one is planned for
//     each call's values; calls with params on a cached statement use a setup that
//     sets plan_cache_mode to force_custom_plan for the transaction (when the
//     connection's mode is auto), so the plans stay those of a fresh Parse.
//   - Names: protocol-level statements share PostgreSQL's namespace with SQL's
//     PREPARE/EXECUTE. The gate refuses PREPARE and DEALLOCATE; a statement made by a
//     function's dynamic SQL is caught by the session check (the connection is
//     closed); EXECUTE is refused before anything is sent (checkStatementText), since
//     EXECUTE of the per-call ROLLBACK made PostgreSQL 15 end the session (FATAL XX000
//     "unexpected state ABORT_PENDING"); a statement of ours deallocated by a function
//     is re-parsed (26000 is in reparse) (TestStmtCacheNames).
//
// What stays different from a fresh Parse, as for every prepared statement and every
// driver's statement cache: PostgreSQL resolves function and operator names at Parse,
// and creating a new overload that a fresh Parse would prefer does not invalidate an
// existing plan. The difference lasts until the connection closes (pgxpool's
// MaxConnLifetime) or the entry is evicted.

// stmtCacheSize is the number of statements cached per connection. It is small
// because every call pays for every prepared statement in the session: the session
// check (checkSQL) lists them all to find SQL-level ones, and pg_prepared_statements
// materializes each (text, parameter types) at about 0.2µs of server CPU, 0.4µs of
// latency. A hit saves 6–8µs of server CPU on a one-row query (more on a query that
// is costly to parse and plan), so with 16 cached the worst case, a call that misses a
// full cache, costs about what it did without a cache, and with 64 it would cost
// 5–13µs more (BenchmarkQueryOneRowCacheFill).
const stmtCacheSize = 16

const (
	stmtCacheKey   = "mcpkit.stmts" // in pgconn.PgConn.CustomData: the connection's *stmtCache
	stmtNamePrefix = "mcpkit_q_"    // statement names; the session check ignores them (not from_sql)
)

// stmtKey identifies a cached statement: the text and the number of params.
type stmtKey struct {
	sql    string
	params int
}

type cachedStmt struct {
	name string
	used uint64 // the cache's clock at the last use, for LRU eviction
}

// stmtCache is one connection's cache. A connection serves one call at a time, so it
// needs no lock.
type stmtCache struct {
	m       map[stmtKey]*cachedStmt
	clock   uint64
	next    uint64   // number of the next statement name (names are never reused)
	closing []string // statements to close at the start of the next round trip
	hits    int      // calls served by a cached statement (tests)
}

// connStmts returns pc's statement cache, making it on first use.
func connStmts(pc *pgconn.PgConn) *stmtCache {
	cd := pc.CustomData()
	sc, _ := cd[stmtCacheKey].(*stmtCache)
	if sc == nil {
		sc = &stmtCache{m: make(map[stmtKey]*cachedStmt)}
		cd[stmtCacheKey] = sc
	}
	return sc
}

// lookup returns the statement cached for k and marks it used.
func (sc *stmtCache) lookup(k stmtKey) (string, bool) {
	e, ok := sc.m[k]
	if !ok {
		return "", false
	}
	sc.clock++
	e.used = sc.clock
	sc.hits++
	return e.name, true
}

// newName names a statement about to be prepared.
func (sc *stmtCache) newName() string {
	sc.next++
	return stmtNamePrefix + strconv.FormatUint(sc.next, 10)
}

// add caches the statement name prepared for k. When the cache holds max entries the
// least recently used one is evicted (closed in the next round trip): a scan, as
// eviction only happens when a new text is added to a full cache.
func (sc *stmtCache) add(k stmtKey, name string, max int) {
	if len(sc.m) >= max {
		var oldest stmtKey
		var min uint64
		first := true
		for key, e := range sc.m {
			if first || e.used < min {
				oldest, min, first = key, e.used, false
			}
		}
		sc.forget(oldest)
	}
	sc.clock++
	sc.m[k] = &cachedStmt{name: name, used: sc.clock}
}

// forget drops k's entry, if any, and has its statement closed in the next round trip.
func (sc *stmtCache) forget(k stmtKey) {
	if e, ok := sc.m[k]; ok {
		delete(sc.m, k)
		sc.discard(e.name)
	}
}

// discard has the statement name closed in the next round trip.
func (sc *stmtCache) discard(name string) { sc.closing = append(sc.closing, name) }

// reparse reports whether an error a named statement got at Bind may differ from what
// a fresh Parse of the same text would give, so the call must run again the old way:
// the re-analysis refused a changed result type (0A000), the statement is gone
// (26000), the params do not match the statement ("prepared statement …" is named in
// 08P01), or an error of the classes parse analysis and the params' types decide
// (22 data exception, 42 syntax error or access rule violation: an object gone after
// DDL, a param's type inferred before the DDL, a privilege revoked). Never a
// cancellation or timeout (57), which must not cost the statement a second run.
func reparse(pe *pgconn.PgError) bool {
	switch {
	case pe.Code == "0A000", pe.Code == "26000", pe.Code == "08P01":
		return true
	case strings.HasPrefix(pe.Code, "22"), strings.HasPrefix(pe.Code, "42"):
		return true
	}
	return false
}
