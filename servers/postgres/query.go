package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// QueryResult is what a read-only query returned, capped.
type QueryResult struct {
	Columns  []Column `json:"columns" jsonschema_description:"Result columns in order with their PostgreSQL type names"`
	Rows     [][]any  `json:"rows" jsonschema_description:"Result rows; each row is an array of values in column order. numeric and int8 beyond 2^53 are strings; timestamps RFC 3339; bytea base64; arrays and json/jsonb as JSON"`
	RowCount int      `json:"rowCount" jsonschema_description:"Number of rows in rows"`
	Command  string   `json:"command,omitempty" jsonschema_description:"PostgreSQL command tag, e.g. SELECT 42; absent when the result was cut"`
	RowText
	mcpkit.Truncation
}

// Query runs one read-only statement with positional params ($1, $2, …) and returns
// at most MaxRows rows and about MaxBytes of them. See readonly.go for how the
// statement is kept from writing or leaving state behind. Errors from PostgreSQL are
// *SQLError; statements refused before running are *RejectError.
func (db *DB) Query(ctx context.Context, sql string, params []any) (*QueryResult, error) {
	if err := checkStatementText(sql); err != nil {
		return nil, err
	}
	enc, err := encodeParams(params)
	if err != nil {
		return nil, &RejectError{Reason: err.Error()}
	}
	c := newCollector(db, db.opts.MaxRows, db.opts.MaxBytes)
	// One row past the cap tells a cut result from one that just fits.
	spec := readSpec{sql: sql, gate: true, params: enc, maxRows: db.opts.MaxRows + 1, cacheable: true}
	if err := db.read(ctx, spec, c); err != nil {
		return nil, err
	}
	res := &QueryResult{Columns: c.cols, Rows: c.rows, RowCount: len(c.rows), Command: c.tag}
	if res.Columns == nil {
		res.Columns = []Column{}
	}
	res.RowText = c.rowText()
	if c.truncated {
		res.Command = ""
		res.Cut(db.capHint(c))
	}
	return res, nil
}

// capHint tells the model how to get what a cap left out.
func (db *DB) capHint(c *collector) string {
	switch {
	case c.bigRow && len(c.rows) == 0:
		return fmt.Sprintf("a single row is larger than the %d-byte result cap: select fewer columns or shorten long values (e.g. left(col, 200))", db.opts.MaxBytes)
	case c.bigRow:
		return fmt.Sprintf("stopped after %d rows at a row larger than the %d-byte result cap: select fewer columns or shorten long values (e.g. left(col, 200))", len(c.rows), db.opts.MaxBytes)
	case len(c.rows) >= db.opts.MaxRows:
		return fmt.Sprintf("stopped after %d rows (the row cap): add a LIMIT or WHERE filters, aggregate, or page with ORDER BY … LIMIT … OFFSET …", db.opts.MaxRows)
	default:
		return fmt.Sprintf("stopped after %d rows at about %d bytes (the size cap): select fewer columns, shorten long values, or page with ORDER BY … LIMIT …", len(c.rows), db.opts.MaxBytes)
	}
}

// ExplainResult is a query plan.
type ExplainResult struct {
	Plan     json.RawMessage `json:"plan,omitempty" jsonschema_description:"The plan exactly as EXPLAIN (FORMAT JSON) returns it"`
	Analyzed bool            `json:"analyzed" jsonschema_description:"True when the statement was executed (EXPLAIN ANALYZE) inside a read-only transaction that was rolled back; actual times and row counts are then included"`
	mcpkit.Truncation
}

// Explain returns the plan of one statement as JSON. With analyze, the statement is
// executed (EXPLAIN ANALYZE, BUFFERS) inside the same read-only, always rolled back
// transaction as Query, so a data-modifying statement fails instead of writing.
func (db *DB) Explain(ctx context.Context, sql string, params []any, analyze bool) (*ExplainResult, error) {
	if err := checkStatementText(sql); err != nil {
		return nil, err
	}
	enc, err := encodeParams(params)
	if err != nil {
		return nil, &RejectError{Reason: err.Error()}
	}
	prefix := "EXPLAIN (FORMAT JSON) "
	if analyze {
		prefix = "EXPLAIN (FORMAT JSON, ANALYZE, BUFFERS) "
	}
	c := newCollector(db, 1, db.opts.MaxBytes)
	spec := readSpec{sql: sql, exec: prefix + sql, offset: utf8.RuneCountInString(prefix), params: enc}
	if err := db.read(ctx, spec, c); err != nil {
		return nil, err
	}
	res := &ExplainResult{Analyzed: analyze}
	if len(c.rows) == 1 && len(c.rows[0]) == 1 {
		if plan, ok := c.rows[0][0].(json.RawMessage); ok {
			res.Plan = plan
		}
	}
	if res.Plan == nil {
		res.Cut(fmt.Sprintf("the plan is larger than the %d-byte result cap: explain a smaller part of the query", db.opts.MaxBytes))
	}
	return res, nil
}

