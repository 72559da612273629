package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Bounds of suggest_indexes.
const (
	defaultAdviseQueries  = 5
	maxAdviseQueries      = 10
	maxCandidatesPerQuery = 8
	maxAdviseQueryText    = 1000
	maxSuggestions        = 20
	// minAdviseSpeedup is the planner cost ratio (before / after) a measured index
	// must reach for one query to be suggested: a cost drop of at least 10%.
	minAdviseSpeedup = 1.1
)

// adviseStmt is the protocol-level statement a parameterized query is prepared as
// for its generic plan (EXPLAIN EXECUTE); it is closed after each use and at the end.
const adviseStmt = "mcpkit_advise"

// explainPrefix is what the advisor puts in front of a statement to plan it.
const explainPrefix = "EXPLAIN (FORMAT JSON, VERBOSE) "

// IndexAdvice is suggest_indexes' answer.
type IndexAdvice struct {
	Measured bool              `json:"measured" jsonschema_description:"True when HypoPG measured the candidates"`
	Missing  string            `json:"missing,omitempty" jsonschema_description:"What is missing, and the setup"`
	Queries  []AdvisedQuery    `json:"queries" jsonschema_description:"Queries analyzed; effects refer to them by position"`
	Indexes  []IndexSuggestion `json:"indexes" jsonschema_description:"Suggestions, best first; nothing is created"`
	LeftOut  []LeftOutQuery    `json:"leftOut,omitempty" jsonschema_description:"Workload statements passed over because they cannot be planned here (e.g. writes under a read role), with why; the next ones took their places"`
	RowText
	mcpkit.Truncation
}

// AdvisedQuery is one query analyzed.
type AdvisedQuery struct {
	Query       string  `json:"query" jsonschema_description:"The query (first 1000 bytes)"`
	Calls       int64   `json:"calls,omitempty" jsonschema_description:"Executions (workload)"`
	TotalMs     float64 `json:"totalMs,omitempty" jsonschema_description:"Total execution time in ms (workload)"`
	GenericPlan bool    `json:"genericPlan,omitempty" jsonschema_description:"Planned without parameter values"`
	Cost        float64 `json:"cost,omitempty" jsonschema_description:"Planner's total cost now"`
	Candidates  int     `json:"candidates" jsonschema_description:"Candidates found in its plan"`
}

// IndexSuggestion is one index to consider.
type IndexSuggestion struct {
	Table          string        `json:"table" jsonschema_description:"Schema-qualified table"`
	Columns        []string      `json:"columns" jsonschema_description:"Index columns in order"`
	Reason         string        `json:"reason" jsonschema_description:"Where the columns come from: filter, join, sort"`
	Statement      string        `json:"statement" jsonschema_description:"CREATE INDEX CONCURRENTLY to run yourself"`
	Measured       bool          `json:"measured" jsonschema_description:"False: from the plan only, not checked with HypoPG"`
	EstimatedBytes int64         `json:"estimatedBytes,omitempty" jsonschema_description:"HypoPG's size estimate"`
	Speedup        float64       `json:"speedup,omitempty" jsonschema_description:"Best cost before / after"`
	Effects        []IndexEffect `json:"effects" jsonschema_description:"Queries it helps"`
}

// IndexEffect is what an index does to one query's plan.
type IndexEffect struct {
	Query      int     `json:"query" jsonschema_description:"Position in queries"`
	CostBefore float64 `json:"costBefore,omitempty" jsonschema_description:"Planner cost without the index"`
	CostAfter  float64 `json:"costAfter,omitempty" jsonschema_description:"Planner cost with it"`
}

