package postgres

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// SQLError is an error reported by PostgreSQL, with everything a model needs to fix
// its SQL. Position is relative to the SQL the caller sent (not to any prefix this
// server added), and Reason says why this server refused, when it is one of its rules
// (read-only, one statement, timeout) that the statement ran into.
type SQLError struct {
	SQLState   string `json:"sqlstate" jsonschema_description:"PostgreSQL SQLSTATE error code, e.g. 42P01 (undefined table) or 25006 (read-only transaction)"`
	Severity   string `json:"severity,omitempty" jsonschema_description:"ERROR or FATAL"`
	Message    string `json:"message" jsonschema_description:"PostgreSQL's primary error message"`
	Detail     string `json:"detail,omitempty" jsonschema_description:"PostgreSQL's detail message"`
	Hint       string `json:"hint,omitempty" jsonschema_description:"PostgreSQL's hint"`
	Position   int    `json:"position,omitempty" jsonschema_description:"1-based character position of the error in the SQL that was sent"`
	Where      string `json:"where,omitempty" jsonschema_description:"Context: the function or statement the error happened in"`
	Schema     string `json:"schema,omitempty" jsonschema_description:"Schema of the object involved"`
	Table      string `json:"table,omitempty" jsonschema_description:"Table involved"`
	Column     string `json:"column,omitempty" jsonschema_description:"Column involved"`
	Constraint string `json:"constraint,omitempty" jsonschema_description:"Constraint involved"`
	Reason     string `json:"reason,omitempty" jsonschema_description:"Why this server refused the statement and what to do instead"`

	sql string // the caller's SQL, for the position excerpt
}

// Error renders the error the way psql would, plus the server's reason: the text a
// model reads to correct its statement.
func (e *SQLError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", orDefault(e.Severity, "ERROR"), e.SQLState, e.Message)
	if e.Reason != "" {
		b.WriteString("\nREASON: " + e.Reason)
	}
	if e.Detail != "" {
		b.WriteString("\nDETAIL: " + e.Detail)
	}
	if e.Hint != "" {
		b.WriteString("\nHINT: " + e.Hint)
	}
	if e.Position > 0 {
		if excerpt := positionExcerpt(e.sql, e.Position); excerpt != "" {
			b.WriteString("\n" + excerpt)
		} else {
			fmt.Fprintf(&b, "\nPOSITION: character %d", e.Position)
		}
	}
	if e.Where != "" {
		b.WriteString("\nWHERE: " + e.Where)
	}
	return b.String()
}

// RejectError is a statement this server refused before PostgreSQL ran it, or a call
// it stopped because of what the statement left behind.
type RejectError struct {
	Reason string `json:"reason" jsonschema_description:"Why the statement was refused and what is accepted instead"`
}

func (e *RejectError) Error() string { return e.Reason }

// ErrNotConfirmed is returned by Execute when the user has not confirmed the write.
var ErrNotConfirmed = errors.New("the statement was not run: a write runs only after the user confirms it")

// Reasons this server adds to errors.
const (
	reasonReadOnly = "this server is read-only: every query runs in a READ ONLY transaction that is always rolled back, " +
		"so PostgreSQL itself refuses INSERT, UPDATE, DELETE, DDL, nextval() and other writes; " +
		"writes need the server started with --allow-writes and the execute tool"
	reasonOneStatement = "send exactly one SQL statement per call: several statements separated by ';' are not accepted " +
		"(each call runs one statement over the extended query protocol)"
	reasonNotAQuery = "the query tool runs one read-only query: SELECT, WITH, VALUES or TABLE (anything PostgreSQL can EXPLAIN); " +
		"this statement is not a query and was not run (COPY, DO, CALL, SET, SHOW, EXPLAIN, PREPARE, LISTEN, VACUUM, " +
		"transaction control and other utility commands are not allowed; use current_setting('name') instead of SHOW " +
		"and the explain tool instead of EXPLAIN)"
	reasonNotExplainable = "only a query or a data-modifying statement can be explained: SELECT, WITH, VALUES, TABLE, " +
		"INSERT, UPDATE, DELETE or MERGE, without EXPLAIN in front"
	reasonInTxBlock = "this statement cannot run inside a transaction block, and this server runs every statement in one"
	reasonParamType = "add a cast to the placeholder so PostgreSQL knows its type, e.g. $1::int or $1::text"
	reasonParams    = "params must hold exactly one value per placeholder $1, $2, … in the statement, each valid text for the type the placeholder needs"
	reasonTerminate = "the database connection was terminated (for example by pg_terminate_backend, idle_session_timeout or a server shutdown); " + afterLoss
	reasonLost      = "the server closed the database connection; " + afterLoss
	// afterLoss is what a lost connection leads to (see lost.go).
	afterLoss = "this server has closed all its pooled connections, so the next call opens a new connection"
)

