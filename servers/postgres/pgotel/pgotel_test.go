package pgotel

import "testing"

// TestStatementKind: the kind is the first keyword only; anything else is OTHER.
func TestStatementKind(t *testing.T) {
	for sql, want := range map[string]string{
		"select 1": "SELECT", "  -- c\n/* x */ (WITH a AS (SELECT 1) SELECT * FROM a)": "WITH",
		"VALUES (1)": "VALUES", "sk-live-PLANTED SELECT": "OTHER", "": "OTHER", "/* unterminated": "OTHER",
		"EXPLAIN SELECT 1": "EXPLAIN", "insert into t values (1)": "INSERT",
	} {
		if got := Kind(sql); got != want {
			t.Errorf("Kind(%q) = %q, want %q", sql, got, want)
		}
	}
}
