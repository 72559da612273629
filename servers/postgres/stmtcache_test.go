package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// The statement cache (stmtcache.go) must change nothing a caller can see: every
// test here runs the same calls through a DB with the cache and one without (a fresh
// Parse in every call, as before the cache) and compares the answers, after whatever
// a cached statement can meet in between.

// cachePair opens two one-connection DBs on url: cached (the default) and fresh (the
// cache off).
func cachePair(t *testing.T, url string) (cached, fresh *DB) {
	t.Helper()
	cached = openDB(t, url, Options{MaxConns: 1})
	fresh = openDB(t, url, Options{MaxConns: 1})
	fresh.stmtCacheMax = 0
	return cached, fresh
}

// onlyConn is db's only connection (a one-connection pool), taken from the pool and
// put back at once.
func onlyConn(t testing.TB, db *DB) *pgconn.PgConn {
	t.Helper()
	conn, err := db.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	return conn.Conn().PgConn()
}

// stmtsOf is the statement cache of db's only connection.
func stmtsOf(t testing.TB, db *DB) *stmtCache {
	t.Helper()
	return connStmts(onlyConn(t, db))
}

// onConn runs session SQL on db's only connection, outside the read path: what a
// session whose search_path or role changed would look like to a cached statement.
func onConn(t *testing.T, db *DB, sql string) {
	t.Helper()
	if _, err := db.Pool().Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// answer renders what a call returned, result or error, for comparison.
func answer(t *testing.T, res *QueryResult, err error) string {
	t.Helper()
	var se *SQLError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("SQLError %+v\n%s", *se, se.Error())
	case err != nil:
		return fmt.Sprintf("%T %v", err, err)
	}
	return jsonOf(t, res)
}

// warm runs sql until it is cached on db's connection and a call was served by it.
func warm(t *testing.T, db *DB, sql string, params []any) {
	t.Helper()
	sc := stmtsOf(t, db)
	hits := sc.hits
	for range 3 { // at most: gate, then prepared under a name, then a hit
		if _, err := db.Query(context.Background(), sql, params); err != nil {
			t.Fatalf("warming %s: %v", sql, err)
		}
		if sc.hits > hits {
			return
		}
	}
	t.Fatalf("warming %s: no cache hit in 3 calls", sql)
}

// sameAnswers runs sql with each params on both DBs and fails when the answers differ or a
// cached statement's own error (0A000) reaches the caller. It returns the answers.
func sameAnswers(t *testing.T, cached, fresh *DB, sql string, params ...[]any) []string {
	t.Helper()
	var out []string
	for _, p := range params {
		res, err := cached.Query(context.Background(), sql, p)
		got := answer(t, res, err)
		res, err = fresh.Query(context.Background(), sql, p)
		want := answer(t, res, err)
		if got != want {
			t.Errorf("%s %v:\ncached: %s\nfresh:  %s", sql, p, got, want)
		}
		if strings.Contains(got, "0A000") || strings.Contains(got, "mcpkit_q_") {
			t.Errorf("%s %v: the cache's own error reached the caller: %s", sql, p, got)
		}
		out = append(out, got)
	}
	return out
}

