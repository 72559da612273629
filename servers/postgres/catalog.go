package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Catalog reads are this server's own fixed, parameterised SQL; they run through pgx
// (extended protocol) in a READ ONLY transaction with the statement timeout, rolled
// back at the end like everything else.

// Free text from the catalog (comments, view definitions) is sanitized and bounded.
const (
	maxCommentBytes = 2000
	maxViewDefBytes = 16 << 10
)

// catalogTx runs fn in a read-only transaction with the statement timeout set, and
// rolls it back. A pooled connection found lost at BEGIN (which does nothing a second
// try could repeat) resets the pool and BEGIN is tried once more on a new connection;
// see lost.go.
func (db *DB) catalogTx(ctx context.Context, fn func(context.Context, pgx.Tx) error) error {
	ctx, cancel := db.callContext(ctx)
	defer cancel()
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil && ctx.Err() == nil && lostConnection(err) {
		db.forgetConnections()
		tx, err = db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	}
	if err != nil {
		return db.catalogError(err)
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer rcancel()
		_ = tx.Rollback(rctx)
	}()
	if _, err := tx.Exec(ctx, "SELECT pg_catalog.set_config('statement_timeout', $1, true)", string(db.timeoutSetting())); err != nil {
		return db.catalogError(err)
	}
	if err := fn(ctx, tx); err != nil {
		return db.catalogError(err)
	}
	return nil
}

// catalogError reports a failed catalog read. A lost connection resets the pool (see
// lost.go), so that what the message says of the next call is true.
func (db *DB) catalogError(err error) error {
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused // the role check refused the connection: say so, as it is
	}
	lost := lostConnection(err)
	if lost {
		db.forgetConnections()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		se := newSQLError(pe, "", 0, stepExecute, db.opts.StatementTimeout)
		if lost && se.Reason == "" {
			se.Reason = reasonLost
		}
		return se
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nf
	}
	if lost {
		return fmt.Errorf("reading the catalog of %s: the connection was lost (%w); %s", db.target, err, afterLoss)
	}
	return fmt.Errorf("reading the catalog of %s: %w", db.target, err)
}

// NotFoundError is a schema or table that does not exist (or is not visible).
type NotFoundError struct {
	What string `json:"what"`
}

func (e *NotFoundError) Error() string { return e.What }

// SchemaList lists the schemas of the database.
type SchemaList struct {
	Database  string         `json:"database,omitempty" jsonschema_description:"The database listed (on a server with several)"`
	Databases []DatabaseInfo `json:"databases,omitempty" jsonschema_description:"Every database of a server with several"`
	Schemas   []Schema       `json:"schemas" jsonschema_description:"Schemas, system schemas (pg_catalog, information_schema, pg_toast) excluded"`
	RowText
	mcpkit.Truncation
}

// Schema is one schema.
type Schema struct {
	Name    string `json:"name" jsonschema_description:"Schema name"`
	Owner   string `json:"owner" jsonschema_description:"Role that owns the schema"`
	Tables  int64  `json:"tables" jsonschema_description:"Number of tables, views, materialized views and foreign tables in it (partitions not counted)"`
	Comment string `json:"comment,omitempty" jsonschema_description:"The schema's comment"`
}