// SuggestIndexes proposes indexes for one statement (sql, with params for its
// placeholders or none for a generic plan) or, when sql is empty, for the top limit
// queries by total time in pg_stat_statements with at least minCalls calls. Candidates
// come from the columns in the plans' filters, joins and sorts; with HypoPG each is
// measured as a hypothetical index (planner cost before and after, size estimate),
// and only those the planner uses with a cost drop of 10% or more are returned.
// Nothing is created: every statement runs in one READ ONLY transaction that is
// rolled back, hypothetical indexes are reset before the connection returns to the
// pool, and the statements suggested are for the user to run.
func (db *DB) SuggestIndexes(ctx context.Context, sql string, params []any, limit int, minCalls int64,
	progress func(done, total int, msg string)) (*IndexAdvice, error) {
	var enc [][]byte
	if sql != "" {
		if err := checkStatementText(sql); err != nil {
			return nil, err
		}
		var err error
		if enc, err = encodeParams(params); err != nil {
			return nil, &RejectError{Reason: err.Error()}
		}
	} else if len(params) > 0 {
		return nil, &RejectError{Reason: "params need sql: pass the statement whose placeholders they fill, or neither for the workload"}
	}
	if limit <= 0 {
		limit = defaultAdviseQueries
	}
	limit = min(limit, maxAdviseQueries)

	ctx, cancel := db.callContext(ctx)
	defer cancel()
	out, err := db.suggestOnce(ctx, sql, enc, limit, minCalls, progress, true)
	if err == errRetry {
		out, err = db.suggestOnce(ctx, sql, enc, limit, minCalls, progress, false)
	}
	return out, err
}

// suggestOnce is one attempt of SuggestIndexes on one pooled connection. With
// mayRetry, a connection found lost at BEGIN (which did nothing) resets the pool and
// yields errRetry, as reads do (see lost.go).
func (db *DB) suggestOnce(ctx context.Context, sql string, enc [][]byte, limit int, minCalls int64,
	progress func(done, total int, msg string), mayRetry bool) (*IndexAdvice, error) {
	conn, pc, release, err := db.acquireWatched(ctx)
	if err != nil {
		return nil, err
	}
	healthy := false
	defer func() { release(healthy) }()

	a := &advisor{db: db, conn: conn, pc: pc, progress: progress}
	if err := a.begin(ctx); err != nil {
		if mayRetry && ctx.Err() == nil && lostConnection(err) {
			db.forgetConnections()
			return nil, errRetry
		}
		return nil, a.brokenError(ctx, err)
	}
	out, runErr := a.run(ctx, sql, enc, limit, minCalls)
	if err := a.finish(ctx); err != nil {
		return nil, err
	}
	healthy = true
	if runErr != nil {
		return nil, runErr
	}
	return out, nil
}

// advisor is one suggest_indexes call on one connection, inside one transaction.
type advisor struct {
	db       *DB
	conn     *pgxpool.Conn
	pc       *pgconn.PgConn
	hypo     *extInfo // HypoPG, when installed
	progress func(done, total int, msg string)
}

// begin opens the READ ONLY transaction with the statement timeout (the same prepared
// statements every read runs) and asks for generic plans of prepared statements.
func (a *advisor) begin(ctx context.Context) error {
	c := a.conn.Conn()
	if _, err := c.Exec(ctx, beginName); err != nil {
		return err
	}
	if _, err := c.Exec(ctx, setupName, string(a.db.timeoutSetting())); err != nil {
		return err
	}
	_, err := c.Exec(ctx, "SELECT pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true)")
	return err
}

