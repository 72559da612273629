package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// ExecResult is what a confirmed write did.
type ExecResult struct {
	Database     string   `json:"database,omitempty" jsonschema_description:"The database written (on a server with several)"`
	Command      string   `json:"command" jsonschema_description:"PostgreSQL command tag, e.g. UPDATE 3 or CREATE TABLE"`
	RowsAffected int64    `json:"rowsAffected" jsonschema_description:"Rows inserted, updated, deleted or returned, from the command tag"`
	Columns      []Column `json:"columns,omitempty" jsonschema_description:"Columns of RETURNING rows, if any"`
	Rows         [][]any  `json:"rows,omitempty" jsonschema_description:"RETURNING rows, capped like query results"`
	RowText
	mcpkit.Truncation
}

// Execute runs one statement that may write (DML or DDL) in a READ WRITE transaction
// and commits it. It exists only for servers started with --allow-writes, and runs
// only when confirmed is true: the caller must have shown the statement to the user
// and got their yes. Still exactly one statement, over the extended protocol, with the
// statement timeout. The connection is closed afterwards rather than pooled, so no
// session state a committed statement set (SET, SET ROLE, PREPARE, LISTEN, temporary
// tables) can reach a later call.
func (db *DB) Execute(ctx context.Context, sql string, params []any, confirmed bool) (*ExecResult, error) {
	if !confirmed {
		return nil, ErrNotConfirmed
	}
	if err := checkStatementText(sql); err != nil {
		return nil, err
	}
	enc, err := encodeParams(params)
	if err != nil {
		return nil, &RejectError{Reason: err.Error()}
	}
	ctx, cancel := db.callContext(ctx)
	defer cancel()
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.connError(err)
	}
	pc := conn.Conn().PgConn()
	stopWatch := watchContext(ctx, pc)
	defer func() {
		stopWatch()
		discard(conn)
	}()

	c := newCollector(db, db.opts.MaxRows, db.opts.MaxBytes)
	p := newPipeline(pc)
	p.run(stepBegin, "BEGIN READ WRITE")
	p.runPrepared(stepSetup, setupName, db.timeoutSetting())
	p.parse(stepMainParse, "", sql)
	p.bind(stepBind, "", enc)
	p.describePortal(stepDescribe)
	p.execute(stepExecute, 0) // a write runs to completion; RETURNING rows past the cap are dropped
	p.run(stepEnd, "COMMIT")
	p.sync()

	spec := readSpec{sql: sql}
	r, err := p.roundTrip(pc, c)
	if err != nil {
		// Whether a COMMIT that was in flight took effect is unknown; say so.
		return nil, fmt.Errorf("%w (if the connection was lost after the statement ran, it may or may not have been committed: check before retrying)", db.brokenError(ctx, err, spec))
	}
	if r.err != nil {
		// The server skipped everything after the error, COMMIT included; closing the
		// connection rolls the transaction back.
		return nil, newSQLError(r.err, sql, 0, r.errStep, db.opts.StatementTimeout)
	}
	if len(c.unknown) > 0 {
		_ = db.resolveTypes(ctx, conn, c) // names only; the write is already committed
	}
	res := &ExecResult{Command: c.tag, RowsAffected: pgconn.NewCommandTag(c.tag).RowsAffected()}
	if len(c.cols) > 0 {
		res.Columns, res.Rows = c.cols, c.rows
		res.RowText = c.rowText()
	}
	if c.truncated {
		res.Cut(fmt.Sprintf("the statement ran to completion and was committed; only the first %d RETURNING rows are shown", len(c.rows)))
	}
	return res, nil
}
