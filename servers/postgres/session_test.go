package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// TestRollbackUndoesSessionSettings checks, directly against PostgreSQL, the fact the
// read path relies on: set_config(…, false) — a session-level setting — made inside a
// transaction that is rolled back does not survive it, while one in a committed
// transaction does (which is why reads always roll back).
func TestRollbackUndoesSessionSettings(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	c := connectAdmin(t, d.URL)
	ctx := context.Background()
	setting := func() string {
		var v string
		if err := c.QueryRow(ctx, "SELECT current_setting('default_transaction_read_only') || ',' || current_setting('statement_timeout')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := setting(); got != "off,0" {
		t.Fatalf("fresh session: %s, want off,0", got)
	}
	for _, end := range []string{"ROLLBACK", "COMMIT"} {
		if _, err := c.Exec(ctx, "BEGIN READ ONLY"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT set_config('default_transaction_read_only', 'on', false), set_config('statement_timeout', '1234', false)"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, end); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"ROLLBACK": "off,0", "COMMIT": "on,1234ms"}[end]
		if got := setting(); got != want {
			t.Errorf("after %s: %s, want %s", end, got, want)
		}
	}
}

// TestQueryLeavesNoSessionState runs statements that change session settings through
// Query on a one-connection pool and checks the next call sees none of it.
func TestQueryLeavesNoSessionState(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx := context.Background()
	state := func() []any {
		t.Helper()
		res, err := db.Query(ctx, `SELECT current_setting('default_transaction_read_only'), current_setting('search_path'),
 current_setting('TimeZone'), current_setting('DateStyle'), current_user::text = session_user::text,
 (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())`, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0]
	}
	first := state()
	for _, sql := range []string{
		"SELECT set_config('default_transaction_read_only', 'on', false)",
		"SELECT set_config('search_path', 'pg_temp', false)",
		"SELECT set_config('TimeZone', 'Pacific/Chatham', false)",
		"SELECT set_config('DateStyle', 'SQL, DMY', false)",
		"SELECT set_config('role', 'pg_read_all_data', false)",
		"SELECT pg_advisory_lock(1)",
	} {
		if _, err := db.Query(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if diff := cmp.Diff(first, state()); diff != "" {
			t.Errorf("after %s the next call differs (-first +now):\n%s", sql, diff)
		}
	}
}

// TestLeftoverStateDiscardsConnection exercises the post-rollback check on its own,
// bypassing the gate (which normally stops PREPARE before it runs): a statement that
// leaves a prepared statement behind fails the call and its connection is replaced.
func TestLeftoverStateDiscardsConnection(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx := context.Background()
	pid := func() any {
		res, err := db.Query(ctx, "SELECT pg_backend_pid()", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	before := pid()
	c := newCollector(db, 10, 1<<20)
	err := db.read(ctx, readSpec{sql: "PREPARE leak AS SELECT 1"}, c)
	var re *RejectError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "prepared statements") {
		t.Fatalf("got %v, want a rejection naming the prepared statement left behind", err)
	}
	after := pid()
	if before == after {
		t.Errorf("the connection (pid %v) that held the prepared statement was reused", before)
	}
	res, err := db.Query(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE from_sql", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Rows); got != "[[0]]" {
		t.Errorf("prepared statements visible to the next call: %s", got)
	}
}

// TestCancelledCall cancels a call mid-statement: the call returns promptly with an
// error saying so, and the pool goes on working.
func TestCancelledCall(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{MaxConns: 1})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	_, err := db.Query(ctx, "SELECT pg_sleep(30)", nil)
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("got %v, want a cancellation error", err)
	}
	res, err := db.Query(context.Background(), "SELECT 1", nil)
	if err != nil || jsonOf(t, res.Rows) != "[[1]]" {
		t.Fatalf("next call: %v %v", res, err)
	}
	// No session of ours is still running the sleep.
	res, err = db.Query(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Rows); got != "[[0]]" {
		t.Errorf("the cancelled statement is still running: %s", got)
	}
}
