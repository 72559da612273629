package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// outcome is how a bypass attempt must end.
type outcome int

const (
	same       outcome = iota // (owner only) as for the superuser
	harmless                  // runs, and the rollback undoes whatever it did
	readOnly                  // PostgreSQL refuses it in the READ ONLY transaction
	oneOnly                   // refused: more than one statement
	notAQuery                 // refused by the gate before running
	timedOut                  // cut by the statement timeout
	denied                    // the role lacks the privilege
	terminated                // the connection was killed; the pool recovers
	noExecute                 // EXECUTE, refused before anything is sent
)

func (o outcome) String() string {
	return [...]string{"same", "harmless", "readOnly", "oneOnly", "notAQuery", "timedOut", "denied", "terminated", "noExecute"}[o]
}

// check says what is wrong with err for outcome o, or "" when it matches.
func (o outcome) check(err error) string {
	var se *SQLError
	var re *RejectError
	isSQL, isReject := errors.As(err, &se), errors.As(err, &re)
	switch o {
	case harmless:
		if err != nil {
			return fmt.Sprintf("want success, got %v", err)
		}
		return ""
	case readOnly:
		if isSQL && (se.SQLState == "25006" || se.SQLState == "25001") && se.Reason == reasonReadOnly && strings.Contains(err.Error(), "read-only") {
			return ""
		}
	case oneOnly:
		if isSQL && se.SQLState == "42601" && se.Reason == reasonOneStatement && strings.Contains(err.Error(), "exactly one SQL statement") {
			return ""
		}
	case notAQuery:
		if isReject && re.Reason == reasonNotAQuery && strings.Contains(err.Error(), "not a query") {
			return ""
		}
	case timedOut:
		if isSQL && se.SQLState == "57014" && strings.Contains(err.Error(), "statement timeout") {
			return ""
		}
	case denied:
		if isSQL && se.SQLState == "42501" && strings.Contains(err.Error(), "permission denied") {
			return ""
		}
	case terminated:
		if isSQL && se.SQLState == "57P01" && se.Reason == reasonTerminate {
			return ""
		}
	case noExecute:
		if isReject && strings.Contains(re.Reason, "EXECUTE of a prepared statement is not allowed") {
			return ""
		}
	}
	return fmt.Sprintf("want %v, got %v", o, err)
}

// bypassCase is one attempt to write, or to leave state behind, through Query.
type bypassCase struct {
	name  string
	sql   string  // {dir} is replaced by a directory the server could write to
	super outcome // as a superuser
	owner outcome // as the (non-superuser) owner of every object; same = as super
	short bool    // run with a 200ms statement timeout
}

