package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Bounds of top_queries.
const (
	defaultTopQueries = 10
	maxTopQueries     = 50
	maxTopQueryText   = 1500 // bytes of normalized query text per entry
)

// topQueryOrders maps top_queries' orderBy to the pg_stat_statements expression it
// sorts by (exec-time columns as named from pg_stat_statements 1.8, PostgreSQL 13).
var topQueryOrders = map[string]string{
	"total_time": "s.total_exec_time",
	"mean_time":  "s.mean_exec_time",
	"calls":      "s.calls",
	"io":         "s.shared_blks_read + s.local_blks_read + s.temp_blks_read + s.temp_blks_written",
}

// TopQueries is what pg_stat_statements says cost the most.
type TopQueries struct {
	OrderBy    string     `json:"orderBy" jsonschema_description:"Ranking used"`
	Queries    []TopQuery `json:"queries" jsonschema_description:"Most costly first"`
	StatsSince *time.Time `json:"statsSince,omitempty" jsonschema_description:"Last reset of pg_stat_statements: the numbers cover the time since"`
	Missing    string     `json:"missing,omitempty" jsonschema_description:"Why there are no statistics, and the setup"`
	OwnLeftOut int64      `json:"ownLeftOut,omitempty" jsonschema_description:"Statements of this server's own (its catalog reads), left out"`
	RowText
	mcpkit.Truncation
}

// TopQuery is one normalized statement from pg_stat_statements.
type TopQuery struct {
	Query          string  `json:"query" jsonschema_description:"Normalized text (constants as $1, $2, …)"`
	QueryTruncated bool    `json:"queryTruncated,omitempty" jsonschema_description:"True when query was cut"`
	QueryID        string  `json:"queryId" jsonschema_description:"pg_stat_statements queryid"`
	Database       string  `json:"database" jsonschema_description:"Database"`
	User           string  `json:"user" jsonschema_description:"Role"`
	Calls          int64   `json:"calls" jsonschema_description:"Executions"`
	TotalMs        float64 `json:"totalMs" jsonschema_description:"Total execution time, ms"`
	MeanMs         float64 `json:"meanMs" jsonschema_description:"Mean execution time, ms"`
	Rows           int64   `json:"rows" jsonschema_description:"Rows, all calls"`
	SharedHit      int64   `json:"sharedBlocksHit" jsonschema_description:"Shared buffer hits (blocks)"`
	BlocksRead     int64   `json:"blocksRead" jsonschema_description:"Blocks read from outside shared buffers"`
	TempBlocks     int64   `json:"tempBlocks" jsonschema_description:"Temp blocks read and written (spills)"`
	PercentOfTime  float64 `json:"percentOfTime" jsonschema_description:"Percent of the total time of the statements considered"`
}

// extInfo is an installed extension: the schema its objects live in, and its version.
type extInfo struct {
	schema, version string
}

// atLeast compares the extension's version (major.minor) with major.minor.
func (e *extInfo) atLeast(major, minor int) bool {
	ma, mi, _ := strings.Cut(e.version, ".")
	x, _ := strconv.Atoi(ma)
	y, _ := strconv.Atoi(mi)
	return x > major || (x == major && y >= minor)
}

// qualified is name in the extension's schema, quoted.
func (e *extInfo) qualified(name string) string {
	return pgx.Identifier{e.schema, name}.Sanitize()
}

