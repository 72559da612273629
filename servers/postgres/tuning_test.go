package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// Tests of top_queries, health and suggest_indexes. Those needing pg_stat_statements
// (preloaded by pgtest's throwaway cluster) or HypoPG (Debian's postgresql-15-hypopg,
// installed by .ci/run) fail under CI when the extension is missing and are skipped
// otherwise (pgtest.Database.RequireExtension).

// workloadSQL seeds a table where one query lacks an index: orders are looked up by
// id (the primary key) and by customer_id (no index).
const workloadSQL = `
CREATE TABLE public.shop_orders (id bigint PRIMARY KEY, customer_id int NOT NULL, total numeric(10,2) NOT NULL, note text);
INSERT INTO public.shop_orders SELECT g, g % 10000, (g % 1000) / 10.0, repeat('x', 40) FROM generate_series(1, 100000) g;
ANALYZE public.shop_orders;
`

const (
	slowQuery = "SELECT id, total FROM shop_orders WHERE customer_id = $1"
	fastQuery = "SELECT total FROM shop_orders WHERE id = $1"
)

// runWorkload runs the seeded workload as an application would (pgx, extended
// protocol, parameters), after clearing this database's pg_stat_statements entries.
func runWorkload(t *testing.T, d *pgtest.Database) {
	t.Helper()
	c := connectAdmin(t, d.URL)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)"); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		rows, err := c.Query(ctx, slowQuery, i*37%10000)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	for i := range 400 {
		var total string
		if err := c.QueryRow(ctx, fastQuery+"::bigint", int64(i+1)).Scan(&total); err != nil && !strings.Contains(err.Error(), "cannot") {
			t.Fatal(err)
		}
	}
}

// TestTuningWorkload is the acceptance test: with pg_stat_statements and
// HypoPG, top_queries ranks the query that lacks an index first, suggest_indexes
// proposes that index (for the workload and for the query alone) with a measured
// cost drop of at least 10×, and creating it makes the real plan use it.
func TestTuningWorkload(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "pg_stat_statements")
	d.RequireExtension(t, "hypopg")
	d.Exec(t, workloadSQL)
	db := openDB(t, d.URL, Options{})
	runWorkload(t, d)
	c := mcpkittest.Connect(t, newServer(db, Config{}), "2026-07-28", nil)

	top := structured(t, "top_queries", callTool(t, c, "top_queries", map[string]any{}))
	queries := top["queries"].([]any)
	first := queries[0].(map[string]any)
	if first["query"] != slowQuery || first["calls"] != float64(40) {
		t.Fatalf("top_queries ranks first %s; want %q with 40 calls\nall: %s", jsonAt(t, first), slowQuery, jsonAt(t, queries))
	}
	if top["missing"] != nil || top["orderBy"] != "total_time" {
		t.Errorf("top_queries: %s", jsonAt(t, top))
	}
	byCalls := structured(t, "top_queries by calls", callTool(t, c, "top_queries", map[string]any{"orderBy": "calls", "limit": 1}))
	if q := byCalls["queries"].([]any); len(q) != 1 || !strings.HasPrefix(q[0].(map[string]any)["query"].(string), "SELECT total FROM shop_orders WHERE id = $1") {
		t.Errorf("top_queries by calls, limit 1: %s; want the primary key lookup", jsonAt(t, byCalls))
	}

	// The workload, with progress reported.
	r := c.Request("tools/call", map[string]any{"name": "suggest_indexes", "arguments": map[string]any{},
		"_meta": map[string]any{"progressToken": "advice"}})
	if r.Error != nil {
		t.Fatalf("suggest_indexes: %s", r.Error.Message)
	}
	var res mcpkittest.ToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	advice := structured(t, "suggest_indexes workload", &res)
	checkAdvice(t, advice, slowQuery)
	if n := c.WaitNotification(func(method string, params json.RawMessage) bool {
		return method == "notifications/progress" && strings.Contains(string(params), `"advice"`)
	}); n == nil {
		t.Error("no progress notification")
	}

	// One query, with a constant.
	one := structured(t, "suggest_indexes sql", callTool(t, c, "suggest_indexes", map[string]any{"sql": "SELECT id, total FROM shop_orders WHERE customer_id = 42"}))
	checkAdvice(t, one, "SELECT id, total FROM shop_orders WHERE customer_id = 42")
	// With a param instead.
	withParam := structured(t, "suggest_indexes params", callTool(t, c, "suggest_indexes", map[string]any{"sql": slowQuery, "params": []any{42}}))
	checkAdvice(t, withParam, slowQuery)
	if withParam["queries"].([]any)[0].(map[string]any)["genericPlan"] != nil {
		t.Errorf("a query with params was planned generically: %s", jsonAt(t, withParam["queries"]))
	}

	// Creating the suggested index (outside the tool) makes the real plan use it.
	stmt := one["indexes"].([]any)[0].(map[string]any)["statement"].(string)
	if stmt != "CREATE INDEX CONCURRENTLY ON public.shop_orders (customer_id);" {
		t.Fatalf("statement %q", stmt)
	}
	if n := rowCount(t, db, "SELECT count(*) FROM pg_indexes WHERE tablename = 'shop_orders'"); n != 1 {
		t.Fatalf("%d indexes on shop_orders before creating the suggestion; want only the primary key (the tool must create nothing)", n)
	}
	d.Exec(t, stmt)
	plan := structured(t, "explain after", callTool(t, c, "explain_query", map[string]any{"sql": slowQuery, "params": []any{42}}))
	if p := jsonAt(t, plan["plan"]); !strings.Contains(p, `"Index Name":"shop_orders_customer_id_idx"`) {
		t.Errorf("with the suggested index created, the plan does not use it: %s", p)
	}
	// And the advisor no longer suggests it.
	again := structured(t, "suggest_indexes after", callTool(t, c, "suggest_indexes", map[string]any{"sql": "SELECT id, total FROM shop_orders WHERE customer_id = 42"}))
	if got := jsonAt(t, again["indexes"]); got != "[]" {
		t.Errorf("after creating the index, suggestions %s; want none", got)
	}
}