var bypassCorpus = []bypassCase{
	// Multi-statement strings with transaction control.
	{name: "select then commit then delete", sql: "SELECT 1; COMMIT; DELETE FROM t", super: oneOnly},
	{name: "commit first", sql: "COMMIT; DELETE FROM t", super: oneOnly},
	{name: "rollback first", sql: "ROLLBACK; DELETE FROM t", super: oneOnly},
	{name: "own transaction", sql: "BEGIN; DELETE FROM t; COMMIT", super: oneOnly},
	{name: "begin read write", sql: "BEGIN READ WRITE; INSERT INTO t VALUES (100, 'x'); COMMIT", super: oneOnly},
	{name: "set transaction then delete", sql: "SET TRANSACTION READ WRITE; DELETE FROM t", super: oneOnly},
	{name: "commit alone", sql: "COMMIT", super: notAQuery},
	{name: "commit and chain", sql: "COMMIT AND CHAIN", super: notAQuery},
	{name: "begin alone", sql: "BEGIN READ WRITE", super: notAQuery},
	{name: "savepoint", sql: "SAVEPOINT s1", super: notAQuery},
	{name: "prepare transaction", sql: "PREPARE TRANSACTION 'x'", super: notAQuery},
	// Switching the transaction or session to read-write.
	{name: "set transaction read write", sql: "SET TRANSACTION READ WRITE", super: notAQuery},
	{name: "set session characteristics", sql: "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", super: notAQuery},
	{name: "set_config default_transaction_read_only session", sql: "SELECT set_config('default_transaction_read_only', 'off', false)", super: harmless},
	{name: "set_config transaction_read_only", sql: "SELECT set_config('transaction_read_only', 'off', false)", super: readOnly},
	{name: "set_config then write", sql: "SELECT set_config('transaction_read_only', 'off', true), f_write()", super: readOnly},
	{name: "set_config statement_timeout session", sql: "SELECT set_config('statement_timeout', '0', false)", super: harmless},
	{name: "set_config search_path session", sql: "SELECT set_config('search_path', 'pg_temp', false)", super: harmless},
	{name: "set_config role session", sql: "SELECT set_config('role', 'pg_read_all_data', false)", super: harmless, owner: denied},
	{name: "set role", sql: "SET ROLE pg_read_all_data", super: notAQuery},
	{name: "reset all", sql: "RESET ALL", super: notAQuery},
	{name: "discard all", sql: "DISCARD ALL", super: notAQuery},
	{name: "alter system", sql: "ALTER SYSTEM SET work_mem = '1MB'", super: notAQuery},
	{name: "alter role set", sql: "ALTER ROLE CURRENT_USER SET statement_timeout = 0", super: notAQuery},
	// Procedural code.
	{name: "DO block", sql: "DO $$ BEGIN DELETE FROM t; END $$", super: notAQuery},
	{name: "DO block commit", sql: "DO $$ BEGIN PERFORM set_config('default_transaction_read_only', 'off', false); COMMIT; END $$", super: notAQuery},
	{name: "CALL writing procedure", sql: "CALL p_write()", super: notAQuery},
	{name: "writing function", sql: "SELECT f_write()", super: readOnly},
	// COPY, server files and programs.
	{name: "copy to program", sql: "COPY t TO PROGRAM 'touch {dir}/copy-to-program'", super: notAQuery},
	{name: "copy from program", sql: "COPY t FROM PROGRAM 'echo 999,x'", super: notAQuery},
	{name: "copy query to file", sql: "COPY (SELECT 1) TO '{dir}/copy-to-file'", super: notAQuery},
	{name: "copy to stdout", sql: "COPY t TO STDOUT", super: notAQuery},
	{name: "copy from stdin", sql: "COPY t FROM STDIN", super: notAQuery},
	// Locks and sequences.
	{name: "select for update", sql: "SELECT * FROM t FOR UPDATE", super: readOnly},
	{name: "lock table", sql: "LOCK TABLE t IN ACCESS EXCLUSIVE MODE", super: notAQuery},
	{name: "nextval", sql: "SELECT nextval('s')", super: readOnly},
	{name: "setval", sql: "SELECT setval('s', 1000)", super: readOnly},
	{name: "session advisory lock", sql: "SELECT pg_advisory_lock(42), pg_advisory_lock_shared(43)", super: harmless},
	{name: "transaction advisory lock", sql: "SELECT pg_advisory_xact_lock(44)", super: harmless},
	{name: "transaction id", sql: "SELECT txid_current()", super: harmless},
	// Large objects: allowed in a read-only transaction, undone by the rollback.
	{name: "lo_create", sql: "SELECT lo_create(0)", super: harmless},
	{name: "lo_from_bytea", sql: "SELECT lo_from_bytea(0, 'new')", super: harmless},
	{name: "lo_unlink", sql: "SELECT lo_unlink(oid) FROM pg_largeobject_metadata", super: harmless},
	{name: "lowrite", sql: "SELECT lowrite(lo_open(oid, 131072), 'overwritten') FROM pg_largeobject_metadata", super: harmless},
	{name: "lo_import", sql: "SELECT lo_import('/etc/hostname')", super: harmless, owner: denied},
	// Timeouts: cut, however the statement tries to lift them.
	{name: "pg_sleep past timeout", sql: "SELECT pg_sleep(5)", super: timedOut, short: true},
	{name: "lift timeout then sleep", sql: "SELECT set_config('statement_timeout', '0', false), pg_sleep(5)", super: timedOut, short: true},
	{name: "lift local timeout then sleep", sql: "SELECT set_config('statement_timeout', '0', true), pg_sleep(5)", super: timedOut, short: true},
	// Prepared statements.
	{name: "prepare", sql: "PREPARE x AS DELETE FROM t", super: notAQuery},
	{name: "prepare and execute", sql: "PREPARE x AS SELECT 1; EXECUTE x", super: oneOnly},
	{name: "execute unknown", sql: "EXECUTE x", super: noExecute},
	{name: "execute the per-call rollback", sql: "EXECUTE mcpkit_rollback", super: noExecute},
	{name: "deallocate", sql: "DEALLOCATE ALL", super: notAQuery},
	{name: "holdable cursor", sql: "DECLARE c CURSOR WITH HOLD FOR SELECT * FROM t", super: harmless},
	// Comment and quoting tricks.
	{name: "block comment then semicolon", sql: "SELECT 1 /* */; DELETE FROM t", super: oneOnly},
	{name: "line comment hides nothing", sql: "SELECT 1 -- ; DELETE FROM t", super: harmless},
	{name: "comment holding a statement", sql: "SELECT 1 /* ; DELETE FROM t */", super: harmless},
	{name: "comment before delete", sql: "/* ; */ DELETE FROM t", super: readOnly},
	{name: "dollar quote then statement", sql: "SELECT $$;$$; DELETE FROM t", super: oneOnly},
	{name: "tagged dollar quote", sql: "SELECT $x$ ; DELETE FROM t; $x$", super: harmless},
	{name: "escape string quote", sql: `SELECT E'\''; DELETE FROM t; --`, super: oneOnly},
	{name: "standard string backslash", sql: `SELECT '\'; DELETE FROM t; --'`, super: oneOnly},
	{name: "nested comment", sql: "SELECT 1 /* /* */ ; DELETE FROM t */", super: harmless},
	// Plain writes and DDL.
	{name: "insert", sql: "INSERT INTO t VALUES (100, 'x')", super: readOnly},
	{name: "update", sql: "UPDATE t SET v = 'x'", super: readOnly},
	{name: "delete", sql: "DELETE FROM t", super: readOnly},
	{name: "merge", sql: "MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", super: readOnly},
	{name: "writable CTE", sql: "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", super: readOnly},
	{name: "create table as", sql: "CREATE TABLE evil AS SELECT 1", super: readOnly},
	{name: "select into", sql: "SELECT 1 INTO evil", super: readOnly},
	{name: "create table", sql: "CREATE TABLE evil (x int)", super: notAQuery},
	{name: "create temp table", sql: "CREATE TEMP TABLE evil (x int)", super: notAQuery},
	{name: "drop", sql: "DROP TABLE t", super: notAQuery},
	{name: "truncate", sql: "TRUNCATE t", super: notAQuery},
	{name: "alter", sql: "ALTER TABLE t ADD COLUMN z int", super: notAQuery},
	{name: "grant", sql: "GRANT ALL ON t TO PUBLIC", super: notAQuery},
	{name: "comment on", sql: "COMMENT ON TABLE t IS 'x'", super: notAQuery},
	{name: "vacuum", sql: "VACUUM t", super: notAQuery},
	{name: "analyze", sql: "ANALYZE t", super: notAQuery},
	{name: "explain analyze delete", sql: "EXPLAIN ANALYZE DELETE FROM t", super: notAQuery},
	{name: "load", sql: "LOAD 'auto_explain'", super: notAQuery},
	// Notifications.
	{name: "listen", sql: "LISTEN ch", super: notAQuery},
	{name: "notify", sql: "NOTIFY ch", super: notAQuery},
	{name: "pg_notify", sql: "SELECT pg_notify('ch', 'x')", super: harmless},
	// Killing the connection.
	{name: "terminate own backend", sql: "SELECT pg_terminate_backend(pg_backend_pid())", super: terminated},
}