// EffectEstimate is what a write would do, estimated by the planner without running it.
type EffectEstimate struct {
	Estimated     bool          `json:"estimated" jsonschema_description:"True when PostgreSQL could estimate the effect (INSERT, UPDATE, DELETE, MERGE); false for DDL and other statements"`
	EstimatedRows int64         `json:"estimatedRows" jsonschema_description:"Planner's estimate of the rows the statement would insert, update or delete, summed over all tables"`
	Targets       []TableEffect `json:"targets,omitempty" jsonschema_description:"Per table: the operation and its estimated row count"`
	Note          string        `json:"note,omitempty" jsonschema_description:"Why no estimate is available, when it is not"`
}

// TableEffect is one data-modifying node of a plan.
type TableEffect struct {
	Operation     string `json:"operation" jsonschema_description:"Insert, Update, Delete or Merge"`
	Table         string `json:"table" jsonschema_description:"Schema-qualified table name"`
	EstimatedRows int64  `json:"estimatedRows" jsonschema_description:"Planner's estimated rows affected in this table"`
}

// EstimateEffect estimates the rows a data-modifying statement would affect, with
// EXPLAIN (no ANALYZE) in a read-only transaction that is rolled back: nothing is
// executed or changed. For statements PostgreSQL cannot plan (DDL, utility commands)
// it returns Estimated false with a note; for broken SQL it returns the SQL error.
func (db *DB) EstimateEffect(ctx context.Context, sql string, params []any) (*EffectEstimate, error) {
	if err := checkStatementText(sql); err != nil {
		return nil, err
	}
	enc, err := encodeParams(params)
	if err != nil {
		return nil, &RejectError{Reason: err.Error()}
	}
	prefix := "EXPLAIN (FORMAT JSON, VERBOSE) "
	c := newCollector(db, 1, 64<<20) // the plan is read here, not returned: no tight cap
	spec := readSpec{sql: sql, exec: prefix + sql, offset: utf8.RuneCountInString(prefix), params: enc}
	if err := db.read(ctx, spec, c); err != nil {
		if re, ok := err.(*RejectError); ok && re.Reason == reasonNotExplainable {
			return &EffectEstimate{Note: "PostgreSQL cannot estimate the effect of this statement (it is not INSERT, UPDATE, DELETE or MERGE)"}, nil
		}
		return nil, err
	}
	if len(c.rows) != 1 || len(c.rows[0]) != 1 {
		return nil, fmt.Errorf("EXPLAIN returned no plan")
	}
	plan, _ := c.rows[0][0].(json.RawMessage)
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &doc); err != nil || len(doc) == 0 {
		return nil, fmt.Errorf("reading the plan: %v", err)
	}
	est := &EffectEstimate{Targets: []TableEffect{}}
	collectEffects(&doc[0].Plan, est)
	if len(est.Targets) == 0 {
		est.Note = "the statement does not modify data (no INSERT, UPDATE, DELETE or MERGE in its plan)"
		est.Targets = nil
		return est, nil
	}
	est.Estimated = true
	return est, nil
}

// planNode is the part of an EXPLAIN (FORMAT JSON) node EstimateEffect reads.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Operation string     `json:"Operation"`
	Schema    string     `json:"Schema"`
	Relation  string     `json:"Relation Name"`
	PlanRows  float64    `json:"Plan Rows"`
	Parent    string     `json:"Parent Relationship"`
	Plans     []planNode `json:"Plans"`
}

// collectEffects finds ModifyTable nodes (also inside CTEs and subplans). Such a node
// reports 0 rows unless it has RETURNING; the rows it would affect are its input's.
func collectEffects(n *planNode, est *EffectEstimate) {
	if n.NodeType == "ModifyTable" {
		rows := n.PlanRows
		for _, child := range n.Plans {
			if child.Parent == "Outer" { // the rows fed to the modification (not init plans)
				rows = child.PlanRows
				break
			}
		}
		table := n.Relation
		if n.Schema != "" {
			table = n.Schema + "." + n.Relation
		}
		est.Targets = append(est.Targets, TableEffect{Operation: n.Operation, Table: table, EstimatedRows: int64(rows)})
		est.EstimatedRows += int64(rows)
	}
	for i := range n.Plans {
		collectEffects(&n.Plans[i], est)
	}
}