// checkAdvice wants the customer_id index first, measured, with a cost drop of at
// least 10× for query (the first query analyzed).
func checkAdvice(t *testing.T, advice map[string]any, query string) {
	t.Helper()
	if advice["measured"] != true || advice["missing"] != nil {
		t.Fatalf("advice not measured: %s", jsonAt(t, advice))
	}
	qs := advice["queries"].([]any)
	if q := qs[0].(map[string]any); q["query"] != query || q["cost"] == nil || q["skipped"] != nil {
		t.Fatalf("first query analyzed %s; want %q with its cost", jsonAt(t, q), query)
	}
	idx := advice["indexes"].([]any)
	if len(idx) == 0 {
		t.Fatalf("no index suggested: %s", jsonAt(t, advice))
	}
	best := idx[0].(map[string]any)
	if best["table"] != "public.shop_orders" || jsonAt(t, best["columns"]) != `["customer_id"]` || best["reason"] != "filter" || best["measured"] != true {
		t.Fatalf("best suggestion %s; want public.shop_orders (customer_id) from the filter", jsonAt(t, best))
	}
	if s, _ := best["speedup"].(float64); s < 10 {
		t.Errorf("speedup %v; want a measured cost drop of at least 10×: %s", best["speedup"], jsonAt(t, best))
	}
	if b, _ := best["estimatedBytes"].(float64); b <= 0 {
		t.Errorf("no size estimate: %s", jsonAt(t, best))
	}
	eff := best["effects"].([]any)[0].(map[string]any)
	if eff["query"] != float64(0) || eff["costBefore"].(float64) < 10*eff["costAfter"].(float64) {
		t.Errorf("effect %s; want query 0 with costBefore ≥ 10 × costAfter", jsonAt(t, eff))
	}
	t.Logf("%s: %s", query, jsonAt(t, best))
}