// bypassFixture is created as the owner role, so that role owns every object.
const bypassFixture = `
CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL);
INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 20) g;
CREATE TABLE audit (what text);
CREATE SEQUENCE s;
SELECT nextval('s');
CREATE PROCEDURE p_write() LANGUAGE sql AS $$ INSERT INTO audit VALUES ('procedure') $$;
CREATE FUNCTION f_write() RETURNS int LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit VALUES ('function'); RETURN 1; END $$;
SELECT lo_from_bytea(0, 'large object content');
`

// TestBypassCorpus runs every entry of the corpus through Query while connected as a
// role that could write (a superuser, then the owner of everything), and proves after
// each that nothing changed and that every pooled connection is clean.
func TestBypassCorpus(t *testing.T) {
	t.Parallel()
	if len(bypassCorpus) < 30 {
		t.Fatalf("corpus has %d entries, want at least 30", len(bypassCorpus))
	}
	d := pgtest.NewDatabase(t)
	owner := d.CreateRole(t, "owner", "NOSUPERUSER", "")
	d.Exec(t, "GRANT CREATE ON SCHEMA public TO "+owner+"; SET ROLE "+owner+";"+bypassFixture)

	// A directory the server process can write to (t.TempDir's parent is private to
	// this process), where COPY … TO PROGRAM or TO a file would leave files.
	dir, err := os.MkdirTemp("", "mcpkit-bypass-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	admin := connectAdmin(t, d.URL)
	before := snapshot(t, admin, dir)

	for _, role := range []struct {
		name, url string
		owner     bool
	}{{"superuser", d.URL, false}, {"owner", d.URLAs(owner, ""), true}} {
		t.Run(role.name, func(t *testing.T) {
			db := openDB(t, role.url, Options{MaxConns: 3})
			short := openDB(t, role.url, Options{MaxConns: 2, StatementTimeout: 200 * time.Millisecond})
			clean := connStates(t, db.Pool())[0] // a fresh connection is the reference

			for _, tc := range bypassCorpus {
				t.Run(tc.name, func(t *testing.T) {
					want := tc.super
					if role.owner && tc.owner != same {
						want = tc.owner
					}
					target := db
					if tc.short {
						target = short
					}
					_, err := target.Query(context.Background(), strings.ReplaceAll(tc.sql, "{dir}", dir), nil)
					if problem := want.check(err); problem != "" {
						t.Errorf("%s\n%s", tc.sql, problem)
					}
					if diff := cmp.Diff(before, snapshot(t, admin, dir)); diff != "" {
						t.Errorf("database changed (-before +after):\n%s", diff)
					}
					for _, pool := range []*pgxpool.Pool{db.Pool(), short.Pool()} {
						for i, st := range connStates(t, pool) {
							if diff := cmp.Diff(clean, st); diff != "" {
								t.Errorf("pooled connection %d not clean after the call (-fresh +after):\n%s", i, diff)
							}
						}
					}
				})
			}
		})
	}
}

// dbState is what must not change: table contents, the sequence, large objects,
// stored settings, prepared transactions, and files in the server-writable directory.
type dbState struct {
	Tables        map[string]string
	SeqLastValue  int64
	SeqIsCalled   bool
	LargeObjects  int64
	LOContent     string
	RoleSettings  string
	FileSettings  string
	PreparedXacts int64
	Files         []string
}

func connectAdmin(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func snapshot(t *testing.T, c *pgx.Conn, dir string) dbState {
	t.Helper()
	ctx := context.Background()
	s := dbState{Tables: map[string]string{}}
	rows, err := c.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r','p','v','m') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		var sum string
		if err := c.QueryRow(ctx, fmt.Sprintf(`SELECT md5(COALESCE(string_agg(x::text, ',' ORDER BY x::text), '')) FROM %s x`,
			pgx.Identifier{n}.Sanitize())).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		s.Tables[n] = sum
	}
	err = c.QueryRow(ctx, `SELECT last_value, is_called FROM s`).Scan(&s.SeqLastValue, &s.SeqIsCalled)
	if err != nil {
		t.Fatal(err)
	}
	err = c.QueryRow(ctx, `SELECT
 (SELECT count(*) FROM pg_largeobject_metadata),
 (SELECT md5(COALESCE(string_agg(loid || ':' || pageno || ':' || encode(data, 'hex'), ',' ORDER BY loid, pageno), '')) FROM pg_largeobject),
 (SELECT md5(COALESCE(string_agg(setdatabase || ':' || setrole || ':' || array_to_string(setconfig, ';'), ',' ORDER BY 1), ''))
   FROM pg_db_role_setting WHERE setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))),
 (SELECT md5(COALESCE(string_agg(name || '=' || setting, ',' ORDER BY name, setting), '')) FROM pg_file_settings),
 (SELECT count(*) FROM pg_prepared_xacts)`).Scan(&s.LargeObjects, &s.LOContent, &s.RoleSettings, &s.FileSettings, &s.PreparedXacts)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		s.Files = append(s.Files, filepath.Join(dir, e.Name()))
	}
	return s
}