// ListSchemas lists the user schemas.
func (db *DB) ListSchemas(ctx context.Context) (*SchemaList, error) {
	out := &SchemaList{Schemas: []Schema{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT n.nspname, pg_catalog.pg_get_userbyid(n.nspowner),
 (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r','v','m','p','f') AND NOT c.relispartition),
 COALESCE(left(pg_catalog.obj_description(n.oid, 'pg_namespace'), 2001), '')
 FROM pg_catalog.pg_namespace n
 WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
 ORDER BY n.nspname LIMIT $1`, db.opts.MaxRows+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s Schema
			if err := rows.Scan(&s.Name, &s.Owner, &s.Tables, &s.Comment); err != nil {
				return err
			}
			s.Comment = mcpkitClean(s.Comment, maxCommentBytes)
			out.Schemas = append(out.Schemas, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	if len(out.Schemas) > db.opts.MaxRows {
		out.Schemas = out.Schemas[:db.opts.MaxRows]
		out.Cut(fmt.Sprintf("only the first %d schemas (by name) are listed", db.opts.MaxRows))
	}
	out.RowText = commentText(len(out.Schemas) > 0)
	return out, nil
}

// TableList lists tables and table-like relations.
type TableList struct {
	Tables []TableSummary `json:"tables" jsonschema_description:"Tables, views, materialized views, partitioned and foreign tables, ordered by schema and name (partitions are not listed separately)"`
	RowText
	mcpkit.Truncation
}

// TableSummary is one relation in a listing.
type TableSummary struct {
	Schema      string `json:"schema" jsonschema_description:"Schema name"`
	Name        string `json:"name" jsonschema_description:"Table or view name"`
	Kind        string `json:"kind" jsonschema_description:"table, view, materialized view, partitioned table or foreign table" jsonschema:"enum=table,enum=view,enum=materialized view,enum=partitioned table,enum=foreign table"`
	RowEstimate *int64 `json:"rowEstimate,omitempty" jsonschema_description:"Planner's row estimate (pg_class.reltuples; summed over partitions for partitioned tables); absent when the table was never analyzed or is a view"`
	Comment     string `json:"comment,omitempty" jsonschema_description:"The table's comment"`
}

// relKinds maps pg_class.relkind to the names used in output.
var relKinds = map[string]string{
	"r": "table", "v": "view", "m": "materialized view", "p": "partitioned table", "f": "foreign table",
}

// ListTables lists the tables, views, materialized views, partitioned and foreign
// tables of schema, or of all user schemas when schema is empty.
func (db *DB) ListTables(ctx context.Context, schema string) (*TableList, error) {
	out := &TableList{Tables: []TableSummary{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if schema != "" {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return &NotFoundError{What: fmt.Sprintf("schema %q does not exist (names are case-sensitive; list_schemas shows the schemas)", schema)}
			}
		}
		rows, err := tx.Query(ctx, tableSelect+`
   AND CASE WHEN $1 = '' THEN n.nspname <> 'information_schema' AND n.nspname !~ '^pg_' ELSE n.nspname = $1 END
 ORDER BY n.nspname, c.relname LIMIT $2`, schema, db.opts.MaxRows+1)
		if err != nil {
			return err
		}
		out.Tables, err = scanTables(rows, out.Tables)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out.Tables) > db.opts.MaxRows {
		out.Tables = out.Tables[:db.opts.MaxRows]
		hint := fmt.Sprintf("only the first %d tables (by schema and name) are listed", db.opts.MaxRows)
		if schema == "" {
			hint += ": list one schema at a time"
		}
		out.Cut(hint)
	}
	out.RowText = commentText(len(out.Tables) > 0)
	return out, nil
}

// tableSelect is the select list and filter every table listing shares: tables,
// views, materialized views, partitioned and foreign tables, partitions left out.
// Callers append their own conditions (starting with AND), ORDER BY and LIMIT.
const tableSelect = `SELECT n.nspname, c.relname, c.relkind::text,
 CASE WHEN c.relkind = 'p' THEN (SELECT sum(p.reltuples) FILTER (WHERE p.reltuples >= 0)::float8
     FROM pg_catalog.pg_partition_tree(c.oid) t JOIN pg_catalog.pg_class p ON p.oid = t.relid WHERE t.isleaf)
   WHEN c.relkind IN ('r','m','f') AND c.reltuples >= 0 THEN c.reltuples::float8 END,
 COALESCE(left(pg_catalog.obj_description(c.oid, 'pg_class'), 2001), '')
 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r','v','m','p','f') AND NOT c.relispartition`

// scanTables reads the rows of a tableSelect query, appending to out.
func scanTables(rows pgx.Rows, out []TableSummary) ([]TableSummary, error) {
	defer rows.Close()
	for rows.Next() {
		var t TableSummary
		var kind string
		var est *float64
		if err := rows.Scan(&t.Schema, &t.Name, &kind, &est, &t.Comment); err != nil {
			return out, err
		}
		t.Kind = relKinds[kind]
		if est != nil {
			n := int64(*est)
			t.RowEstimate = &n
		}
		t.Comment = mcpkitClean(t.Comment, maxCommentBytes)
		out = append(out, t)
	}
	return out, rows.Err()
}

// TablesAfter returns up to limit tables of the user schemas that sort after
// (afterSchema, afterName), in (schema, name) order, and whether more follow. It is
// keyset pagination for listing every table as a resource: each page costs the same
// wherever it starts, and tables created or dropped between pages never shift the
// others. ("", "") starts at the beginning.
func (db *DB) TablesAfter(ctx context.Context, afterSchema, afterName string, limit int) ([]TableSummary, bool, error) {
	if limit <= 0 {
		limit = 100
	}
	tables := []TableSummary{}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		// name compares bytewise (C collation), the same order ORDER BY uses.
		rows, err := tx.Query(ctx, tableSelect+`
   AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
   AND (n.nspname, c.relname) > ($1::name, $2::name)
 ORDER BY n.nspname, c.relname LIMIT $3`, afterSchema, afterName, limit+1)
		if err != nil {
			return err
		}
		tables, err = scanTables(rows, tables)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if len(tables) > limit {
		return tables[:limit], true, nil
	}
	return tables, false, nil
}