// TestHypoPGReadOnly checks what the read path relies on: hypopg_create_index works
// inside a READ ONLY transaction without writing (no transaction ID is assigned, no
// catalog row appears), and its hypothetical index survives the rollback, which is
// why it must be reset before the connection returns to the pool.
func TestHypoPGReadOnly(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "hypopg")
	d.Exec(t, "CREATE TABLE h (x int)")
	c := connectAdmin(t, d.URL)
	ctx := context.Background()
	classes := func() int64 {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_class").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := classes()
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var noXID, readOnly bool
	var name string
	if _, err := tx.Exec(ctx, "SET TRANSACTION READ ONLY"); err != nil {
		t.Fatal(err)
	}
	err = tx.QueryRow(ctx, `SELECT indexname, txid_current_if_assigned() IS NULL, current_setting('transaction_read_only') = 'on'
 FROM hypopg_create_index('CREATE INDEX ON h (x)')`).Scan(&name, &noXID, &readOnly)
	if err != nil {
		t.Fatalf("hypopg_create_index in a READ ONLY transaction: %v", err)
	}
	if !noXID || !readOnly {
		t.Errorf("hypopg_create_index: transaction ID assigned %v, read only %v; want no ID in a read-only transaction", !noXID, readOnly)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := classes(); n != before {
		t.Errorf("pg_class has %d rows after, %d before", n, before)
	}
	var survived int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM hypopg()").Scan(&survived); err != nil {
		t.Fatal(err)
	}
	if survived != 1 {
		t.Errorf("%d hypothetical indexes after the rollback; want the one created (HypoPG's state is not transactional)", survived)
	}
	t.Logf("hypothetical index %s made in a READ ONLY transaction, no transaction ID, survived the rollback", name)
}

// sessionState is what a later call must find as a fresh connection has it.
func sessionState(t *testing.T, db *DB) (pid any, state string) {
	t.Helper()
	res, err := db.Query(context.Background(), `SELECT pg_backend_pid(), (SELECT count(*) FROM hypopg_list_indexes), (SELECT count(*) FROM hypopg()),
 current_setting('plan_cache_mode'), current_setting('statement_timeout'), current_setting('transaction_read_only'),
 (SELECT count(*) FROM pg_prepared_statements WHERE name NOT LIKE 'stmtcache%' AND name NOT LIKE 'mcpkit%'),
 (SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public')`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows[0][0], jsonAt(t, res.Rows[0][1:])
}

// TestSuggestIndexesLeavesNoState proves no index, no setting and no HypoPG state
// survives a suggest_indexes call: on a one-connection pool, a later call on the same
// connection sees no hypothetical index (hypopg() and so hypopg_list_indexes empty),
// the settings of a fresh call and pg_indexes unchanged. It also checks the guard for
// HypoPG state that user SQL makes through query: on a connection that resets HypoPG
// every call, the next call finds it reset; on one that does not, the connection is
// retired.
func TestSuggestIndexesLeavesNoState(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "hypopg")
	d.Exec(t, workloadSQL)
	ctx := context.Background()

	t.Run("suggest_indexes", func(t *testing.T) {
		db := openDB(t, d.URL, Options{MaxConns: 1})
		// This first look calls hypopg() on a connection that does not reset HypoPG,
		// which retires it; the connection suggest_indexes then uses stays.
		_, before := sessionState(t, db)
		var pid any
		for i, sql := range []string{"SELECT id FROM shop_orders WHERE customer_id = $1 ORDER BY total", "SELECT id FROM shop_orders WHERE customer_id = 5",
			"SELECT 1; SELECT 2", "SELECT nosuchcolumn FROM shop_orders"} {
			res, err := db.SuggestIndexes(ctx, sql, nil, 0, 0, nil)
			if strings.HasPrefix(sql, "SELECT id") && (err != nil || !res.Measured || len(res.Indexes) == 0) {
				t.Fatalf("%s: %+v %v", sql, res, err)
			}
			pidAfter, after := sessionState(t, db)
			if i == 0 {
				pid = pidAfter
			}
			if pidAfter != pid {
				t.Errorf("after %q the pool's connection changed (pid %v, then %v): want it returned to the pool", sql, pid, pidAfter)
			}
			if after != before {
				t.Errorf("after %q the next call on the same connection sees %s; before %s", sql, after, before)
			}
		}
		// A user statement making a hypothetical index on this (managed) connection:
		// reset by the next call.
		if _, err := db.Query(ctx, "SELECT indexname FROM hypopg_create_index('CREATE INDEX ON shop_orders (note)')", nil); err != nil {
			t.Fatal(err)
		}
		if pidAfter, after := sessionState(t, db); pidAfter != pid || after != before {
			t.Errorf("after hypopg_create_index through query: pid %v state %s; want pid %v and %s", pidAfter, after, pid, before)
		}
	})

	t.Run("query on an unmanaged connection", func(t *testing.T) {
		db := openDB(t, d.URL, Options{MaxConns: 1})
		pid, before := sessionState(t, db)
		res, err := db.Query(ctx, "SELECT indexname FROM hypopg_create_index('CREATE INDEX ON shop_orders (customer_id)')", nil)
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("%+v %v", res, err)
		}
		plan, err := db.Explain(ctx, slowQuery, []any{5}, false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(plan.Plan), "btree_shop_orders_customer_id") {
			t.Errorf("a later explain sees the hypothetical index made by an earlier call: %s", plan.Plan)
		}
		pidAfter, after := sessionState(t, db)
		if pidAfter == pid {
			t.Errorf("the connection (pid %v) where a statement loaded HypoPG was reused", pid)
		}
		if after != before {
			t.Errorf("next call sees %s; want %s", after, before)
		}
	})
}