// finish resets HypoPG, checks that it holds no hypothetical index and that the
// session is clean (the per-call check every read runs), and rolls back. A connection
// that used HypoPG is left managed (see hypopg.go). Any failure is an error: the
// connection is then not reused.
func (a *advisor) finish(ctx context.Context) error {
	c := a.conn.Conn()
	fail := func(err error) error { return a.brokenError(ctx, err) }
	if err := a.pc.Deallocate(ctx, adviseStmt); err != nil {
		return fail(err)
	}
	if a.pc.TxStatus() != 'T' {
		return fail(fmt.Errorf("transaction in state %q before the HypoPG reset", a.pc.TxStatus()))
	}
	if a.hypo != nil {
		if _, err := c.Exec(ctx, "SELECT "+a.hypo.qualified("hypopg_reset")+"()"); err != nil {
			return fail(err)
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+a.hypo.qualified("hypopg")+"()").Scan(&n); err != nil {
			return fail(err)
		}
		if n != 0 {
			return fail(fmt.Errorf("HypoPG still lists %d hypothetical indexes after hypopg_reset()", n))
		}
	}
	var unlocked string // pg_advisory_unlock_all() returns void
	var leftover string
	var hypoLoaded bool
	if err := c.QueryRow(ctx, checkName).Scan(&unlocked, &leftover, &hypoLoaded); err != nil {
		return fail(err)
	}
	if _, err := c.Exec(ctx, rollbackName); err != nil {
		return fail(err)
	}
	if st := a.pc.TxStatus(); st != 'I' {
		return fail(fmt.Errorf("connection not idle after the call (status %q)", st))
	}
	if leftover != "" {
		return &RejectError{Reason: fmt.Sprintf("the analysis left session state behind (%s); the connection was discarded", leftover)}
	}
	if hypoLoaded {
		if a.hypo == nil {
			return fail(errors.New("HypoPG is loaded in a session that did not use it"))
		}
		if err := manageHypoPG(ctx, c, a.hypo.schema); err != nil {
			return fail(err)
		}
	}
	return nil
}

// brokenError reports a failure of the advisor's own statements.
func (a *advisor) brokenError(ctx context.Context, err error) error {
	return a.db.brokenError(ctx, err, readSpec{})
}

// run analyzes the statement, or the workload.
func (a *advisor) run(ctx context.Context, sql string, enc [][]byte, limit int, minCalls int64) (*IndexAdvice, error) {
	c := a.conn.Conn()
	out := &IndexAdvice{Queries: []AdvisedQuery{}, Indexes: []IndexSuggestion{}}
	var err error
	if a.hypo, err = findExtension(ctx, c, "hypopg"); err != nil {
		return nil, a.brokenError(ctx, err)
	}
	out.Measured = a.hypo != nil
	if a.hypo == nil {
		out.Missing = a.hypoMissing(ctx)
	}
	queries := []AdvisedQuery{{Query: sql}}
	if sql == "" {
		var missing string
		if queries, missing, err = a.workload(ctx, limit, minCalls); err != nil {
			return nil, err
		}
		if missing != "" {
			out.Missing = strings.TrimPrefix(out.Missing+"; "+missing, "; ")
			return out, nil
		}
	}

	type agg struct {
		cand    candidateIndex
		quoted  string // schema.table (columns), quoted
		effects []IndexEffect
		speedup float64
		bytes   int64
	}
	var aggs []*agg
	byKey := map[string]*agg{}
	// In workload mode queries holds more statements than limit (see workload): one
	// that cannot be planned here is left out, saying why, and the next takes its
	// place, so that limit statements are analyzed when the workload has them.
	analyzed := queries[:0:0]
	want := len(queries)
	if sql == "" {
		want = min(limit, len(queries))
	}
	for _, cand := range queries {
		if len(analyzed) == want {
			break
		}
		q := cand
		found, err := a.analyze(ctx, &q, enc)
		if err != nil {
			if sql != "" {
				return nil, err // the caller's own statement: its error is the answer
			}
			if len(out.LeftOut) < maxLeftOut {
				text, _ := mcpkit.TruncateText(mcpkitClean(q.Query, maxAdviseQueryText), maxLeftOutText)
				out.LeftOut = append(out.LeftOut, LeftOutQuery{Query: text, Reason: skipReason(err)})
			}
			continue
		}
		qi := len(analyzed)
		analyzed = append(analyzed, q)
		qp := &analyzed[qi]
		for _, f := range found {
			g, ok := byKey[f.cand.key()]
			if !ok {
				g = &agg{cand: f.cand, quoted: f.quoted}
				byKey[f.cand.key()] = g
				aggs = append(aggs, g)
			}
			g.cand.reasons = appendNew(g.cand.reasons, f.cand.reasons...)
			if !out.Measured {
				g.effects = append(g.effects, IndexEffect{Query: qi})
				continue
			}
			if !f.used || f.after <= 0 || f.before/f.after < minAdviseSpeedup {
				continue
			}
			g.effects = append(g.effects, IndexEffect{Query: qi, CostBefore: round3(f.before), CostAfter: round3(f.after)})
			g.speedup = max(g.speedup, f.before/f.after)
			g.bytes = max(g.bytes, f.bytes)
		}
		qp.Query = mcpkitClean(qp.Query, maxAdviseQueryText)
		if a.progress != nil {
			a.progress(qi+1, want, fmt.Sprintf("analyzed %d of %d queries", qi+1, want))
		}
	}
	out.Queries = analyzed
	if len(out.Queries) > 0 {
		out.RowText = rowTextIn("query")
	}
	for _, g := range aggs {
		if len(g.effects) == 0 {
			continue
		}
		s := IndexSuggestion{Table: g.cand.schema + "." + g.cand.table, Columns: g.cand.columns,
			Reason: strings.Join(g.cand.reasons, "+"), Statement: "CREATE INDEX CONCURRENTLY ON " + g.quoted + ";",
			Measured: out.Measured, EstimatedBytes: g.bytes, Effects: g.effects}
		if g.speedup > 0 {
			s.Speedup = round3(g.speedup)
		}
		out.Indexes = append(out.Indexes, s)
	}
	slices.SortStableFunc(out.Indexes, func(x, y IndexSuggestion) int {
		switch {
		case x.Speedup != y.Speedup:
			if x.Speedup > y.Speedup {
				return -1
			}
			return 1
		case len(x.Effects) != len(y.Effects):
			return len(y.Effects) - len(x.Effects)
		}
		return len(x.Columns) - len(y.Columns)
	})
	var cut bool
	if out.Indexes, cut = mcpkit.CapSlice(out.Indexes, maxSuggestions); cut {
		out.Cut(fmt.Sprintf("only the best %d suggestions are listed: analyze one query at a time for the rest", maxSuggestions))
	}
	return out, nil
}

