package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// TestAdviceFillsItsSlots: connected as the read role the README recommends (plus
// pg_read_all_stats, to see the workload's statements), suggest_indexes' workload
// mode passes over the UPDATEs that cost the most, which that role cannot plan, says
// so with the reason, and analyzes the slow SELECT in the slot instead; top_queries
// leaves out the server's own catalog reads (and counts them).
func TestAdviceFillsItsSlots(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "pg_stat_statements")
	d.RequireExtension(t, "hypopg")
	d.Exec(t, workloadSQL)
	reader := d.CreateRole(t, "advreader", "NOSUPERUSER", "")
	d.Exec(t, "GRANT pg_read_all_data, pg_read_all_stats TO "+reader)
	db := openDB(t, d.URLAs(reader, ""), Options{})

	admin := connectAdmin(t, d.URL)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)"); err != nil {
		t.Fatal(err)
	}
	const update = "UPDATE shop_orders SET total = total WHERE customer_id = $1"
	for i := range 100 {
		if _, err := admin.Exec(ctx, update, i); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		rows, err := admin.Query(ctx, slowQuery, i*37)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}

	c := mcpkittest.Connect(t, newServer(db, Config{}), "2025-11-25", nil)
	for _, tool := range []string{"list_tables", "list_schemas"} { // the server's own catalog reads
		if res := c.CallTool(tool, map[string]any{}); res.IsError {
			t.Fatal(res.Text())
		}
	}

	advice := structured(t, "suggest_indexes", c.CallTool("suggest_indexes", map[string]any{"limit": 1}))
	qs := advice["queries"].([]any)
	if len(qs) != 1 || qs[0].(map[string]any)["query"] != slowQuery {
		t.Fatalf("queries analyzed %s; want only %q, in the slot of the UPDATE", jsonAt(t, qs), slowQuery)
	}
	left, _ := advice["leftOut"].([]any)
	if len(left) == 0 {
		t.Fatalf("nothing left out: %s", jsonAt(t, advice))
	}
	first := left[0].(map[string]any)
	if first["query"] != update || !strings.Contains(first["reason"].(string), "42501") || !strings.Contains(first["reason"].(string), "permission denied") {
		t.Errorf("left out first %s; want the UPDATE with its permission error", jsonAt(t, first))
	}
	if idx := advice["indexes"].([]any); len(idx) == 0 || jsonAt(t, idx[0].(map[string]any)["columns"]) != `["customer_id"]` {
		t.Errorf("indexes %s; want customer_id for the SELECT", jsonAt(t, advice["indexes"]))
	}

	top := structured(t, "top_queries", c.CallTool("top_queries", map[string]any{"limit": 50}))
	for _, q := range top["queries"].([]any) {
		text := q.(map[string]any)["query"].(string)
		if strings.Contains(text, "pg_catalog.") || strings.HasPrefix(strings.ToUpper(text), "BEGIN READ ONLY") {
			t.Errorf("top_queries lists the server's own %q", text)
		}
	}
	if n, _ := top["ownLeftOut"].(float64); n < 2 {
		t.Errorf("ownLeftOut %v; want the server's catalog reads counted", top["ownLeftOut"])
	}
	if got := jsonAt(t, top["queries"]); !strings.Contains(got, update) || !strings.Contains(got, "SELECT id, total FROM shop_orders") {
		t.Errorf("top_queries lost the workload: %s", got)
	}
}
