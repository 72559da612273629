package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

const writeFixture = `
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 1000) g;
CREATE TABLE audit (what text);
CREATE SEQUENCE s;
CREATE FUNCTION f_write() RETURNS int LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit VALUES ('function'); RETURN 1; END $$;
ANALYZE t;
`

// TestEstimateEffect checks row estimates for DML from the plan alone: nothing runs,
// so no row, sequence or audit entry changes.
func TestEstimateEffect(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, writeFixture)
	db := openDB(t, d.URL, Options{})
	admin := connectAdmin(t, d.URL)
	ctx := context.Background()
	state := func() string {
		var s string
		if err := admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM t) || ',' || (SELECT md5(string_agg(v, ',' ORDER BY id)) FROM t) || ','
 || (SELECT count(*) FROM audit) || ',' || (SELECT last_value || ':' || is_called FROM s)`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()

	tests := []struct {
		name   string
		sql    string
		params []any
		want   EffectEstimate
	}{
		{name: "delete with filter", sql: "DELETE FROM t WHERE id <= $1", params: []any{100.0},
			want: EffectEstimate{Estimated: true, EstimatedRows: 100, Targets: []TableEffect{{"Delete", "public.t", 100}}}},
		{name: "update all", sql: "UPDATE t SET v = 'x'",
			want: EffectEstimate{Estimated: true, EstimatedRows: 1000, Targets: []TableEffect{{"Update", "public.t", 1000}}}},
		{name: "insert values", sql: "INSERT INTO t VALUES (2001, 'a'), (2002, 'b')",
			want: EffectEstimate{Estimated: true, EstimatedRows: 2, Targets: []TableEffect{{"Insert", "public.t", 2}}}},
		{name: "insert with nextval and a writing function", sql: "INSERT INTO audit SELECT nextval('s')::text || f_write() FROM generate_series(1, 10)",
			want: EffectEstimate{Estimated: true, EstimatedRows: 10, Targets: []TableEffect{{"Insert", "public.audit", 10}}}},
		{name: "writable CTE", sql: "WITH d AS (DELETE FROM t WHERE id > 990 RETURNING id) INSERT INTO audit SELECT id::text FROM d",
			want: EffectEstimate{Estimated: true, EstimatedRows: 20, Targets: []TableEffect{{"Insert", "public.audit", 10}, {"Delete", "public.t", 10}}}},
		{name: "DDL", sql: "DROP TABLE t",
			want: EffectEstimate{Note: "PostgreSQL cannot estimate the effect of this statement (it is not INSERT, UPDATE, DELETE or MERGE)"}},
		{name: "query", sql: "SELECT * FROM t",
			want: EffectEstimate{Note: "the statement does not modify data (no INSERT, UPDATE, DELETE or MERGE in its plan)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.EstimateEffect(ctx, tt.sql, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	_, err := db.EstimateEffect(ctx, "DELETE FROM nope", nil)
	var se *SQLError
	if !errors.As(err, &se) || se.SQLState != "42P01" || se.Position != 13 {
		t.Errorf("broken SQL: got %v, want 42P01 at position 13", err)
	}
	if after := state(); after != before {
		t.Errorf("estimating changed the database: %s, was %s", after, before)
	}
}

// TestExecute checks confirmed writes: committed, one statement only, errors with
// nothing committed, and no session state passed on to later calls.
func TestExecute(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, writeFixture)
	db := openDB(t, d.URL, Options{MaxConns: 1, MaxRows: 5})
	ctx := context.Background()
	count := func() string {
		res, err := db.Query(ctx, "SELECT count(*) FROM t", nil)
		if err != nil {
			t.Fatal(err)
		}
		return jsonOf(t, res.Rows)
	}

	if _, err := db.Execute(ctx, "DELETE FROM t", nil, false); !errors.Is(err, ErrNotConfirmed) {
		t.Fatalf("unconfirmed: got %v, want ErrNotConfirmed", err)
	}
	if got := count(); got != "[[1000]]" {
		t.Fatalf("unconfirmed write changed the table: %s", got)
	}

	res, err := db.Execute(ctx, "INSERT INTO t VALUES ($1, $2) RETURNING id, v", []any{1001.0, "new"}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := &ExecResult{Command: "INSERT 0 1", RowsAffected: 1, Columns: []Column{{"id", "int4"}, {"v", "text"}}, Rows: [][]any{{jsonNumber("1001"), "new"}}, RowText: RowText{Untrusted: "rows"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("insert (-want +got):\n%s", diff)
	}

	res, err = db.Execute(ctx, "UPDATE t SET v = 'u' WHERE id <= 10 RETURNING id", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsAffected != 10 || len(res.Rows) != 5 || !res.Truncated || !strings.Contains(res.Hint, "committed") {
		t.Errorf("update: got %+v, want 10 affected, 5 rows shown, truncated with a hint that it was committed", res)
	}

	if _, err := db.Execute(ctx, "DELETE FROM t; DROP TABLE t", nil, true); err == nil || !strings.Contains(err.Error(), "exactly one SQL statement") {
		t.Errorf("two statements: got %v, want refusal", err)
	}
	_, err = db.Execute(ctx, "INSERT INTO t VALUES (1, 'dup')", nil, true)
	var se *SQLError
	if !errors.As(err, &se) || se.SQLState != "23505" || se.Constraint != "t_pkey" || !strings.Contains(se.Detail, "(id)=(1)") {
		t.Errorf("duplicate key: got %v, want 23505 on t_pkey with detail", err)
	}
	_, err = db.Execute(ctx, "VACUUM t", nil, true)
	if !errors.As(err, &se) || se.Reason != reasonInTxBlock {
		t.Errorf("VACUUM: got %v, want the transaction-block reason", err)
	}
	if got := count(); got != "[[1001]]" {
		t.Errorf("after the failed writes: %s rows, want 1001", got)
	}

	// Session state set by a committed write does not reach the next call.
	for _, sql := range []string{"SELECT set_config('search_path', 'pg_temp', false)", "SET ROLE pg_read_all_data", "PREPARE p AS SELECT 1", "CREATE TEMP TABLE tmp (x int)"} {
		if _, err := db.Execute(ctx, sql, nil, true); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		res, err := db.Query(ctx, `SELECT current_setting('search_path'), current_user = session_user,
 (SELECT count(*) FROM pg_prepared_statements WHERE from_sql), pg_my_temp_schema() = 0`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, res.Rows); got != `[["\"$user\", public",true,0,true]]` {
			t.Errorf("after %s the next call sees %s", sql, got)
		}
	}
}

func jsonNumber(s string) any { return decodeNumber([]byte(s)) }