// hypoMissing says that HypoPG is missing and how to get it.
func (a *advisor) hypoMissing(ctx context.Context) string {
	var available bool
	_ = a.conn.Conn().QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_catalog.pg_available_extensions WHERE name = 'hypopg')").Scan(&available)
	if available {
		return fmt.Sprintf("HypoPG is available on the server but not created in database %q, so the candidates are from the plans only, "+
			"unmeasured; to measure them run CREATE EXTENSION hypopg; in this database", a.db.target.Database)
	}
	return fmt.Sprintf("HypoPG is not installed, so the candidates are from the plans only, unmeasured; to measure them install it on the "+
		"PostgreSQL server (Debian and Ubuntu: apt-get install postgresql-<major>-hypopg; or from https://github.com/HypoPG/hypopg) "+
		"and run CREATE EXTENSION hypopg; in database %q", a.db.target.Database)
}

// workload reads the top queries by total time from pg_stat_statements: statements
// of this database that may be planned (SELECT, WITH, TABLE, UPDATE, DELETE, MERGE),
// leaving out those that name pg_catalog, pg_stat_statements or HypoPG (this server's own among them).
func (a *advisor) workload(ctx context.Context, limit int, minCalls int64) ([]AdvisedQuery, string, error) {
	c := a.conn.Conn()
	pgss, err := findExtension(ctx, c, "pg_stat_statements")
	if err != nil {
		return nil, "", a.brokenError(ctx, err)
	}
	if pgss == nil {
		return nil, a.db.pgssMissing() + "; or pass sql to analyze one query", nil
	}
	total := "s.total_exec_time"
	if !pgss.atLeast(1, 8) {
		total = "s.total_time"
	}
	if _, err := c.Exec(ctx, "SAVEPOINT mcpkit_workload"); err != nil {
		return nil, "", a.brokenError(ctx, err)
	}
	rows, err := c.Query(ctx, fmt.Sprintf(`SELECT s.query, s.calls, %[1]s FROM %[2]s s
 WHERE s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AND s.calls >= $1
   AND s.query ~* '^\s*(select|with|table|update|delete|merge)\M' AND NOT (`+ownStatement+`)
 ORDER BY %[1]s DESC LIMIT $2`, total, pgss.qualified("pg_stat_statements")), minCalls, limit+workloadReserve)
	var queries []AdvisedQuery
	if err == nil {
		queries, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (AdvisedQuery, error) {
			var q AdvisedQuery
			err := r.Scan(&q.Query, &q.Calls, &q.TotalMs)
			q.TotalMs = round3(q.TotalMs)
			return q, err
		})
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "55000" {
		if _, err := c.Exec(ctx, "ROLLBACK TO SAVEPOINT mcpkit_workload"); err != nil {
			return nil, "", a.brokenError(ctx, err)
		}
		return nil, pgssNotLoaded + "; " + pgssSetup + "; or pass sql to analyze one query", nil
	}
	if err != nil {
		return nil, "", a.db.catalogError(err)
	}
	if _, err := c.Exec(ctx, "RELEASE SAVEPOINT mcpkit_workload"); err != nil {
		return nil, "", a.brokenError(ctx, err)
	}
	if len(queries) == 0 {
		return nil, fmt.Sprintf("pg_stat_statements has no plannable query of this database with at least %d calls; "+
			"run the workload first, or pass sql to analyze one query", max(minCalls, 1)), nil
	}
	return queries, "", nil
}