// connState is the session state of one pooled connection, as the next call sees it.
type connState struct {
	DefaultReadOnly, TxReadOnly, StatementTimeout, SearchPath, DateStyle, ByteaOutput string
	CurrentUser, SessionUser                                                          string
	SQLPrepared, AdvisoryLocks, Listening, Cursors                                    int64
	TxStatus                                                                          string
}

// connStates acquires every connection the pool may hold at once (so none is left
// out) and reads each one's session state.
func connStates(t *testing.T, pool *pgxpool.Pool) []connState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := int(pool.Config().MaxConns)
	conns := make([]*pgxpool.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	var out []connState
	for range n {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var s connState
		s.TxStatus = string(c.Conn().PgConn().TxStatus())
		err = c.QueryRow(ctx, `SELECT current_setting('default_transaction_read_only'), current_setting('transaction_read_only'),
 current_setting('statement_timeout'), current_setting('search_path'), current_setting('DateStyle'), current_setting('bytea_output'),
 current_user::text, session_user::text,
 (SELECT count(*) FROM pg_prepared_statements WHERE from_sql),
 (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()),
 (SELECT count(*) FROM pg_listening_channels()),
 (SELECT count(*) FROM pg_cursors)`).Scan(&s.DefaultReadOnly, &s.TxReadOnly, &s.StatementTimeout, &s.SearchPath,
			&s.DateStyle, &s.ByteaOutput, &s.CurrentUser, &s.SessionUser, &s.SQLPrepared, &s.AdvisoryLocks, &s.Listening, &s.Cursors)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
