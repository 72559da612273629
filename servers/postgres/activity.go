package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Activity bounds: what is going on is summarised, not dumped.
const (
	maxActivityRows  = 100
	maxActivityQuery = 2000
)

// ActivityReport is what the database is doing now.
type ActivityReport struct {
	Sessions     []Session  `json:"sessions" jsonschema_description:"Client sessions that are not idle (running, idle in transaction, waiting), longest-running first; this call's own session excluded"`
	WaitingLocks []LockWait `json:"waitingLocks" jsonschema_description:"Lock requests that are waiting, with the sessions blocking them"`
	RowText
	mcpkit.Truncation
}

// Session is one non-idle backend from pg_stat_activity.
type Session struct {
	PID            int32      `json:"pid" jsonschema_description:"Backend process id"`
	User           string     `json:"user" jsonschema_description:"Role name"`
	Database       string     `json:"database" jsonschema_description:"Database name"`
	Application    string     `json:"application,omitempty" jsonschema_description:"application_name of the client"`
	Client         string     `json:"client,omitempty" jsonschema_description:"Client address; empty for a Unix socket"`
	State          string     `json:"state" jsonschema_description:"active, idle in transaction, idle in transaction (aborted), fastpath function call, disabled"`
	WaitEventType  string     `json:"waitEventType,omitempty" jsonschema_description:"What kind of wait the backend is in, e.g. Lock, IO, Client"`
	WaitEvent      string     `json:"waitEvent,omitempty" jsonschema_description:"The wait event, e.g. relation, transactionid, ClientRead"`
	TransactionAge float64    `json:"transactionSeconds,omitempty" jsonschema_description:"Seconds since the current transaction began"`
	QueryStart     *time.Time `json:"queryStart,omitempty" jsonschema_description:"When the current (or last) query started, RFC 3339"`
	QuerySeconds   float64    `json:"querySeconds,omitempty" jsonschema_description:"Seconds since the current (or last) query started"`
	Query          string     `json:"query" jsonschema_description:"Text of the current (or last) query, truncated to 2000 bytes; visible only for the own role's sessions unless the role has pg_read_all_stats"`
	BlockedByPIDs  []int32    `json:"blockedBy,omitempty" jsonschema_description:"PIDs of the sessions blocking this one (pg_blocking_pids)"`
	QueryTruncated bool       `json:"queryTruncated,omitempty" jsonschema_description:"True when query was cut"`
}

// LockWait is one lock request that has not been granted.
type LockWait struct {
	PID           int32   `json:"pid" jsonschema_description:"Backend waiting for the lock"`
	LockType      string  `json:"lockType" jsonschema_description:"relation, tuple, transactionid, advisory, …"`
	Mode          string  `json:"mode" jsonschema_description:"Requested lock mode, e.g. AccessExclusiveLock"`
	Relation      string  `json:"relation,omitempty" jsonschema_description:"The table or index, for relation and tuple locks"`
	BlockedByPIDs []int32 `json:"blockedBy" jsonschema_description:"PIDs of the sessions holding or queued ahead for a conflicting lock"`
}

// Activity reports the non-idle sessions of the server (pg_stat_activity) and the
// lock requests that are waiting (pg_locks), each list bounded to 100 entries.
func (db *DB) Activity(ctx context.Context) (*ActivityReport, error) {
	out := &ActivityReport{Sessions: []Session{}, WaitingLocks: []LockWait{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT a.pid, COALESCE(a.usename, ''), COALESCE(a.datname, ''), COALESCE(a.application_name, ''),
 COALESCE(host(a.client_addr), ''), COALESCE(a.state, ''), COALESCE(a.wait_event_type, ''), COALESCE(a.wait_event, ''),
 COALESCE(EXTRACT(epoch FROM clock_timestamp() - a.xact_start)::float8, 0),
 a.query_start, COALESCE(EXTRACT(epoch FROM clock_timestamp() - a.query_start)::float8, 0),
 left(COALESCE(a.query, ''), $2), length(a.query) > $2, pg_catalog.pg_blocking_pids(a.pid)
 FROM pg_catalog.pg_stat_activity a
 WHERE a.backend_type = 'client backend' AND a.pid <> pg_catalog.pg_backend_pid() AND a.state IS DISTINCT FROM 'idle'
 ORDER BY a.query_start NULLS LAST
 LIMIT $1`, maxActivityRows+1, maxActivityQuery)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s Session
			var truncated *bool
			if err := rows.Scan(&s.PID, &s.User, &s.Database, &s.Application, &s.Client, &s.State, &s.WaitEventType,
				&s.WaitEvent, &s.TransactionAge, &s.QueryStart, &s.QuerySeconds, &s.Query, &truncated, &s.BlockedByPIDs); err != nil {
				rows.Close()
				return err
			}
			s.Query = mcpkitClean(s.Query, maxActivityQuery)
			s.Application = mcpkitClean(s.Application, 200)
			s.QueryTruncated = truncated != nil && *truncated
			if len(s.BlockedByPIDs) == 0 {
				s.BlockedByPIDs = nil
			}
			out.Sessions = append(out.Sessions, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}

		rows, err = tx.Query(ctx, `SELECT l.pid, l.locktype, l.mode,
 CASE WHEN l.relation IS NOT NULL AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
   THEN l.relation::regclass::text ELSE '' END,
 pg_catalog.pg_blocking_pids(l.pid)
 FROM pg_catalog.pg_locks l
 WHERE NOT l.granted
 ORDER BY l.pid
 LIMIT $1`, maxActivityRows+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var w LockWait
			if err := rows.Scan(&w.PID, &w.LockType, &w.Mode, &w.Relation, &w.BlockedByPIDs); err != nil {
				return err
			}
			out.WaitingLocks = append(out.WaitingLocks, w)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	var cut1, cut2 bool
	out.Sessions, cut1 = mcpkit.CapSlice(out.Sessions, maxActivityRows)
	out.WaitingLocks, cut2 = mcpkit.CapSlice(out.WaitingLocks, maxActivityRows)
	if cut1 || cut2 {
		out.Cut(fmt.Sprintf("only the first %d sessions and %d waiting locks are shown; query pg_stat_activity and pg_locks with filters for the rest", maxActivityRows, maxActivityRows))
	}
	if len(out.Sessions) > 0 {
		out.RowText = rowTextIn("query, application")
	}
	return out, nil
}