// Bounds of the statements suggest_indexes leaves out of a workload.
const (
	maxLeftOut      = 10  // listed
	maxLeftOutText  = 200 // bytes of each one's text
	workloadReserve = 20  // statements read beyond limit, to take the places of those left out
)

// LeftOutQuery is a workload statement suggest_indexes passed over.
type LeftOutQuery struct {
	Query  string `json:"query" jsonschema_description:"Its text (first 200 bytes)"`
	Reason string `json:"reason" jsonschema_description:"Why it cannot be planned here, e.g. ERROR 42501: permission denied"`
}

// skipReason is why a workload query was not analyzed.
func skipReason(err error) string {
	return firstLine(err.Error(), 300)
}

// measured is a candidate of one query, with its effect when HypoPG measured it.
type measured struct {
	cand          candidateIndex
	quoted        string // schema.table (columns), quoted for SQL
	used          bool
	before, after float64
	bytes         int64
}

// analyze plans one query, finds its candidates and, with HypoPG, measures each. It
// runs under a savepoint, so that an error leaves the transaction usable. Errors of
// the statement itself are SQLError or RejectError, as query and explain_query report
// them.
func (a *advisor) analyze(ctx context.Context, q *AdvisedQuery, enc [][]byte) ([]measured, error) {
	c := a.conn.Conn()
	if _, err := c.Exec(ctx, "SAVEPOINT mcpkit_query"); err != nil {
		return nil, a.brokenError(ctx, err)
	}
	found, err := a.analyzeIn(ctx, q, enc)
	end := "RELEASE SAVEPOINT mcpkit_query"
	if err != nil {
		end = "ROLLBACK TO SAVEPOINT mcpkit_query"
	}
	if _, err2 := c.Exec(ctx, end); err2 != nil {
		return nil, a.brokenError(ctx, err2)
	}
	if err != nil && a.hypo != nil {
		if _, err2 := c.Exec(ctx, "SELECT "+a.hypo.qualified("hypopg_reset")+"()"); err2 != nil {
			return nil, a.brokenError(ctx, err2)
		}
	}
	return found, err
}

