package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// HypoPG (https://github.com/HypoPG/hypopg) makes hypothetical indexes: entries in the
// backend's memory that the planner sees in EXPLAIN (without ANALYZE) as if the index
// existed. hypopg_create_index writes no catalog row and takes no transaction ID
// (HypoPG 1.3.1, the version tested, gives them fake OIDs below 16384 unless
// hypopg.use_real_oids is set; a real OID comes from the OID counter, no row), so
// it works inside the READ ONLY transactions every read runs in; TestHypoPGReadOnly
// checks both facts against the server. What it does leave is session state a
// rollback does not undo: the hypothetical indexes themselves, and the library, loaded
// into the backend for the rest of its life.
//
// So a pooled connection on which HypoPG is callable is either
//   - managed: it has hypoResetName prepared, and every read pipelines
//     hypopg_reset() before its session check (one more Bind/Execute in the same
//     round trip); suggest_indexes leaves its connection managed after resetting and
//     checking it, and so does prepareConn when HypoPG is preloaded; or
//   - retired after the call: a user statement that loaded HypoPG on an unmanaged
//     connection (SELECT hypopg_create_index(…) through query) is reported by the
//     session check (checkSQL), and the connection is closed instead of returned.

const (
	hypoResetName = "mcpkit_hypo_reset"
	hypoDataKey   = "mcpkit.hypopg" // in pgconn.PgConn.CustomData: the connection is managed
)

// hypoManaged says whether pc resets HypoPG in every call.
func hypoManaged(pc *pgconn.PgConn) bool {
	managed, _ := pc.CustomData()[hypoDataKey].(bool)
	return managed
}

// manageHypoPG prepares the per-call reset of HypoPG (installed in schema) on c and
// marks c managed.
func manageHypoPG(ctx context.Context, c *pgx.Conn, schema string) error {
	if hypoManaged(c.PgConn()) {
		return nil
	}
	sql := "SELECT " + pgx.Identifier{schema, "hypopg_reset"}.Sanitize() + "()"
	if _, err := c.Prepare(ctx, hypoResetName, sql); err != nil {
		return fmt.Errorf("preparing the per-call HypoPG reset: %w", err)
	}
	c.PgConn().CustomData()[hypoDataKey] = true
	return nil
}
