package postgres

import (
	"strings"
	"testing"
)

func TestLeadingKeyword(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"  \n\texecute mcpkit_rollback", "execute"},
		{"-- a comment\nEXECUTE x", "EXECUTE"},
		{"/* one /* nested */ still comment */ EXECUTE x", "EXECUTE"},
		{"((SELECT 1))", "SELECT"},
		{"/* unterminated", ""},
		{"-- only a comment", ""},
		{"", ""},
		{`"EXECUTE"`, ""}, // a quoted identifier is not a keyword
		{"WITH x AS (SELECT 1) SELECT * FROM x", "WITH"},
		{"EXECUTE(", "EXECUTE"},
	} {
		if got := leadingKeyword(tc.sql); got != tc.want {
			t.Errorf("leadingKeyword(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestExecuteRefusedEverywhere: every tool's statement text goes through
// checkStatementText, which refuses EXECUTE however it is written.
func TestExecuteRefusedEverywhere(t *testing.T) {
	for _, sql := range []string{"EXECUTE mcpkit_rollback", " /* x */ (execute mcpkit_check)", "-- c\nExecute q(1)"} {
		err := checkStatementText(sql)
		re, ok := err.(*RejectError)
		if !ok || !strings.Contains(re.Reason, "EXECUTE") {
			t.Errorf("checkStatementText(%q) = %v, want the EXECUTE refusal", sql, err)
		}
	}
	if err := checkStatementText("SELECT 'EXECUTE x'"); err != nil {
		t.Errorf("a query mentioning EXECUTE in a string: %v", err)
	}
}