func (a *advisor) analyzeIn(ctx context.Context, q *AdvisedQuery, enc [][]byte) ([]measured, error) {
	sql := q.Query
	// One statement (the extended protocol refuses several), then the gate: only a
	// statement PostgreSQL can plan parses after EXPLAIN.
	desc, err := a.pc.Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, a.sqlError(err, sql, 0, stepUserParse)
	}
	if _, err := a.pc.Prepare(ctx, "", "EXPLAIN "+sql, nil); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, &RejectError{Reason: reasonNotExplainable}
		}
		return nil, err
	}
	q.GenericPlan = len(desc.ParamOIDs) > 0 && len(enc) == 0
	plan, err := a.explain(ctx, sql, enc, len(desc.ParamOIDs), q.GenericPlan)
	if err != nil {
		return nil, err
	}
	q.Cost = round3(plan.TotalCost)
	cands, err := a.filterCandidates(ctx, planCandidates(plan))
	if err != nil {
		return nil, err
	}
	if len(cands) > maxCandidatesPerQuery {
		cands = cands[:maxCandidatesPerQuery]
	}
	q.Candidates = len(cands)
	if a.hypo == nil {
		return cands, nil
	}
	for i := range cands {
		if err := a.measure(ctx, &cands[i], sql, enc, len(desc.ParamOIDs), q.GenericPlan, plan.TotalCost); err != nil {
			return nil, err
		}
	}
	return cands, nil
}

// explain returns the plan of sql: with enc bound to its placeholders, or as a generic
// plan (prepared anew each time, so that no cached plan predates a hypothetical index).
func (a *advisor) explain(ctx context.Context, sql string, enc [][]byte, nparams int, generic bool) (*advNode, error) {
	var res *pgconn.Result
	if generic {
		if err := a.pc.Deallocate(ctx, adviseStmt); err != nil {
			return nil, err
		}
		if _, err := a.pc.Prepare(ctx, adviseStmt, sql, nil); err != nil {
			return nil, a.sqlError(err, sql, 0, stepUserParse)
		}
		nulls := strings.TrimSuffix(strings.Repeat("NULL, ", nparams), ", ")
		res = a.pc.ExecParams(ctx, explainPrefix+"EXECUTE "+adviseStmt+"("+nulls+")", nil, nil, nil, nil).Read()
		if err := a.pc.Deallocate(ctx, adviseStmt); err != nil && res.Err == nil {
			return nil, err
		}
		if res.Err != nil {
			return nil, a.sqlError(res.Err, sql, 0, stepExecute)
		}
	} else {
		res = a.pc.ExecParams(ctx, explainPrefix+sql, enc, nil, nil, nil).Read()
		if res.Err != nil {
			return nil, a.sqlError(res.Err, sql, utf8.RuneCountInString(explainPrefix), stepBind)
		}
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return nil, errors.New("EXPLAIN returned no plan")
	}
	var doc []struct {
		Plan advNode `json:"Plan"`
	}
	if err := json.Unmarshal(res.Rows[0][0], &doc); err != nil || len(doc) == 0 {
		return nil, fmt.Errorf("reading the plan: %v", err)
	}
	return &doc[0].Plan, nil
}

// sqlError turns a server error about the caller's statement into what query reports.
func (a *advisor) sqlError(err error, sql string, offset int, s step) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return newSQLError(pe, sql, offset, s, a.db.opts.StatementTimeout)
	}
	return err
}

