package postgres

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Health statuses, from best to worst. unknown is a check that could not run (its
// summary says why).
const (
	statusOK       = "ok"
	statusWarning  = "warning"
	statusCritical = "critical"
	statusUnknown  = "unknown"
)

func statusRank(s string) int {
	return map[string]int{statusOK: 0, statusUnknown: 1, statusWarning: 2, statusCritical: 3}[s]
}

// Thresholds of the health checks; the README lists them with the catalog queries.
const (
	deadMinRows          = 1000 // dead tuples below this are never reported
	deadWarnPct          = 20.0 // dead share of a table's tuples
	deadCritPct          = 50.0
	xidLimit             = 1 << 31 // transaction IDs (and multixacts) before wraparound
	xidWarnPct           = 50.0    // age as a share of xidLimit
	xidCritPct           = 75.0
	seqWarnPct           = 75.0 // values of a sequence used (limited by its column's type)
	seqCritPct           = 90.0
	connWarnPct          = 75.0 // client connections of those available to non-superusers
	connCritPct          = 90.0
	idleInTxWarnSeconds  = 300  // idle in transaction longer than this
	longTxWarnSeconds    = 3600 // a transaction open longer than this
	cacheWarnPct         = 95.0 // buffer cache hit rate below this
	cacheCritPct         = 80.0
	cacheMinBlocks       = 10000 // block accesses needed to judge a hit rate
	lagWarnSeconds       = 60
	lagCritSeconds       = 300
	slotWarnBytes        = 1 << 30 // WAL retained by a replication slot
	slotCritBytes        = 10 << 30
	maxFindingsPerCheck  = 20
	maxHealthObjectBytes = 300
)

type healthCheckDef struct {
	name string
	run  func(context.Context, pgx.Tx) (*HealthCheck, error)
}

// healthChecks are the checks in the order they run, each with what it looks at.
var healthChecks = []healthCheckDef{
	{"indexes", checkIndexes},
	{"vacuum", checkVacuum},
	{"sequences", checkSequences},
	{"constraints", checkConstraints},
	{"connections", checkConnections},
	{"cache", checkCache},
	{"replication", checkReplication},
}

// HealthReport is the outcome of the health checks.
type HealthReport struct {
	Status string        `json:"status" jsonschema_description:"Worst status of the checks run"`
	Checks []HealthCheck `json:"checks" jsonschema_description:"Per check"`
}

// HealthCheck is one check's answer.
type HealthCheck struct {
	Check        string          `json:"check" jsonschema_description:"Check name"`
	Status       string          `json:"status" jsonschema_description:"ok, warning, critical; unknown if it could not run"`
	Summary      string          `json:"summary" jsonschema_description:"What was checked, with numbers"`
	Thresholds   string          `json:"thresholds" jsonschema_description:"Thresholds applied"`
	Findings     []HealthFinding `json:"findings,omitempty" jsonschema_description:"Problems, worst first"`
	MoreFindings int             `json:"moreFindings,omitempty" jsonschema_description:"Findings left out after 20"`
}

// HealthFinding is one problem.
type HealthFinding struct {
	Status string  `json:"status" jsonschema_description:"warning or critical"`
	Kind   string  `json:"kind" jsonschema_description:"What is wrong, e.g. unused index"`
	Object string  `json:"object" jsonschema_description:"What it is about"`
	Value  float64 `json:"value" jsonschema_description:"Measured number (unit in detail)"`
	Limit  float64 `json:"threshold" jsonschema_description:"Threshold crossed"`
	Detail string  `json:"detail" jsonschema_description:"Numbers and thresholds in words"`
}

// Health runs the named checks (all when names is empty) in one read-only transaction
// that is rolled back, each under a savepoint so that one failing (e.g. for lack of a
// privilege) leaves the others running. progress, if not nil, is told after each check.
func (db *DB) Health(ctx context.Context, names []string, progress func(done, total int, check string)) (*HealthReport, error) {
	var run []string
	for _, n := range names {
		if !slices.ContainsFunc(healthChecks, func(c healthCheckDef) bool { return c.name == n }) {
			return nil, &RejectError{Reason: fmt.Sprintf("unknown check %q: use indexes, vacuum, sequences, constraints, connections, cache or replication", n)}
		}
		if !slices.Contains(run, n) {
			run = append(run, n)
		}
	}
	out := &HealthReport{Status: statusOK, Checks: []HealthCheck{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		total := len(run)
		if total == 0 {
			total = len(healthChecks)
		}
		for _, c := range healthChecks {
			if len(run) > 0 && !slices.Contains(run, c.name) {
				continue
			}
			sp, err := tx.Begin(ctx)
			if err != nil {
				return err
			}
			hc, err := c.run(ctx, sp)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				hc = &HealthCheck{Status: statusUnknown, Summary: "the check could not run: " + firstLine(err.Error(), 500)}
			}
			if err := sp.Rollback(ctx); err != nil {
				return err
			}
			hc.Check = c.name
			hc.finish()
			if statusRank(hc.Status) > statusRank(out.Status) {
				out.Status = hc.Status
			}
			out.Checks = append(out.Checks, *hc)
			if progress != nil {
				progress(len(out.Checks), total, c.name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// add records a finding.
func (hc *HealthCheck) add(status, kind, object string, value, limit float64, detail string) {
	hc.Findings = append(hc.Findings, HealthFinding{Status: status, Kind: kind, Object: mcpkitClean(object, maxHealthObjectBytes),
		Value: round3(value), Limit: limit, Detail: detail})
}

// finish sets the status from the findings (unless the check could not run), sorts
// them worst first and caps them.
func (hc *HealthCheck) finish() {
	if hc.Status == statusUnknown {
		return
	}
	hc.Status = statusOK
	for _, f := range hc.Findings {
		if statusRank(f.Status) > statusRank(hc.Status) {
			hc.Status = f.Status
		}
	}
	slices.SortStableFunc(hc.Findings, func(a, b HealthFinding) int { return statusRank(b.Status) - statusRank(a.Status) })
	if len(hc.Findings) > maxFindingsPerCheck {
		hc.MoreFindings = len(hc.Findings) - maxFindingsPerCheck
		hc.Findings = hc.Findings[:maxFindingsPerCheck]
	}
}

// grade returns critical, warning or "" for a value where higher is worse.
func grade(v, warn, crit float64) (string, float64) {
	switch {
	case v >= crit:
		return statusCritical, crit
	case v >= warn:
		return statusWarning, warn
	}
	return "", 0
}

// userNamespaces filters out system schemas (n is pg_namespace).
const userNamespaces = `n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'`

func checkIndexes(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: "invalid index: warning; duplicate (same method, key columns, operator classes, expressions and predicate " +
		"as the leading part of another index on the table, and not needed for uniqueness or a constraint): warning; " +
		"unused (0 scans since the statistics were reset, not unique, not backing a constraint): warning"}
	var total int64
	var statsSince *time.Time
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
   JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE `+userNamespaces+`),
 (SELECT stats_reset FROM pg_catalog.pg_stat_database WHERE datname = current_database())`).Scan(&total, &statsSince); err != nil {
		return nil, err
	}

	rows, err := tx.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname), format('%I.%I', n.nspname, t.relname), pg_catalog.pg_relation_size(i.indexrelid)
 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE NOT i.indisvalid AND `+userNamespaces+` ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	var invalid int
	var idx, table string
	var size int64
	if _, err := pgx.ForEachRow(rows, []any{&idx, &table, &size}, func() error {
		invalid++
		hc.add(statusWarning, "invalid index", idx, 1, 1, fmt.Sprintf("index on %s is invalid (a failed CREATE INDEX CONCURRENTLY or REINDEX): "+
			"never used by queries but still updated by writes, %s; drop it or REINDEX it", table, bytesText(size)))
		return nil
	}); err != nil {
		return nil, err
	}

	rows, err = tx.Query(ctx, `WITH idx AS (
 SELECT i.indexrelid, i.indrelid, c.relam, i.indisunique, n.nspname, c.relname, i.indnatts = i.indnkeyatts AS no_include,
   (string_to_array(i.indkey::text, ' ')::int[])[1:i.indnkeyatts] AS keys,
   (string_to_array(i.indclass::text, ' ')::oid[])[1:i.indnkeyatts] AS classes,
   (string_to_array(i.indcollation::text, ' ')::oid[])[1:i.indnkeyatts] AS colls,
   pg_catalog.pg_get_expr(i.indexprs, i.indrelid) AS exprs, pg_catalog.pg_get_expr(i.indpred, i.indrelid) AS pred,
   EXISTS (SELECT FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid) AS backs_constraint
 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE i.indisvalid AND i.indislive AND `+userNamespaces+`)
SELECT DISTINCT ON (a.indexrelid) format('%I.%I', a.nspname, a.relname), format('%I.%I', b.nspname, b.relname),
 pg_catalog.pg_get_indexdef(a.indexrelid), pg_catalog.pg_get_indexdef(b.indexrelid),
 pg_catalog.pg_relation_size(a.indexrelid), COALESCE(s.idx_scan, 0)
FROM idx a JOIN idx b ON a.indrelid = b.indrelid AND a.indexrelid <> b.indexrelid AND a.relam = b.relam
 AND a.keys = b.keys[1:cardinality(a.keys)] AND a.classes = b.classes[1:cardinality(a.classes)] AND a.colls = b.colls[1:cardinality(a.colls)]
 AND a.exprs IS NOT DISTINCT FROM b.exprs AND a.pred IS NOT DISTINCT FROM b.pred
LEFT JOIN pg_catalog.pg_stat_all_indexes s ON s.indexrelid = a.indexrelid
WHERE a.no_include AND NOT a.backs_constraint
 AND (NOT a.indisunique OR (b.indisunique AND cardinality(a.keys) = cardinality(b.keys)))
 AND (cardinality(a.keys) < cardinality(b.keys) OR b.backs_constraint OR a.indexrelid > b.indexrelid)
ORDER BY a.indexrelid, cardinality(b.keys), b.indexrelid`)
	if err != nil {
		return nil, err
	}
	var dups int
	for rows.Next() {
		var idx, other, idxDef, otherDef string
		var size, scans int64
		if err := rows.Scan(&idx, &other, &idxDef, &otherDef, &size, &scans); err != nil {
			rows.Close()
			return nil, err
		}
		dups++
		hc.add(statusWarning, "duplicate index", idx, 1, 1, fmt.Sprintf("%s is covered by %s (%s), %s, %d scans; "+
			"dropping it saves the space and the work of maintaining it on every write", mcpkitClean(idxDef, 500), other,
			mcpkitClean(otherDef, 500), bytesText(size), scans))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = tx.Query(ctx, `SELECT format('%I.%I', s.schemaname, s.indexrelname), format('%I.%I', s.schemaname, s.relname),
 pg_catalog.pg_relation_size(s.indexrelid)
 FROM pg_catalog.pg_stat_user_indexes s JOIN pg_catalog.pg_index i ON i.indexrelid = s.indexrelid
 WHERE s.idx_scan = 0 AND NOT i.indisunique AND i.indisvalid
   AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint k WHERE k.conindid = s.indexrelid)
 ORDER BY 3 DESC, 1`)
	if err != nil {
		return nil, err
	}
	since := "since the statistics were last reset"
	if statsSince != nil {
		since = "since " + statsSince.UTC().Format(time.RFC3339)
	}
	var unused int
	if _, err := pgx.ForEachRow(rows, []any{&idx, &table, &size}, func() error {
		unused++
		hc.add(statusWarning, "unused index", idx, 0, 0, fmt.Sprintf("index on %s has had 0 scans %s (on this server; a standby keeps its own counts), %s",
			table, since, bytesText(size)))
		return nil
	}); err != nil {
		return nil, err
	}
	hc.Summary = fmt.Sprintf("%d indexes in user schemas: %d invalid, %d duplicate, %d unused %s", total, invalid, dups, unused, since)
	return hc, nil
}

func checkVacuum(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: fmt.Sprintf("dead tuples (at least %d): warning at %g%% of a table's tuples, critical at %g%%; "+
		"transaction ID or multixact age of a database: warning at %g%%, critical at %g%% of the 2^31 wraparound limit",
		deadMinRows, deadWarnPct, deadCritPct, xidWarnPct, xidCritPct)}
	var tables int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_stat_user_tables`).Scan(&tables); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT format('%I.%I', s.schemaname, s.relname), s.n_live_tup, s.n_dead_tup,
 GREATEST(s.last_vacuum, s.last_autovacuum),
 COALESCE((SELECT o.option_value FROM pg_catalog.pg_options_to_table(c.reloptions) o WHERE o.option_name = 'autovacuum_enabled'), '')
 FROM pg_catalog.pg_stat_user_tables s JOIN pg_catalog.pg_class c ON c.oid = s.relid
 WHERE s.n_dead_tup >= $1 AND 100 * s.n_dead_tup::float8 / GREATEST(s.n_live_tup + s.n_dead_tup, 1) >= $2
 ORDER BY s.n_dead_tup DESC LIMIT 100`, deadMinRows, deadWarnPct)
	if err != nil {
		return nil, err
	}
	var dead int
	for rows.Next() {
		var table, autovacuum string
		var live, deadRows int64
		var last *time.Time
		if err := rows.Scan(&table, &live, &deadRows, &last, &autovacuum); err != nil {
			rows.Close()
			return nil, err
		}
		dead++
		pct := 100 * float64(deadRows) / float64(max(live+deadRows, 1))
		st, limit := grade(pct, deadWarnPct, deadCritPct)
		when := "never vacuumed"
		if last != nil {
			when = "last vacuumed " + last.UTC().Format(time.RFC3339)
		}
		if strings.EqualFold(autovacuum, "false") || autovacuum == "off" {
			when += "; autovacuum is disabled for the table"
		}
		hc.add(st, "dead tuples", table, pct, limit, fmt.Sprintf("%.1f%% dead tuples (%d dead, %d live); %s; warning at %g%%, critical at %g%% (at least %d dead); VACUUM reclaims them",
			pct, deadRows, live, when, deadWarnPct, deadCritPct, deadMinRows))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.Query(ctx, `SELECT datname::text, age(datfrozenxid)::int8, mxid_age(datminmxid)::int8 FROM pg_catalog.pg_database WHERE datallowconn ORDER BY 2 DESC`)
	if err != nil {
		return nil, err
	}
	var oldestXID, oldestMXID int64
	var oldestDB string
	for rows.Next() {
		var name string
		var xid, mxid int64
		if err := rows.Scan(&name, &xid, &mxid); err != nil {
			rows.Close()
			return nil, err
		}
		if xid > oldestXID {
			oldestXID, oldestDB = xid, name
		}
		oldestMXID = max(oldestMXID, mxid)
		for _, a := range []struct {
			what string
			age  int64
		}{{"transaction ID", xid}, {"multixact", mxid}} {
			pct := 100 * float64(a.age) / xidLimit
			if st, limit := grade(pct, xidWarnPct, xidCritPct); st != "" {
				hc.add(st, a.what+" wraparound", name, pct, limit, fmt.Sprintf("oldest unfrozen %s is %d old, %.1f%% of the %d limit (%d left); "+
					"warning at %g%%, critical at %g%%; a VACUUM (FREEZE) of the oldest tables, which long transactions and stale replication slots can block, lowers it",
					a.what, a.age, pct, int64(xidLimit), int64(xidLimit)-a.age, xidWarnPct, xidCritPct))
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hc.Summary = fmt.Sprintf("%d tables: %d with dead tuples over the threshold; oldest transaction ID age %d (database %s, %.1f%% of the limit), oldest multixact age %d",
		tables, dead, oldestXID, oldestDB, 100*float64(oldestXID)/xidLimit, oldestMXID)
	return hc, nil
}

func checkSequences(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: fmt.Sprintf("share of a sequence's values used, up to the smaller of its maximum and the maximum of the integer column it feeds: "+
		"warning at %g%%, critical at %g%%; cycling sequences are not judged", seqWarnPct, seqCritPct)}
	rows, err := tx.Query(ctx, `SELECT format('%I.%I', s.schemaname, s.sequencename), s.last_value, s.min_value, s.max_value, s.increment_by, s.cycle,
 col.colmax, COALESCE(col.colname, '')
 FROM pg_catalog.pg_sequences s
 JOIN pg_catalog.pg_namespace n ON n.nspname = s.schemaname
 JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = s.sequencename
 LEFT JOIN LATERAL (
   SELECT CASE a.atttypid WHEN 'pg_catalog.int2'::pg_catalog.regtype THEN 32767 WHEN 'pg_catalog.int4'::pg_catalog.regtype THEN 2147483647 END::int8 AS colmax,
     format('%I.%I.%I', tn.nspname, t.relname, a.attname) AS colname
   FROM pg_catalog.pg_depend d
   JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
   JOIN pg_catalog.pg_class t ON t.oid = d.refobjid JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
   WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid
     AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype IN ('a', 'i')
   LIMIT 1) col ON true
 WHERE `+userNamespaces+` AND s.last_value IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var n, cycling int
	var worst float64
	var worstName string
	for rows.Next() {
		var name, colName string
		var last, minV, maxV, inc int64
		var cycle bool
		var colMax *int64
		if err := rows.Scan(&name, &last, &minV, &maxV, &inc, &cycle, &colMax, &colName); err != nil {
			return nil, err
		}
		n++
		if cycle {
			cycling++
			continue
		}
		limit, by := maxV, "its maximum"
		if inc > 0 && colMax != nil && *colMax < maxV {
			limit, by = *colMax, "the maximum of column "+colName
		}
		var pct float64
		if inc > 0 {
			pct = 100 * (float64(last) - float64(minV) + 1) / (float64(limit) - float64(minV) + 1)
		} else {
			pct = 100 * (float64(maxV) - float64(last) + 1) / (float64(maxV) - float64(minV) + 1)
			by = "its minimum"
		}
		if pct > worst {
			worst, worstName = pct, name
		}
		if st, lim := grade(pct, seqWarnPct, seqCritPct); st != "" {
			end := limit
			if inc < 0 {
				end = minV
			}
			hc.add(st, "sequence near its limit", name, pct, lim, fmt.Sprintf("last value %d, %.1f%% of the way to %s (%d), about %d calls left at increment %d; "+
				"warning at %g%%, critical at %g%%", last, pct, by, end, int64(math.Abs(float64(end-last)/float64(inc))), inc, seqWarnPct, seqCritPct))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hc.Summary = fmt.Sprintf("%d sequences that have been used (%d cycling)", n, cycling)
	if worstName != "" {
		hc.Summary += fmt.Sprintf("; the fullest is %s at %.1f%%", worstName, worst)
	}
	return hc, nil
}

func checkConstraints(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: "a constraint that is not validated (added NOT VALID, or a failed VALIDATE): warning"}
	rows, err := tx.Query(ctx, `SELECT format('%I.%I', n.nspname, t.relname), k.conname::text,
 CASE k.contype WHEN 'f' THEN 'foreign key' WHEN 'c' THEN 'check' WHEN 'n' THEN 'not null' ELSE k.contype::text END,
 pg_catalog.pg_get_constraintdef(k.oid)
 FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class t ON t.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
 WHERE NOT k.convalidated AND `+userNamespaces+` ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		var table, name, kind, def string
		if err := rows.Scan(&table, &name, &kind, &def); err != nil {
			return nil, err
		}
		n++
		hc.add(statusWarning, "constraint not validated", table+"."+name, 1, 1, fmt.Sprintf("%s constraint %s is not validated: rows written before it was added may violate it "+
			"(ALTER TABLE %s VALIDATE CONSTRAINT %s checks them)", kind, mcpkitClean(def, 500), table, pgx.Identifier{name}.Sanitize()))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var total int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_namespace n ON n.oid = k.connamespace
 WHERE k.contype IN ('c', 'f') AND `+userNamespaces).Scan(&total); err != nil {
		return nil, err
	}
	hc.Summary = fmt.Sprintf("%d check and foreign key constraints in user schemas, %d not validated", total, n)
	return hc, nil
}

func checkConnections(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: fmt.Sprintf("client connections of max_connections minus the reserved ones: warning at %g%%, critical at %g%%; "+
		"a session idle in transaction over %d s: warning; a transaction open over %d s: warning", connWarnPct, connCritPct, idleInTxWarnSeconds, longTxWarnSeconds)}
	var clients, maxConns, reserved int64
	var states map[string]int64
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = 'client backend'),
 current_setting('max_connections')::int8,
 current_setting('superuser_reserved_connections')::int8 + COALESCE(current_setting('reserved_connections', true)::int8, 0),
 (SELECT COALESCE(jsonb_object_agg(st, n), '{}') FROM (SELECT COALESCE(state, 'unknown') AS st, count(*) AS n
   FROM pg_catalog.pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1) x)`).Scan(&clients, &maxConns, &reserved, &states); err != nil {
		return nil, err
	}
	avail := max(maxConns-reserved, 1)
	pct := 100 * float64(clients) / float64(avail)
	if st, lim := grade(pct, connWarnPct, connCritPct); st != "" {
		hc.add(st, "connections", "server", pct, lim, fmt.Sprintf("%d client connections, %.1f%% of the %d available (max_connections %d minus %d reserved); warning at %g%%, critical at %g%%",
			clients, pct, avail, maxConns, reserved, connWarnPct, connCritPct))
	}
	rows, err := tx.Query(ctx, `SELECT a.pid, COALESCE(a.usename::text, ''), COALESCE(a.datname::text, ''), a.state,
 EXTRACT(epoch FROM clock_timestamp() - a.state_change)::float8, COALESCE(EXTRACT(epoch FROM clock_timestamp() - a.xact_start)::float8, 0)
 FROM pg_catalog.pg_stat_activity a
 WHERE a.backend_type = 'client backend' AND a.pid <> pg_catalog.pg_backend_pid()
   AND ((a.state LIKE 'idle in transaction%' AND a.state_change < clock_timestamp() - make_interval(secs => $1))
     OR a.xact_start < clock_timestamp() - make_interval(secs => $2))
 ORDER BY a.xact_start LIMIT 50`, idleInTxWarnSeconds, longTxWarnSeconds)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int32
		var user, dbname, state string
		var stateSecs, xactSecs float64
		if err := rows.Scan(&pid, &user, &dbname, &state, &stateSecs, &xactSecs); err != nil {
			return nil, err
		}
		obj := fmt.Sprintf("pid %d (user %s, database %s)", pid, user, dbname)
		if strings.HasPrefix(state, "idle in transaction") && stateSecs >= idleInTxWarnSeconds {
			hc.add(statusWarning, "idle in transaction", obj, stateSecs, idleInTxWarnSeconds, fmt.Sprintf("%s for %.0f s (warning over %d s): it holds its locks "+
				"and keeps vacuum from removing dead tuples", state, stateSecs, idleInTxWarnSeconds))
		} else {
			hc.add(statusWarning, "long transaction", obj, xactSecs, longTxWarnSeconds, fmt.Sprintf("transaction open for %.0f s, now %s (warning over %d s): "+
				"it keeps vacuum from removing dead tuples", xactSecs, state, longTxWarnSeconds))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(states)) {
		parts = append(parts, fmt.Sprintf("%d %s", states[st], st))
	}
	hc.Summary = fmt.Sprintf("%d client connections of %d available (%.1f%%): %s; sessions of other roles show only without pg_read_all_stats as 'unknown'",
		clients, avail, pct, strings.Join(parts, ", "))
	return hc, nil
}

func checkCache(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: fmt.Sprintf("share of table and of index block accesses served from shared buffers: warning below %g%%, critical below %g%%; "+
		"judged from %d block accesses since the statistics were reset", cacheWarnPct, cacheCritPct, cacheMinBlocks)}
	var heapHit, heapRead, idxHit, idxRead int64
	if err := tx.QueryRow(ctx, `SELECT (SELECT COALESCE(sum(heap_blks_hit), 0)::int8 FROM pg_catalog.pg_statio_user_tables),
 (SELECT COALESCE(sum(heap_blks_read), 0)::int8 FROM pg_catalog.pg_statio_user_tables),
 (SELECT COALESCE(sum(idx_blks_hit), 0)::int8 FROM pg_catalog.pg_statio_user_indexes),
 (SELECT COALESCE(sum(idx_blks_read), 0)::int8 FROM pg_catalog.pg_statio_user_indexes)`).Scan(&heapHit, &heapRead, &idxHit, &idxRead); err != nil {
		return nil, err
	}
	var parts []string
	for _, c := range []struct {
		what      string
		hit, read int64
	}{{"table", heapHit, heapRead}, {"index", idxHit, idxRead}} {
		n := c.hit + c.read
		if n < cacheMinBlocks {
			parts = append(parts, fmt.Sprintf("%s hit rate not judged: %d block accesses, fewer than %d", c.what, n, cacheMinBlocks))
			continue
		}
		rate := 100 * float64(c.hit) / float64(n)
		parts = append(parts, fmt.Sprintf("%s hit rate %.2f%% (%d hits, %d reads)", c.what, rate, c.hit, c.read))
		switch {
		case rate < cacheCritPct:
			hc.add(statusCritical, c.what+" cache hit rate", "database", rate, cacheCritPct, fmt.Sprintf("%.2f%% of %s block accesses were hits (%d of %d); critical below %g%%, warning below %g%%: "+
				"the working set does not fit shared_buffers, or queries scan more than they need", rate, c.what, c.hit, n, cacheCritPct, cacheWarnPct))
		case rate < cacheWarnPct:
			hc.add(statusWarning, c.what+" cache hit rate", "database", rate, cacheWarnPct, fmt.Sprintf("%.2f%% of %s block accesses were hits (%d of %d); warning below %g%%, critical below %g%%: "+
				"the working set does not fit shared_buffers, or queries scan more than they need", rate, c.what, c.hit, n, cacheWarnPct, cacheCritPct))
		}
	}
	hc.Summary = strings.Join(parts, "; ") + " (user tables and indexes of this database; a read may still come from the OS cache)"
	return hc, nil
}

func checkReplication(ctx context.Context, tx pgx.Tx) (*HealthCheck, error) {
	hc := &HealthCheck{Thresholds: fmt.Sprintf("replay lag of a standby: warning at %d s, critical at %d s; replication slot: inactive or wal_status unreserved: warning, "+
		"wal_status lost: critical, WAL retained: warning at %s, critical at %s", lagWarnSeconds, lagCritSeconds, bytesText(slotWarnBytes), bytesText(slotCritBytes))}
	var standby bool
	if err := tx.QueryRow(ctx, `SELECT pg_catalog.pg_is_in_recovery()`).Scan(&standby); err != nil {
		return nil, err
	}
	var summary []string
	if standby {
		var lag *float64
		var receiver *string
		if err := tx.QueryRow(ctx, `SELECT EXTRACT(epoch FROM clock_timestamp() - pg_catalog.pg_last_xact_replay_timestamp())::float8,
 (SELECT status FROM pg_catalog.pg_stat_wal_receiver LIMIT 1)`).Scan(&lag, &receiver); err != nil {
			return nil, err
		}
		s := "this server is a standby"
		if receiver == nil {
			hc.add(statusWarning, "no WAL receiver", "server", 0, 0, "no WAL receiver is running: the standby is not streaming from a primary (it may be restoring from an archive)")
		} else {
			s += ", WAL receiver " + *receiver
		}
		if lag != nil {
			s += fmt.Sprintf(", last replayed transaction %.0f s ago", *lag)
			if st, lim := grade(*lag, lagWarnSeconds, lagCritSeconds); st != "" {
				hc.add(st, "replay lag", "server", *lag, lim, fmt.Sprintf("the last replayed transaction committed %.0f s ago; warning at %d s, critical at %d s "+
					"(on a primary with no writes this grows without any lag)", *lag, lagWarnSeconds, lagCritSeconds))
			}
		}
		summary = append(summary, s)
	} else {
		rows, err := tx.Query(ctx, `SELECT COALESCE(NULLIF(application_name, ''), client_addr::text, pid::text), COALESCE(state, ''),
 EXTRACT(epoch FROM replay_lag)::float8 FROM pg_catalog.pg_stat_replication ORDER BY 1`)
		if err != nil {
			return nil, err
		}
		var standbys int
		for rows.Next() {
			var name, state string
			var lag *float64
			if err := rows.Scan(&name, &state, &lag); err != nil {
				rows.Close()
				return nil, err
			}
			standbys++
			if state != "" && state != "streaming" {
				hc.add(statusWarning, "standby not streaming", name, 0, 0, "replication state is "+state)
			}
			if lag != nil {
				if st, lim := grade(*lag, lagWarnSeconds, lagCritSeconds); st != "" {
					hc.add(st, "replay lag", name, *lag, lim, fmt.Sprintf("standby replays %.0f s behind; warning at %d s, critical at %d s", *lag, lagWarnSeconds, lagCritSeconds))
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		summary = append(summary, fmt.Sprintf("primary with %d connected standbys", standbys))
	}
	rows, err := tx.Query(ctx, `SELECT slot_name::text, slot_type, active, COALESCE(wal_status, ''),
 COALESCE(pg_catalog.pg_wal_lsn_diff(CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn() ELSE pg_catalog.pg_current_wal_lsn() END, restart_lsn), 0)::int8
 FROM pg_catalog.pg_replication_slots ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var slots int
	for rows.Next() {
		var name, kind, walStatus string
		var active bool
		var retained int64
		if err := rows.Scan(&name, &kind, &active, &walStatus, &retained); err != nil {
			return nil, err
		}
		slots++
		obj := fmt.Sprintf("slot %s (%s)", name, kind)
		switch walStatus {
		case "lost":
			hc.add(statusCritical, "replication slot lost", obj, float64(retained), 0, "wal_status is lost: the WAL the slot needs was removed; its consumer cannot continue and must be rebuilt")
		case "unreserved":
			hc.add(statusWarning, "replication slot unreserved", obj, float64(retained), 0, "wal_status is unreserved: the slot's WAL will be removed at the next checkpoint (max_slot_wal_keep_size)")
		}
		if !active {
			hc.add(statusWarning, "inactive replication slot", obj, float64(retained), 0, fmt.Sprintf("no consumer is connected; the slot retains %s of WAL and "+
				"keeps growing it (and, for a logical slot, keeps vacuum from removing catalog rows)", bytesText(retained)))
		}
		if st, lim := grade(float64(retained), slotWarnBytes, slotCritBytes); st != "" {
			hc.add(st, "WAL retained by slot", obj, float64(retained), lim, fmt.Sprintf("retains %s of WAL (%d bytes); warning at %s, critical at %s",
				bytesText(retained), retained, bytesText(slotWarnBytes), bytesText(slotCritBytes)))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	summary = append(summary, fmt.Sprintf("%d replication slots", slots))
	hc.Summary = strings.Join(summary, "; ")
	return hc, nil
}

// bytesText writes a size the way a person reads it: 512 bytes, 8.0 KiB, 2.5 MiB.
func bytesText(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}