// findExtension returns the extension installed in the current database, or nil.
func findExtension(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, name string) (*extInfo, error) {
	var e extInfo
	err := q.QueryRow(ctx, `SELECT n.nspname::text, e.extversion FROM pg_catalog.pg_extension e
 JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1`, name).Scan(&e.schema, &e.version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// pgssSetup is the one-line setup of pg_stat_statements.
const pgssSetup = "setup, once, as a superuser: add pg_stat_statements to shared_preload_libraries in postgresql.conf, " +
	"restart PostgreSQL, then run CREATE EXTENSION pg_stat_statements; in this database"

// pgssMissing says pg_stat_statements is not installed in the database.
func (db *DB) pgssMissing() string {
	return fmt.Sprintf("pg_stat_statements is not installed in database %q, so there are no query statistics; %s",
		db.target.Database, pgssSetup)
}

// pgssNotLoaded says the extension exists but the library is not preloaded.
const pgssNotLoaded = "the pg_stat_statements extension exists in this database but the library is not loaded " +
	"(pg_stat_statements must be in shared_preload_libraries, which needs a restart), so there are no query statistics"

// TopQueries returns the statements that cost the most, from pg_stat_statements: by
// total or mean execution time, calls, or blocks read and spilled (io); of the current
// database unless allDatabases; with at least minCalls calls. Without
// pg_stat_statements it returns no queries and Missing saying how to set it up.
func (db *DB) TopQueries(ctx context.Context, orderBy string, limit int, minCalls int64, allDatabases bool) (*TopQueries, error) {
	if orderBy == "" {
		orderBy = "total_time"
	}
	order, ok := topQueryOrders[orderBy]
	if !ok {
		return nil, &RejectError{Reason: fmt.Sprintf("orderBy %q is not one of total_time, mean_time, calls, io", orderBy)}
	}
	if limit <= 0 {
		limit = defaultTopQueries
	}
	limit = min(limit, maxTopQueries)
	out := &TopQueries{OrderBy: orderBy, Queries: []TopQuery{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		ext, err := findExtension(ctx, tx, "pg_stat_statements")
		if err != nil {
			return err
		}
		if ext == nil {
			out.Missing = db.pgssMissing()
			return nil
		}
		total, mean := "s.total_exec_time", "s.mean_exec_time"
		if !ext.atLeast(1, 8) { // before PostgreSQL 13
			total, mean = "s.total_time", "s.mean_time"
			order = strings.NewReplacer("s.total_exec_time", total, "s.mean_exec_time", mean).Replace(order)
		}
		// A savepoint, so that an unloaded library (an error) leaves the transaction usable.
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		rows, err := sp.Query(ctx, fmt.Sprintf(`SELECT COALESCE(s.queryid::text, ''), left(s.query, $1), length(s.query) > $1,
 COALESCE(d.datname::text, s.dbid::text), COALESCE(pg_catalog.pg_get_userbyid(s.userid)::text, ''),
 s.calls, %[1]s, %[2]s, s.rows, s.shared_blks_hit, s.shared_blks_read + s.local_blks_read, s.temp_blks_read + s.temp_blks_written,
 COALESCE(100 * %[1]s / NULLIF(sum(%[1]s) OVER (), 0), 0)::float8
 FROM %[3]s s LEFT JOIN pg_catalog.pg_database d ON d.oid = s.dbid
 WHERE ($2 OR s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())) AND s.calls >= $3
   AND NOT (%[5]s)
 ORDER BY %[4]s DESC, s.calls DESC LIMIT $4`, total, mean, ext.qualified("pg_stat_statements"), order, ownStatement),
			maxTopQueryText, allDatabases, minCalls, limit+1)
		if err == nil {
			for rows.Next() {
				var q TopQuery
				if err = rows.Scan(&q.QueryID, &q.Query, &q.QueryTruncated, &q.Database, &q.User, &q.Calls, &q.TotalMs, &q.MeanMs,
					&q.Rows, &q.SharedHit, &q.BlocksRead, &q.TempBlocks, &q.PercentOfTime); err != nil {
					break
				}
				q.Query = mcpkitClean(q.Query, maxTopQueryText)
				q.TotalMs, q.MeanMs, q.PercentOfTime = round3(q.TotalMs), round3(q.MeanMs), round3(q.PercentOfTime)
				out.Queries = append(out.Queries, q)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55000" { // object_not_in_prerequisite_state: not preloaded
			out.Missing = pgssNotLoaded + "; " + pgssSetup
			out.Queries = []TopQuery{}
			return sp.Rollback(ctx)
		}
		if err != nil {
			return err
		}
		if err := sp.QueryRow(ctx, `SELECT count(*) FROM `+ext.qualified("pg_stat_statements")+` s
 WHERE ($1 OR s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())) AND s.calls >= $2 AND (`+ownStatement+`)`,
			allDatabases, minCalls).Scan(&out.OwnLeftOut); err != nil {
			return err
		}
		if ext.atLeast(1, 9) { // pg_stat_statements_info, PostgreSQL 14
			var since time.Time
			if err := sp.QueryRow(ctx, "SELECT stats_reset FROM "+ext.qualified("pg_stat_statements_info")).Scan(&since); err == nil {
				out.StatsSince = &since
			}
		}
		return sp.Rollback(ctx)
	})
	if err != nil {
		return nil, err
	}
	if len(out.Queries) > 0 {
		out.RowText = rowTextIn("query")
	}
	var cut bool
	if out.Queries, cut = mcpkit.CapSlice(out.Queries, limit); cut {
		out.Cut(fmt.Sprintf("only the top %d are shown: raise limit (at most %d) or minCalls", limit, maxTopQueries))
	}
	return out, nil
}

// ownStatement is the condition on a pg_stat_statements row s that marks a statement
// of this server's own, which top_queries and the workload of suggest_indexes leave
// out: its catalog reads and the role check (every one names pg_catalog.…, as the
// server qualifies every catalog object), HypoPG and pg_stat_statements calls, the
// BEGIN READ ONLY of its transactions and its savepoints. A user's query that names
// pg_catalog.… explicitly is left out with them: the price of telling them apart
// without tagging every statement the server sends.
const ownStatement = `s.query ~* '\mpg_catalog\s*\.|\mhypopg|\mpg_stat_statements' OR s.query ~* '^\s*(begin\s+read\s+(only|write)|(release\s+|rollback\s+to\s+)?savepoint\s+mcpkit_)'`

// round3 keeps three decimals: enough for milliseconds and percentages.
func round3(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 3, 64), 64)
	return v
}