// healthSQL plants what health must report: an unused duplicate index, a sequence at
// 90% of its maximum and a table with 40% dead tuples (autovacuum off, so it stays).
const healthSQL = `
CREATE TABLE public.items (id int PRIMARY KEY, code int NOT NULL);
INSERT INTO public.items SELECT g, g % 100 FROM generate_series(1, 1000) g;
CREATE INDEX items_code ON public.items (code);
CREATE INDEX items_code_again ON public.items (code);
CREATE SEQUENCE public.ticket_seq MAXVALUE 1000;
SELECT setval('public.ticket_seq', 900);
CREATE TABLE public.churn (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false);
INSERT INTO public.churn SELECT g, 'x' FROM generate_series(1, 10000) g;
DELETE FROM public.churn WHERE id <= 4000;
SELECT pg_stat_force_next_flush();
`

// TestHealth: the planted problems are reported with their numbers and thresholds,
// the checks where nothing was planted say ok, and a database with nothing planted is
// ok throughout.
func TestHealth(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, healthSQL)
	db := openDB(t, d.URL, Options{})
	c := mcpkittest.Connect(t, newServer(db, Config{}), "2026-07-28", nil)
	out := structured(t, "health", callTool(t, c, "health", map[string]any{}))
	checks := map[string]map[string]any{}
	var names []string
	for _, ch := range out["checks"].([]any) {
		m := ch.(map[string]any)
		checks[m["check"].(string)] = m
		names = append(names, m["check"].(string))
	}
	if d := cmp.Diff([]string{"indexes", "vacuum", "sequences", "constraints", "connections", "cache", "replication"}, names); d != "" {
		t.Fatalf("checks (-want +got):\n%s", d)
	}
	finding := func(check, kind, object string) map[string]any {
		for _, f := range asSlice(checks[check]["findings"]) {
			m := f.(map[string]any)
			if m["kind"] == kind && m["object"] == object {
				return m
			}
		}
		t.Errorf("%s: no %s finding for %s: %s", check, kind, object, jsonAt(t, checks[check]))
		return map[string]any{}
	}
	dup := finding("indexes", "duplicate index", "public.items_code_again")
	unused := finding("indexes", "unused index", "public.items_code_again")
	dead := finding("vacuum", "dead tuples", "public.churn")
	seq := finding("sequences", "sequence near its limit", "public.ticket_seq")
	for _, f := range []map[string]any{dup, unused, dead, seq} {
		if f["detail"] == nil || f["status"] == nil {
			t.Errorf("finding without status or detail: %s", jsonAt(t, f))
		}
	}
	if dead["status"] != "warning" || dead["value"] != float64(40) || dead["threshold"] != float64(20) ||
		!strings.Contains(dead["detail"].(string), "4000 dead, 6000 live") {
		t.Errorf("dead tuples finding %s; want warning at 40%% (threshold 20%%)", jsonAt(t, dead))
	}
	if seq["status"] != "critical" || seq["value"] != float64(90) || seq["threshold"] != float64(90) ||
		!strings.Contains(seq["detail"].(string), "last value 900") {
		t.Errorf("sequence finding %s; want critical at 90%%", jsonAt(t, seq))
	}
	if strings.Contains(jsonAt(t, checks["indexes"]["findings"]), "items_pkey") || strings.Contains(jsonAt(t, checks["indexes"]["findings"]), "churn") {
		t.Errorf("indexes reports primary keys: %s", jsonAt(t, checks["indexes"]))
	}
	for check, want := range map[string]string{"indexes": "warning", "vacuum": "warning", "sequences": "critical",
		"constraints": "ok", "connections": "ok", "cache": "ok", "replication": "ok"} {
		if checks[check]["status"] != want {
			t.Errorf("%s: status %v; want %s: %s", check, checks[check]["status"], want, jsonAt(t, checks[check]))
		}
		if checks[check]["thresholds"] == "" || checks[check]["summary"] == "" {
			t.Errorf("%s: no thresholds or summary", check)
		}
	}
	if out["status"] != "critical" {
		t.Errorf("overall status %v; want critical (the worst)", out["status"])
	}

	// One check at a time.
	one := structured(t, "health sequences", callTool(t, c, "health", map[string]any{"checks": []any{"sequences"}}))
	if got := len(one["checks"].([]any)); got != 1 {
		t.Errorf("%d checks for checks=[sequences]", got)
	}
	if res := callTool(t, c, "health", map[string]any{"checks": []any{"bloat"}}); !res.IsError {
		t.Errorf("an unknown check is accepted: %s", res.Text())
	}

	// Nothing planted, nothing reported.
	_, clean := shopDB(t, Options{})
	cc := mcpkittest.Connect(t, newServer(clean, Config{}), "2026-07-28", nil)
	all := structured(t, "health clean", callTool(t, cc, "health", map[string]any{}))
	if all["status"] != "ok" {
		t.Errorf("clean database: %s", jsonAt(t, all))
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestTuningWithoutExtensions: without pg_stat_statements, top_queries says what is
// missing and how to set it up; without HypoPG, suggest_indexes says so and returns
// the plan-based candidates unmeasured; the workload needs pg_stat_statements.
func TestTuningWithoutExtensions(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{})
	top, err := db.TopQueries(context.Background(), "", 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(top.Missing, "CREATE EXTENSION pg_stat_statements") || !strings.Contains(top.Missing, "shared_preload_libraries") || len(top.Queries) != 0 {
		t.Errorf("top_queries without the extension: %+v", top)
	}
	adv, err := db.SuggestIndexes(context.Background(), "SELECT o.id FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id WHERE o.status = 'paid' ORDER BY o.total", nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if adv.Measured || !strings.Contains(adv.Missing, "HypoPG") || !strings.Contains(adv.Missing, "CREATE EXTENSION hypopg") {
		t.Errorf("without HypoPG: measured %v, missing %q", adv.Measured, adv.Missing)
	}
	var got []string
	for _, ix := range adv.Indexes {
		if ix.Measured || ix.Speedup != 0 || ix.EstimatedBytes != 0 || ix.Effects[0].CostAfter != 0 {
			t.Errorf("unmeasured suggestion with measurements: %+v", ix)
		}
		got = append(got, fmt.Sprintf("%s(%s) %s", ix.Table, strings.Join(ix.Columns, ","), ix.Reason))
	}
	if !slices.Contains(got, "shop.orders(status) filter") {
		t.Errorf("candidates %q; want shop.orders(status) from the filter", got)
	}
	wl, err := db.SuggestIndexes(context.Background(), "", nil, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wl.Missing, "pg_stat_statements") || len(wl.Queries) != 0 {
		t.Errorf("workload without pg_stat_statements: %+v", wl)
	}
	for _, tc := range []struct{ sql, want string }{
		{"SELECT 1; DROP TABLE shop.orders", "exactly one SQL statement"},
		{"VACUUM shop.orders", "only a query or a data-modifying statement"},
		{"SELECT nosuch FROM shop.orders", `column "nosuch" does not exist`},
	} {
		if _, err := db.SuggestIndexes(context.Background(), tc.sql, nil, 0, 0, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error saying %q", tc.sql, err, tc.want)
		}
	}
}