// filterCandidates keeps the candidates on ordinary tables (and materialized views) of
// user schemas whose columns exist, drops those that the leading columns of an
// existing valid btree index (without expressions or predicate) already cover, and
// quotes them for SQL.
func (a *advisor) filterCandidates(ctx context.Context, cands []candidateIndex) ([]measured, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	var schemas, tables []string
	for _, c := range cands {
		schemas, tables = append(schemas, c.schema), append(tables, c.table)
	}
	type relInfo struct {
		quoted  string
		columns map[string]string // column name → quoted
		indexes [][]string        // leading key columns of valid, non-partial btree indexes
	}
	rels := map[string]*relInfo{}
	rows, err := a.conn.Conn().Query(ctx, `SELECT n.nspname::text, c.relname::text, format('%I.%I', n.nspname, c.relname),
 array(SELECT a.attname::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum),
 array(SELECT quote_ident(a.attname) FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum),
 array(SELECT array_to_string(array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
     JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE k.ord <= i.indnkeyatts ORDER BY k.ord), chr(31))
   FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid JOIN pg_catalog.pg_am am ON am.oid = ic.relam
   WHERE i.indrelid = c.oid AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL AND am.amname = 'btree')
 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 JOIN unnest($1::text[], $2::text[]) w(s, t) ON w.s = n.nspname AND w.t = c.relname
 WHERE c.relkind IN ('r', 'm') AND `+userNamespaces, schemas, tables)
	if err != nil {
		return nil, a.db.catalogError(err)
	}
	for rows.Next() {
		var schema, table, quoted string
		var cols, qcols, idx []string
		if err := rows.Scan(&schema, &table, &quoted, &cols, &qcols, &idx); err != nil {
			rows.Close()
			return nil, a.db.catalogError(err)
		}
		ri := &relInfo{quoted: quoted, columns: map[string]string{}}
		for i, c := range cols {
			ri.columns[c] = qcols[i]
		}
		for _, ix := range idx {
			ri.indexes = append(ri.indexes, strings.Split(ix, "\x1f"))
		}
		rels[schema+"\x00"+table] = ri
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, a.db.catalogError(err)
	}
	var out []measured
next:
	for _, c := range cands {
		ri := rels[c.schema+"\x00"+c.table]
		if ri == nil {
			continue
		}
		var q []string
		for _, col := range c.columns {
			qc, ok := ri.columns[col]
			if !ok {
				continue next
			}
			q = append(q, qc)
		}
		for _, ix := range ri.indexes {
			if len(ix) >= len(c.columns) && slices.Equal(ix[:len(c.columns)], c.columns) {
				continue next
			}
		}
		out = append(out, measured{cand: c, quoted: ri.quoted + " (" + strings.Join(q, ", ") + ")"})
	}
	return out, nil
}

// measure creates m as a hypothetical index, plans the query again and drops it, under
// a savepoint: an index HypoPG cannot simulate is left unmeasured (not used).
func (a *advisor) measure(ctx context.Context, m *measured, sql string, enc [][]byte, nparams int, generic bool, before float64) error {
	c := a.conn.Conn()
	if _, err := c.Exec(ctx, "SAVEPOINT mcpkit_candidate"); err != nil {
		return a.brokenError(ctx, err)
	}
	err := func() error {
		var oid uint32
		var name string
		if err := c.QueryRow(ctx, "SELECT indexrelid, indexname FROM "+a.hypo.qualified("hypopg_create_index")+"($1)",
			"CREATE INDEX ON "+m.quoted).Scan(&oid, &name); err != nil {
			return err
		}
		plan, err := a.explain(ctx, sql, enc, nparams, generic)
		if err != nil {
			return err
		}
		m.before, m.after, m.used = before, plan.TotalCost, plan.usesIndex(name)
		if err := c.QueryRow(ctx, "SELECT "+a.hypo.qualified("hypopg_relation_size")+"($1)", oid).Scan(&m.bytes); err != nil {
			return err
		}
		_, err = c.Exec(ctx, "SELECT "+a.hypo.qualified("hypopg_drop_index")+"($1)", oid)
		return err
	}()
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		m.used = false
		if _, err := c.Exec(ctx, "ROLLBACK TO SAVEPOINT mcpkit_candidate"); err != nil {
			return a.brokenError(ctx, err)
		}
		if _, err := c.Exec(ctx, "SELECT "+a.hypo.qualified("hypopg_reset")+"()"); err != nil {
			return a.brokenError(ctx, err)
		}
		return nil
	}
	if _, err := c.Exec(ctx, "RELEASE SAVEPOINT mcpkit_candidate"); err != nil {
		return a.brokenError(ctx, err)
	}
	return nil
}
