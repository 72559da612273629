package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestBypassThroughQueryTool sends a sample of the bypass corpus (bypass_test.go runs
// all of it against the DB layer) through the MCP query tool, and then suggest_indexes,
// of a read-only server (every tool registered) connected as a superuser, on a
// one-connection pool: each attempt is an isError result that says why, statements
// that change settings for the session leave nothing behind for the next call, and
// afterwards no table, row, sequence or file has changed.
func TestBypassThroughQueryTool(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{MaxConns: 1})
	c := mcpkittest.Connect(t, newServer(db, Config{}), "2026-07-28", nil)
	marker := filepath.Join(os.TempDir(), fmt.Sprintf("mcp-postgres-bypass-%d", os.Getpid()))

	const (
		oneStatement = "send exactly one SQL statement per call"
		notAQuery    = "this statement is not a query and was not run"
		readOnly     = "this server is read-only"
	)
	corpus := []struct{ sql, why string }{
		{"SELECT 1; COMMIT; DROP TABLE public.t", oneStatement},
		{"BEGIN READ WRITE; DELETE FROM public.t; COMMIT", oneStatement},
		{"SELECT 1 /* ; */; DROP TABLE public.t -- ", oneStatement},
		{"SELECT $$;$$; DELETE FROM public.t", oneStatement},
		{"COPY public.t TO PROGRAM 'touch " + marker + "'", notAQuery},
		{"COPY public.t FROM PROGRAM 'echo 99,x'", notAQuery},
		{"DO $$ BEGIN DELETE FROM public.t; END $$", notAQuery},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", notAQuery},
		{"PREPARE x AS DELETE FROM public.t", notAQuery},
		{"SELECT set_config('transaction_read_only', 'off', false)", readOnly},
		{"DELETE FROM public.t", readOnly},
		{"WITH d AS (DELETE FROM public.t RETURNING *) SELECT * FROM d", readOnly},
		{"SELECT * FROM public.t FOR UPDATE", readOnly},
		{"SELECT nextval('shop.s')", readOnly},
	}
	for _, tc := range corpus {
		res := c.CallTool("query", map[string]any{"sql": tc.sql})
		if !res.IsError || !strings.Contains(res.Text(), tc.why) {
			t.Errorf("%q: isError=%v %q; want an error saying %q", tc.sql, res.IsError, res.Text(), tc.why)
		}
	}
	// The same statements given to suggest_indexes, which takes SQL too: one statement,
	// the same gate, and then only planned (EXPLAIN without ANALYZE) in the same kind of
	// READ ONLY transaction. Writes are planned, never run: the checks below prove it.
	for _, tc := range corpus {
		res := c.CallTool("suggest_indexes", map[string]any{"sql": tc.sql})
		want := map[string]string{oneStatement: oneStatement, notAQuery: "only a query or a data-modifying statement can be explained"}[tc.why]
		if want != "" && (!res.IsError || !strings.Contains(res.Text(), want)) {
			t.Errorf("suggest_indexes %q: isError=%v %q; want an error saying %q", tc.sql, res.IsError, res.Text(), want)
		}
	}

	// Session settings changed with set_config(…, false) run, and are gone by the
	// next call on the same (only) connection.
	for _, sql := range []string{
		"SELECT set_config('search_path', 'pg_temp', false)",
		"SELECT set_config('default_transaction_read_only', 'off', false)",
	} {
		if res := c.CallTool("query", map[string]any{"sql": sql}); res.IsError {
			t.Errorf("%q: %s", sql, res.Text())
		}
	}
	out := structured(t, "settings after", c.CallTool("query", map[string]any{
		"sql": "SELECT current_setting('search_path'), current_setting('transaction_read_only'), pg_backend_pid() = $1::int", "params": []any{backendPID(t, db)}}))
	if got := jsonAt(t, out["rows"]); got != `[["\"$user\", public","on",true]]` {
		t.Errorf("next call sees %s; want the default search_path in a read-only transaction on the same connection", got)
	}

	if n := rowCount(t, db, "SELECT count(*) FROM public.t"); n != 5 {
		t.Errorf("public.t has %d rows; want 5", n)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM shop.s WHERE is_called"); n != 0 {
		t.Errorf("sequence shop.s was advanced")
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		os.Remove(marker)
		t.Errorf("COPY TO PROGRAM ran: %s exists", marker)
	}
}

// backendPID is the PID of the pool's connection (the pool holds one).
func backendPID(t *testing.T, db *DB) int32 {
	t.Helper()
	var pid int32
	if err := db.Pool().QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}
