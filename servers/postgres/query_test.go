package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// TestCaps runs queries over 10 million generated rows and checks that the row cap
// and the byte cap cut the result, mark it truncated and say how to get the rest,
// and that a result exactly at the cap is not marked.
func TestCaps(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	rowCapped := openDB(t, d.URL, Options{MaxRows: 100})
	byteCapped := openDB(t, d.URL, Options{MaxBytes: 10_000})
	ctx := context.Background()

	t.Run("row cap on 10M rows", func(t *testing.T) {
		res, err := rowCapped.Query(ctx, "SELECT generate_series(1, 10000000) AS n", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RowCount != 100 || len(res.Rows) != 100 || !res.Truncated || res.Command != "" {
			t.Fatalf("got %d rows, truncated %v, command %q; want 100, true, none", res.RowCount, res.Truncated, res.Command)
		}
		if !strings.Contains(res.Hint, "row cap") || !strings.Contains(res.Hint, "LIMIT") {
			t.Errorf("hint %q should name the row cap and suggest a LIMIT", res.Hint)
		}
		if got := jsonOf(t, res.Rows[99]); got != "[100]" {
			t.Errorf("last row %s, want [100]: rows must arrive in order", got)
		}
	})
	t.Run("byte cap on 10M rows", func(t *testing.T) {
		res, err := byteCapped.Query(ctx, "SELECT repeat('x', 100), generate_series(1, 10000000)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Truncated || res.RowCount == 0 || res.RowCount >= DefaultMaxRows {
			t.Fatalf("got %d rows, truncated %v; want some rows below the row cap, truncated", res.RowCount, res.Truncated)
		}
		if n := len(jsonOf(t, res.Rows)); n > 10_000 || n < 9_000 {
			t.Errorf("rows are %d bytes of JSON, want just under the 10000-byte cap", n)
		}
		if !strings.Contains(res.Hint, "size cap") {
			t.Errorf("hint %q should name the size cap", res.Hint)
		}
	})
	t.Run("one row over the byte cap", func(t *testing.T) {
		res, err := byteCapped.Query(ctx, "SELECT repeat('x', 20000)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RowCount != 0 || !res.Truncated || !strings.Contains(res.Hint, "single row") {
			t.Errorf("got %d rows, truncated %v, hint %q; want none, truncated, a hint about the single row", res.RowCount, res.Truncated, res.Hint)
		}
	})
	t.Run("row too large to read", func(t *testing.T) {
		// 8.5 MB in one row is over the message limit (8 MiB here): it is not read,
		// the rows before it are kept, and the pool recovers.
		res, err := byteCapped.Query(ctx, "SELECT CASE WHEN g < 3 THEN 'small' ELSE repeat('x', 8500000) END FROM generate_series(1, 3) g", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, res.Rows); got != `[["small"],["small"]]` || !res.Truncated || !strings.Contains(res.Hint, "larger than") {
			t.Errorf("got rows %s truncated %v hint %q; want the two small rows, truncated, a hint about the large row", got, res.Truncated, res.Hint)
		}
		res, err = byteCapped.Query(ctx, "SELECT repeat('x', 8500000)", nil)
		if err != nil || res.RowCount != 0 || !res.Truncated || !strings.Contains(res.Hint, "single row") {
			t.Errorf("one huge row: got %+v, %v", res, err)
		}
		if res, err := byteCapped.Query(ctx, "SELECT 1", nil); err != nil || jsonOf(t, res.Rows) != "[[1]]" {
			t.Fatalf("next call: %v %v", res, err)
		}
	})
	t.Run("exactly at the row cap", func(t *testing.T) {
		res, err := rowCapped.Query(ctx, "SELECT generate_series(1, 100)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RowCount != 100 || res.Truncated || res.Command != "SELECT 100" {
			t.Errorf("got %d rows, truncated %v, command %q; want 100, false, SELECT 100", res.RowCount, res.Truncated, res.Command)
		}
	})
	t.Run("one past the row cap", func(t *testing.T) {
		res, err := rowCapped.Query(ctx, "SELECT generate_series(1, 101)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.RowCount != 100 || !res.Truncated {
			t.Errorf("got %d rows, truncated %v; want 100, true", res.RowCount, res.Truncated)
		}
	})
	t.Run("no rows", func(t *testing.T) {
		res, err := rowCapped.Query(ctx, "SELECT 1 WHERE false", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, res); got != `{"columns":[{"name":"?column?","type":"int4"}],"rows":[],"rowCount":0,"command":"SELECT 0"}` {
			t.Errorf("empty result renders as %s", got)
		}
	})
}

// TestQueryErrors checks that errors carry SQLSTATE, message, position and the
// server's reason, rendered so a model can fix its SQL.
func TestQueryErrors(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, "CREATE TABLE t (id int PRIMARY KEY)")
	db := openDB(t, d.URL, Options{})
	tests := []struct {
		name    string
		sql     string
		params  []any
		want    *SQLError // compared without the unexported sql
		inError []string  // substrings of Error()
	}{
		{name: "undefined table", sql: "SELECT * FROM nope",
			want:    &SQLError{SQLState: "42P01", Severity: "ERROR", Message: `relation "nope" does not exist`, Position: 15},
			inError: []string{"ERROR 42P01", "LINE 1: SELECT * FROM nope\n                      ^"}},
		{name: "syntax error on line 2", sql: "SELECT id,\n  FROM t",
			want:    &SQLError{SQLState: "42601", Severity: "ERROR", Message: `syntax error at or near "FROM"`, Position: 14},
			inError: []string{"LINE 2:   FROM t\n          ^"}},
		{name: "undefined column with hint", sql: "SELECT idd FROM t",
			want: &SQLError{SQLState: "42703", Severity: "ERROR", Message: `column "idd" does not exist`, Position: 8,
				Hint: `Perhaps you meant to reference the column "t.id".`},
			inError: []string{"HINT: Perhaps you meant"}},
		{name: "division by zero", sql: "SELECT 1/0",
			want: &SQLError{SQLState: "22012", Severity: "ERROR", Message: "division by zero"}},
		{name: "param needs a cast", sql: "SELECT $1 IS NULL", params: []any{nil},
			want:    &SQLError{SQLState: "42P18", Severity: "ERROR", Message: "could not determine data type of parameter $1", Reason: reasonParamType},
			inError: []string{"$1::int"}},
		{name: "bad param text", sql: "SELECT $1::int", params: []any{"abc"},
			want:    &SQLError{SQLState: "22P02", Severity: "ERROR", Message: `invalid input syntax for type integer: "abc"`, Reason: reasonParams, Where: `unnamed portal parameter $1 = '...'`},
			inError: []string{"REASON: params must hold"}},
		{name: "too few params", sql: "SELECT $1::int + $2::int", params: []any{1.0},
			want: &SQLError{SQLState: "08P01", Severity: "ERROR", Message: `bind message supplies 1 parameters, but prepared statement "" requires 2`, Reason: reasonParams}},
		{name: "read-only", sql: "INSERT INTO t VALUES (1)",
			want:    &SQLError{SQLState: "25006", Severity: "ERROR", Message: "cannot execute INSERT in a read-only transaction", Reason: reasonReadOnly},
			inError: []string{"--allow-writes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Query(context.Background(), tt.sql, tt.params)
			var se *SQLError
			if !errors.As(err, &se) {
				t.Fatalf("got %v (%T), want *SQLError", err, err)
			}
			got := *se
			got.sql = ""
			if diff := cmp.Diff(*tt.want, got, cmp.AllowUnexported(SQLError{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, s := range tt.inError {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Error() lacks %q:\n%s", s, err)
				}
			}
		})
	}
	for _, sql := range []string{"", "  \n ", "SELECT 1\x00"} {
		_, err := db.Query(context.Background(), sql, nil)
		var re *RejectError
		if !errors.As(err, &re) {
			t.Errorf("Query(%q): got %v, want a rejection", sql, err)
		}
	}
}

// TestExplain checks plans as JSON, ANALYZE inside the read-only transaction, error
// positions relative to the caller's SQL, and refusal of what cannot be explained.
func TestExplain(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'v' FROM generate_series(1, 10000) g; ANALYZE t")
	db := openDB(t, d.URL, Options{})
	ctx := context.Background()

	type node struct {
		NodeType   string `json:"Node Type"`
		IndexName  string `json:"Index Name"`
		ActualRows *int   `json:"Actual Rows"`
	}
	planOf := func(res *ExplainResult) node {
		t.Helper()
		var doc []struct{ Plan node }
		if err := json.Unmarshal(res.Plan, &doc); err != nil || len(doc) != 1 {
			t.Fatalf("plan is not EXPLAIN JSON: %v\n%s", err, res.Plan)
		}
		return doc[0].Plan
	}

	res, err := db.Explain(ctx, "SELECT * FROM t WHERE id = $1", []any{7.0}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p := planOf(res); p.IndexName != "t_pkey" || p.ActualRows != nil || res.Analyzed {
		t.Errorf("plain explain: got %+v analyzed=%v, want an index scan on t_pkey without actual rows", p, res.Analyzed)
	}

	res, err = db.Explain(ctx, "SELECT * FROM t WHERE id > $1", []any{9990.0}, true)
	if err != nil {
		t.Fatal(err)
	}
	if p := planOf(res); p.ActualRows == nil || *p.ActualRows != 10 || !res.Analyzed {
		t.Errorf("explain analyze: got %+v, want 10 actual rows", p)
	}

	_, err = db.Explain(ctx, "DELETE FROM t", nil, true)
	var se *SQLError
	if !errors.As(err, &se) || se.SQLState != "25006" {
		t.Errorf("EXPLAIN ANALYZE DELETE: got %v, want a read-only error", err)
	}
	if res, err := db.Query(ctx, "SELECT count(*) FROM t", nil); err != nil || jsonOf(t, res.Rows) != "[[10000]]" {
		t.Errorf("rows after EXPLAIN ANALYZE DELETE: %v %v, want 10000", res, err)
	}

	_, err = db.Explain(ctx, "SELECT * FROM nope", nil, false)
	if !errors.As(err, &se) || se.Position != 15 {
		t.Errorf("error position: got %v, want position 15 as in the caller's SQL", err)
	}
	for _, sql := range []string{"COPY t TO STDOUT", "EXPLAIN SELECT 1", "VACUUM t"} {
		_, err = db.Explain(ctx, sql, nil, false)
		var re *RejectError
		if !errors.As(err, &re) || re.Reason != reasonNotExplainable {
			t.Errorf("Explain(%q): got %v, want the not-explainable rejection", sql, err)
		}
	}

	small := openDB(t, d.URL, Options{MaxBytes: 100})
	res, err = small.Explain(ctx, "SELECT * FROM t", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan != nil || !res.Truncated {
		t.Errorf("plan over the byte cap: got plan %s truncated %v, want none and truncated", res.Plan, res.Truncated)
	}
}