// TestStmtCacheAfterDDL: a cached statement meets DDL on what it reads (its result
// type changed, its table dropped or recreated, a column gone, a param's inferred type
// changed, a function replaced, the search_path's "$user" schema created). The caller
// gets exactly what a fresh Parse gives, never 0A000, and the error positions of the
// caller's SQL.
func TestStmtCacheAfterDDL(t *testing.T) {
	t.Parallel()
	const fixture = `CREATE TABLE r (id int, v text); INSERT INTO r VALUES (1, 'a'), (2, 'bb');
CREATE FUNCTION f() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 1';`
	tests := []struct {
		name   string
		sql    string
		warm   []any
		ddl    string
		params [][]any
		want   string // in the first answer
	}{
		{name: "result type changed", sql: "SELECT v FROM r ORDER BY id",
			ddl: "ALTER TABLE r ALTER v TYPE int USING length(v)", want: `"rows":[[1],[2]]`},
		{name: "column added under SELECT *", sql: "SELECT * FROM r ORDER BY id",
			ddl: "ALTER TABLE r ADD COLUMN w int DEFAULT 7", want: `"rows":[[1,"a",7],[2,"bb",7]]`},
		{name: "table dropped", sql: "SELECT v FROM r ORDER BY id",
			ddl: "DROP TABLE r", want: `Position:15`},
		{name: "table dropped and made again", sql: "SELECT v FROM r ORDER BY id",
			ddl: "DROP TABLE r; CREATE TABLE r (id int, v text); INSERT INTO r VALUES (3, 'c')", want: `"rows":[["c"]]`},
		{name: "column dropped", sql: "SELECT id,\n v FROM r ORDER BY id",
			ddl: "ALTER TABLE r DROP COLUMN v", want: `Position:13`},
		{name: "param type inferred before the DDL", sql: "SELECT count(*) FROM r WHERE id = $1", warm: []any{1},
			ddl:    "ALTER TABLE r ALTER id TYPE bigint; INSERT INTO r VALUES (5000000000, 'big')",
			params: [][]any{{5000000000.0}, {1}, {"x"}, {nil}}, want: `"rows":[[1]]`},
		{name: "param type changed to text", sql: "SELECT count(*) FROM r WHERE id = $1", warm: []any{1},
			ddl:    "ALTER TABLE r ALTER id TYPE text; INSERT INTO r VALUES ('x', 'x')",
			params: [][]any{{"x"}, {1}}, want: `"rows":[[1]]`},
		{name: "function replaced", sql: "SELECT f() AS n",
			ddl: "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 2'", want: `"rows":[[2]]`},
		{name: "search_path: $user schema created, same shape", sql: "SELECT v FROM r ORDER BY id",
			ddl:  `CREATE SCHEMA "$USER"; CREATE TABLE "$USER".r (id int, v text); INSERT INTO "$USER".r VALUES (9, 'shadow')`,
			want: `"rows":[["shadow"]]`},
		{name: "search_path: $user schema created, other shape", sql: "SELECT v FROM r ORDER BY id",
			ddl:  `CREATE SCHEMA "$USER"; CREATE TABLE "$USER".r (id int, v int); INSERT INTO "$USER".r VALUES (9, 99)`,
			want: `"rows":[[99]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := pgtest.NewDatabase(t)
			d.Exec(t, fixture)
			cached, fresh := cachePair(t, d.URL)
			warm(t, cached, tt.sql, tt.warm)
			var user string
			if res, err := cached.Query(context.Background(), "SELECT current_user::text", nil); err == nil {
				user = res.Rows[0][0].(string)
			}
			d.Exec(t, strings.ReplaceAll(tt.ddl, "$USER", user))
			params := tt.params
			if params == nil {
				params = [][]any{tt.warm}
			}
			sc := stmtsOf(t, cached)
			hits := sc.hits
			got := sameAnswers(t, cached, fresh, tt.sql, params...)
			if sc.hits == hits {
				t.Errorf("the call after the DDL did not use the cached statement")
			}
			if !strings.Contains(got[0], tt.want) {
				t.Errorf("first answer lacks %s:\n%s", tt.want, got[0])
			}
			// Once the DDL is done with, the text is cached again.
			if !strings.Contains(got[0], "SQLError") {
				hits := sc.hits
				sameAnswers(t, cached, fresh, tt.sql, params[0], params[0], params[0])
				if sc.hits-hits < 1 {
					t.Errorf("the statement was not cached again after the DDL")
				}
			}
		})
	}
}

// TestStmtCacheSessionChanges: a cached statement used after the session's search_path
// or role changed (set here outside the read path, on the one pooled connection) is
// replanned by PostgreSQL: the rows are those of the new search_path or role (row
// security policies included) and a revoked privilege gives the fresh Parse's error.
func TestStmtCacheSessionChanges(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	app := d.CreateRole(t, "app", "NOSUPERUSER", "")
	r1 := d.CreateRole(t, "r1", "NOSUPERUSER", "")
	r2 := d.CreateRole(t, "r2", "NOSUPERUSER", "")
	d.Exec(t, fmt.Sprintf(`CREATE SCHEMA a; CREATE SCHEMA b;
CREATE TABLE a.s (v text); INSERT INTO a.s VALUES ('in a');
CREATE TABLE b.s (v text); INSERT INTO b.s VALUES ('in b');
CREATE TABLE public.p (owner text, v text);
INSERT INTO public.p VALUES ('%[2]s', 'row of r1'), ('%[3]s', 'row of r2');
ALTER TABLE public.p ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON public.p USING (owner = current_user);
GRANT USAGE ON SCHEMA a, b TO PUBLIC; GRANT SELECT ON a.s, b.s, public.p TO PUBLIC;
GRANT "%[2]s", "%[3]s" TO "%[1]s";`, app, r1, r2))
	cached, fresh := cachePair(t, d.URLAs(app, ""))
	steps := []struct {
		session string // run on both connections before the call
		sql     string
		want    string
	}{
		{"SET search_path = a", "SELECT v FROM s", `[["in a"]]`},
		{"SET search_path = b", "SELECT v FROM s", `[["in b"]]`},
		{"SET search_path = a", "SELECT v FROM s", `[["in a"]]`},
		{"SET ROLE " + r1, "SELECT v FROM public.p", `[["row of r1"]]`},
		{"SET ROLE " + r2, "SELECT v FROM public.p", `[["row of r2"]]`},
		{"REVOKE SELECT ON public.p FROM PUBLIC", "SELECT v FROM public.p", `permission denied`},
		{"GRANT SELECT ON public.p TO PUBLIC", "SELECT v FROM public.p", `[["row of r2"]]`},
		{"RESET ROLE", "SELECT v FROM public.p", `"rows":[]`},
	}
	warmed := map[string]bool{}
	failed := false // the last call failed: its entry was dropped, so the next one prepares again
	for _, s := range steps {
		if strings.HasPrefix(s.session, "REVOKE") || strings.HasPrefix(s.session, "GRANT") {
			d.Exec(t, s.session)
		} else {
			onConn(t, cached, s.session)
			onConn(t, fresh, s.session)
		}
		if !warmed[s.sql] {
			warm(t, cached, s.sql, nil)
			warmed[s.sql] = true
		}
		sc := stmtsOf(t, cached)
		hits := sc.hits
		got := sameAnswers(t, cached, fresh, s.sql, nil)
		if !strings.Contains(got[0], s.want) {
			t.Errorf("after %s: %s gives %s, want %s", s.session, s.sql, got[0], s.want)
		}
		if sc.hits == hits && !failed {
			t.Errorf("after %s: the call did not use the cached statement", s.session)
		}
		failed = strings.HasPrefix(got[0], "SQLError")
	}
}

// TestStmtCacheParams: a statement cached with one call's params answers every other
// call's params (other JSON types, NULL, bad text, too few or too many) exactly as a
// fresh Parse does, and is planned for each call's values as an unnamed statement is
// (no generic plan).
func TestStmtCacheParams(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, "CREATE TABLE r (id int PRIMARY KEY, v text, j jsonb); INSERT INTO r SELECT g, 'v' || g, jsonb_build_object('a', g) FROM generate_series(1, 20) g")
	cached, fresh := cachePair(t, d.URL)
	tests := []struct {
		sql    string
		params [][]any // the first one warms the cache
	}{
		{"SELECT $1::int + 1 AS n", [][]any{{1}, {"2"}, {" 3 "}, {"abc"}, {1.5}, {true}, {nil}, {}, {1, 2}}},
		{"SELECT v FROM r WHERE id = $1", [][]any{{1}, {"2"}, {"x"}, {5000000000.0}, {nil}, {[]any{1}}}},
		{"SELECT count(*) FROM r WHERE id = ANY($1)", [][]any{{[]any{1, 2}}, {"{3}"}, {[]any{"4", 5}}, {"x"}, {[]any{}}}},
		{"SELECT $1::jsonb -> 'a' AS a", [][]any{{map[string]any{"a": 1}}, {`{"a": [2]}`}, {"not json"}, {[]any{1}}, {7}}},
		{"SELECT $1 = 'x' AS eq, $2::text AS s", [][]any{{"x", "y"}, {true, 1}, {1.25, nil}, {"x"}}},
		{"SELECT j FROM r WHERE j @> $1 ORDER BY id", [][]any{{map[string]any{"a": 3}}, {`{"a": 4}`}, {"[}"}}},
	}
	for _, tt := range tests {
		warm(t, cached, tt.sql, tt.params[0])
		sameAnswers(t, cached, fresh, tt.sql, tt.params...)
		sameAnswers(t, cached, fresh, tt.sql, tt.params...) // once more: every entry dropped by an error is back
	}
	// Planned per call: ten more calls, and PostgreSQL made custom plans only.
	const sql = "SELECT v FROM r WHERE id = $1"
	for i := range 10 {
		if _, err := cached.Query(context.Background(), sql, []any{i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := cached.Query(context.Background(), "SELECT generic_plans, custom_plans > 5 FROM pg_prepared_statements WHERE name LIKE 'mcpkit\\_q\\_%' AND statement = $1", []any{sql})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Rows); got != "[[0,true]]" {
		t.Errorf("generic plans, more than 5 custom plans of the cached statement: %s, want [[0,true]]", got)
	}
}

// TestStmtCacheNames: the caller cannot collide with or misuse the names of this
// server's statements. EXECUTE (which the gate would pass: EXPLAIN EXECUTE is a
// plannable statement) is refused before anything is sent, whatever the name;
// PREPARE and DEALLOCATE are refused by the gate; nothing is left behind and the
// cache keeps working; a statement of ours deallocated by a function is
// parsed again, and a function that prepares one of our names loses its connection.
func TestStmtCacheNames(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, `CREATE TABLE r (id int, v text); INSERT INTO r VALUES (1, 'a');
CREATE FUNCTION dealloc(name text) RETURNS int LANGUAGE plpgsql AS $$BEGIN EXECUTE 'DEALLOCATE ' || quote_ident(name); RETURN 1; END$$;
CREATE FUNCTION prep(name text) RETURNS int LANGUAGE plpgsql AS $$BEGIN EXECUTE 'PREPARE ' || quote_ident(name) || ' AS SELECT 1'; RETURN 1; END$$;`)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx := context.Background()
	const read = "SELECT v FROM r"
	warm(t, db, read, nil)
	sc := stmtsOf(t, db)
	cachedName := sc.m[stmtKey{read, 0}].name
	clean := func(after string) {
		t.Helper()
		res, err := db.Query(ctx, `SELECT (SELECT count(*) FROM r), current_setting('statement_timeout'), current_setting('transaction_read_only'),
 (SELECT count(*) FROM pg_prepared_statements WHERE from_sql), (SELECT count(*) FROM pg_prepared_statements WHERE name IN ('mcpkit_begin', 'mcpkit_setup', 'mcpkit_setup_custom', 'mcpkit_check', 'mcpkit_rollback'))`, nil)
		if err != nil {
			t.Fatalf("after %s: %v", after, err)
		}
		if got, want := jsonOf(t, res.Rows), `[[1,"30s","on",0,5]]`; got != want {
			t.Errorf("after %s: state %s, want %s", after, got, want)
		}
		res, err = db.Query(ctx, read, nil)
		if err != nil || jsonOf(t, res.Rows) != `[["a"]]` {
			t.Errorf("after %s: the cached read gives %v %v", after, res, err)
		}
	}
	for _, sql := range []string{
		"EXECUTE " + cachedName,
		"EXECUTE mcpkit_begin",
		"EXECUTE mcpkit_setup('0')",
		"EXECUTE mcpkit_setup_custom('0')",
		"EXECUTE mcpkit_check",
		"EXECUTE mcpkit_rollback",
		"EXECUTE mcpkit_q_999",
		"PREPARE " + cachedName + " AS DELETE FROM r",
		"DEALLOCATE " + cachedName,
		"DEALLOCATE ALL",
		"EXPLAIN ANALYZE EXECUTE " + cachedName,
	} {
		// EXECUTE is refused before anything is sent (checkStatementText): run,
		// EXECUTE mcpkit_rollback ended the session (PostgreSQL 15: FATAL XX000,
		// "unexpected state ABORT_PENDING"), letting a caller reset the pool at will.
		// PREPARE, DEALLOCATE and EXPLAIN are refused by the gate.
		_, err := db.Query(ctx, sql, nil)
		t.Logf("%s: %v", sql, err)
		var re *RejectError
		switch {
		case strings.HasPrefix(sql, "EXECUTE"):
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "EXECUTE of a prepared statement is not allowed") {
				t.Errorf("%s: got %v, want the EXECUTE refusal", sql, err)
			}
		default:
			if !errors.As(err, &re) || re.Reason != reasonNotAQuery {
				t.Errorf("%s: got %v, want the gate's refusal", sql, err)
			}
		}
		clean(sql)
	}

	// Deallocated behind the cache's back: the next hit meets 26000 and parses again.
	if _, err := db.Query(ctx, "SELECT dealloc($1)", []any{sc.m[stmtKey{read, 0}].name}); err != nil {
		t.Fatal(err)
	}
	clean("a function deallocated the cached statement")

	// A function prepares the name the cache will use next: the session check finds
	// it (from_sql) and the connection is closed, before the cache could meet it.
	pid := func() any {
		res, err := db.Query(ctx, "SELECT pg_backend_pid()", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	before := pid()
	next := fmt.Sprintf("%s%d", stmtNamePrefix, stmtsOf(t, db).next+1)
	_, err := db.Query(ctx, "SELECT prep($1)", []any{next})
	var re *RejectError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "prepared statements") {
		t.Fatalf("PREPARE %s through a function: got %v, want the session check's rejection", next, err)
	}
	if pid() == before {
		t.Errorf("the connection holding the caller's %s was reused", next)
	}
	clean("a function prepared " + next)
}

// TestStmtCacheEviction: the cache holds at most stmtCacheMax statements per
// connection, evicting the least recently used, whose statement is closed on the
// server in a later round trip; a syntax error is never cached and keeps its position.
func TestStmtCacheEviction(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	db.stmtCacheMax = 3
	ctx := context.Background()
	for i := range 6 {
		warm(t, db, fmt.Sprintf("SELECT %d AS n", i), nil)
	}
	warm(t, db, "SELECT 3 AS n", nil) // used last: kept over 4 and 5
	warm(t, db, "SELECT 6 AS n", nil)
	res, err := db.Query(ctx, `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'mcpkit\_q\_%' ORDER BY statement`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Rows), `[["SELECT 3 AS n"],["SELECT 5 AS n"],["SELECT 6 AS n"]]`; got != want {
		t.Errorf("statements on the server: %s, want %s", got, want)
	}
	sc := stmtsOf(t, db)
	if len(sc.m) != 3 || len(sc.closing) != 0 {
		t.Errorf("cache holds %d, %d to close; want 3 and 0", len(sc.m), len(sc.closing))
	}

	const bad = "SELECT id,\n  FROM t"
	for range 3 {
		_, err := db.Query(ctx, bad, nil)
		var se *SQLError
		if !errors.As(err, &se) || se.Position != 14 || se.SQLState != "42601" {
			t.Fatalf("syntax error: got %v, want 42601 at 14", err)
		}
	}
	for k := range sc.m {
		if k.sql == bad {
			t.Error("a syntax error was cached")
		}
	}
}

// TestStmtCacheLostConnection: the cache belongs to the physical connection. After
// the connection is terminated, or the pool reset, the next call runs on a new
// connection (whose cache is empty) with the right answer, and the text is cached
// there again.
func TestStmtCacheLostConnection(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx := context.Background()
	const sql = "SELECT 'x' AS x"
	for _, lose := range []struct {
		name string
		do   func()
	}{
		{"terminated", func() { terminate(t, d.URL, fillPool(t, db, 1)) }},
		{"pool reset", db.forgetConnections},
	} {
		warm(t, db, sql, nil)
		old := stmtsOf(t, db)
		lose.do()
		time.Sleep(10 * time.Millisecond)
		res, err := db.Query(ctx, sql, nil)
		if err != nil || jsonOf(t, res.Rows) != `[["x"]]` {
			t.Fatalf("%s: first call after: %v %v", lose.name, res, err)
		}
		sc := stmtsOf(t, db)
		if sc == old {
			t.Fatalf("%s: the new connection has the old connection's cache", lose.name)
		}
		warm(t, db, sql, nil)
	}
}

// TestStmtCacheOnlyPlainReads: the EXPLAIN variants (explain_query, EstimateEffect)
// and writes never prepare the caller's SQL under a name, however often they run it.
func TestStmtCacheOnlyPlainReads(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, "CREATE TABLE r (id int)")
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx := context.Background()
	for range 3 {
		if _, err := db.Explain(ctx, "SELECT id FROM r", nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Explain(ctx, "SELECT id FROM r", nil, true); err != nil {
			t.Fatal(err)
		}
		if _, err := db.EstimateEffect(ctx, "DELETE FROM r", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Execute(ctx, "INSERT INTO r VALUES (1)", nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if sc := stmtsOf(t, db); len(sc.m) != 0 || sc.next != 0 {
		t.Errorf("the cache holds %d statements and named %d", len(sc.m), sc.next)
	}
	res, err := db.Query(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'mcpkit\_q\_%'`, nil)
	if err != nil || jsonOf(t, res.Rows) != "[[0]]" {
		t.Errorf("statements of the cache on the server: %v %v", res, err)
	}
}