// newSQLError wraps a server error for the caller's sql, with positions shifted back
// by offset characters (a prefix this server added) and the server's reason for step.
func newSQLError(pe *pgconn.PgError, sql string, offset int, s step, timeout time.Duration) *SQLError {
	e := &SQLError{
		SQLState:   pe.Code,
		Severity:   pe.Severity,
		Message:    mcpkitClean(pe.Message, 4000),
		Detail:     mcpkitClean(pe.Detail, 4000),
		Hint:       mcpkitClean(pe.Hint, 4000),
		Where:      mcpkitClean(pe.Where, 2000),
		Schema:     pe.SchemaName,
		Table:      pe.TableName,
		Column:     pe.ColumnName,
		Constraint: pe.ConstraintName,
		sql:        sql,
	}
	if p := int(pe.Position) - offset; pe.Position > 0 && p > 0 {
		e.Position = p
	}
	switch {
	case pe.Code == "25006", // read_only_sql_transaction
		pe.Code == "25001" && strings.Contains(pe.Message, "read-write"): // SET TRANSACTION READ WRITE too late
		e.Reason = reasonReadOnly
	case pe.Code == "25001": // active_sql_transaction
		e.Reason = reasonInTxBlock
	case pe.Code == "42601" && strings.Contains(pe.Message, "multiple commands"):
		e.Reason = reasonOneStatement
	case pe.Code == "42P18": // indeterminate_datatype
		e.Reason = reasonParamType
	case pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout"):
		e.Reason = fmt.Sprintf("the statement ran longer than this server's statement timeout (%s) and was stopped; "+
			"make it cheaper (WHERE filters, a LIMIT, an index; check the plan with the explain tool)", timeout)
	case pe.Code == "57014":
		e.Reason = "the statement was cancelled because the call was cancelled or ran out of time"
	case strings.HasPrefix(pe.Code, "57P"): // operator intervention: terminate, shutdown
		e.Reason = reasonTerminate
	case s == stepBind && (pe.Code == "08P01" || strings.Contains(pe.Where, "portal parameter $")):
		e.Reason = reasonParams
	}
	return e
}

// positionExcerpt shows the line of sql holding the 1-based character position with a
// caret under it, as psql does.
func positionExcerpt(sql string, pos int) string {
	if sql == "" || pos < 1 || pos > utf8.RuneCountInString(sql)+1 {
		return ""
	}
	runes := []rune(sql)
	idx := pos - 1
	start := idx
	for start > 0 && runes[start-1] != '\n' {
		start--
	}
	end := idx
	for end < len(runes) && runes[end] != '\n' {
		end++
	}
	lineNo := 1 + strings.Count(string(runes[:start]), "\n")
	line := []rune(strings.ReplaceAll(string(runes[start:end]), "\t", " "))
	col := idx - start
	// Keep long lines readable: a window of 60 characters either side.
	lo, hi, prefix, suffix := 0, len(line), "", ""
	if col > 60 {
		lo, prefix = col-60, "…"
	}
	if hi-col > 60 {
		hi, suffix = col+60, "…"
	}
	head := fmt.Sprintf("LINE %d: %s", lineNo, prefix)
	return head + string(line[lo:hi]) + suffix + "\n" +
		strings.Repeat(" ", utf8.RuneCountInString(head)+col-lo) + "^"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// mcpkitClean shows the hidden characters of server text that flows back to a model
// as visible escapes (rowtext.go: never silently dropped) and bounds its length.
func mcpkitClean(s string, max int) string {
	out, _ := showHidden(s)
	out, _ = mcpkit.TruncateText(out, max)
	return out
}
