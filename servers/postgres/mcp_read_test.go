package postgres

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

var readTools = []string{"query", "list_schemas", "list_tables", "describe_table", "explain_query", "activity", "top_queries", "health", "suggest_indexes", "list_objects"}

// readCase is one call of a read tool and what its structured result must hold.
type readCase struct {
	name  string
	tool  string
	args  map[string]any
	check func(t *testing.T, out map[string]any)
}

// readCases call every read tool with arguments that exercise its inputs.
var readCases = []readCase{
	{"query with a param", "query", map[string]any{"sql": "SELECT id, name FROM shop.customers WHERE id = $1", "params": []any{2}},
		func(t *testing.T, out map[string]any) {
			want := `{"columns":[{"name":"id","type":"int8"},{"name":"name","type":"text"}],"command":"SELECT 1","rowCount":1,"rows":[[2,"Linus"]],"untrusted":"rows"}`
			if got := jsonAt(t, out); got != want {
				t.Errorf("got %s\nwant %s", got, want)
			}
		}},
	{"query keeps every digit of a numeric param", "query", map[string]any{"sql": "SELECT $1::numeric AS n", "params": []any{json.Number("12345678901234567890.123")}},
		func(t *testing.T, out map[string]any) {
			if got := jsonAt(t, out["rows"]); got != `[["12345678901234567890.123"]]` {
				t.Errorf("rows %s; want the numeric as an exact string", got)
			}
		}},
	// A json/jsonb value goes as its JSON text in a string: the schema's params items
	// have no object branch, which strict-schema agent frameworks cannot express.
	{"query with a jsonb param as JSON text", "query", map[string]any{"sql": "SELECT $1::jsonb -> 'a' AS a", "params": []any{`{"a": [1, 2]}`}},
		func(t *testing.T, out map[string]any) {
			if got := jsonAt(t, out["rows"]); got != `[[[1,2]]]` {
				t.Errorf("rows %s; want the jsonb member [1,2]", got)
			}
		}},
	// OpenAI's strict mode sends null for every optional argument left out.
	{"query with params null, as a strict-mode model sends it", "query", map[string]any{"sql": "SELECT 1 AS one", "params": nil},
		func(t *testing.T, out map[string]any) {
			if got := jsonAt(t, out["rows"]); got != `[[1]]` {
				t.Errorf("rows %s; want [[1]]", got)
			}
		}},
	{"list_schemas", "list_schemas", map[string]any{},
		func(t *testing.T, out map[string]any) {
			var got []string
			for _, s := range out["schemas"].([]any) {
				got = append(got, s.(map[string]any)["name"].(string))
			}
			if d := cmp.Diff([]string{"public", "shop"}, got); d != "" {
				t.Errorf("schemas (-want +got):\n%s", d)
			}
		}},
	{"list_tables of one schema", "list_tables", map[string]any{"schema": "shop"},
		func(t *testing.T, out map[string]any) {
			want := `[{"kind":"table","name":"Order Items/2024?#%","schema":"shop"},{"comment":"People who buy things","kind":"table","name":"customers","rowEstimate":2,"schema":"shop"},{"kind":"table","name":"orders","rowEstimate":3,"schema":"shop"}]`
			if got := jsonAt(t, out["tables"]); got != want {
				t.Errorf("tables %s\nwant %s", got, want)
			}
		}},
	{"describe_table", "describe_table", map[string]any{"schema": "shop", "table": "orders"},
		func(t *testing.T, out map[string]any) {
			var cols []string
			for _, c := range out["columns"].([]any) {
				cols = append(cols, c.(map[string]any)["name"].(string))
			}
			if d := cmp.Diff([]string{"id", "customer_id", "total", "status"}, cols); d != "" {
				t.Errorf("columns (-want +got):\n%s", d)
			}
			fk := out["foreignKeys"].([]any)[0].(map[string]any)
			if fk["referencedTable"] != "shop.customers" || jsonAt(t, fk["columns"]) != `["customer_id"]` {
				t.Errorf("foreign key %v; want customer_id -> shop.customers", fk)
			}
		}},
	{"explain_query", "explain_query", map[string]any{"sql": "SELECT * FROM shop.orders WHERE id = $1", "params": []any{10}},
		func(t *testing.T, out map[string]any) {
			if out["analyzed"] != false || !strings.Contains(jsonAt(t, out["plan"]), `"Node Type"`) || strings.Contains(jsonAt(t, out["plan"]), `"Actual Rows"`) {
				t.Errorf("got %s; want a plan that was not analyzed", jsonAt(t, out))
			}
		}},
	{"explain_query analyze", "explain_query", map[string]any{"sql": "SELECT count(*) FROM shop.orders", "analyze": true},
		func(t *testing.T, out map[string]any) {
			if out["analyzed"] != true || !strings.Contains(jsonAt(t, out["plan"]), `"Actual Rows"`) {
				t.Errorf("got %s; want an analyzed plan with actual rows", jsonAt(t, out))
			}
		}},
	{"activity", "activity", map[string]any{},
		func(t *testing.T, out map[string]any) {
			_, s := out["sessions"].([]any)
			_, l := out["waitingLocks"].([]any)
			if !s || !l {
				t.Errorf("got %s; want sessions and waitingLocks arrays", jsonAt(t, out))
			}
		}},
	// The shop database has neither pg_stat_statements nor HypoPG (TestTuningWorkload
	// covers both): the tools say so and still answer.
	{"top_queries without pg_stat_statements", "top_queries", map[string]any{"orderBy": "mean_time", "limit": 5},
		func(t *testing.T, out map[string]any) {
			if m, _ := out["missing"].(string); !strings.Contains(m, "CREATE EXTENSION pg_stat_statements") || jsonAt(t, out["queries"]) != "[]" {
				t.Errorf("got %s; want no queries and the setup", jsonAt(t, out))
			}
		}},
	{"health", "health", map[string]any{"checks": []any{"indexes", "constraints"}},
		func(t *testing.T, out map[string]any) {
			if out["status"] != "ok" || len(out["checks"].([]any)) != 2 {
				t.Errorf("got %s; want two checks, ok", jsonAt(t, out))
			}
		}},
	{"suggest_indexes without HypoPG", "suggest_indexes", map[string]any{"sql": "SELECT id FROM shop.orders WHERE status = $1", "params": []any{"paid"}},
		func(t *testing.T, out map[string]any) {
			ix, _ := out["indexes"].([]any)
			if out["measured"] != false || !strings.Contains(out["missing"].(string), "HypoPG") || len(ix) == 0 ||
				ix[0].(map[string]any)["statement"] != "CREATE INDEX CONCURRENTLY ON shop.orders (status);" || ix[0].(map[string]any)["measured"] != false {
				t.Errorf("got %s; want the unmeasured candidate shop.orders (status)", jsonAt(t, out))
			}
		}},
	{"list_objects", "list_objects", map[string]any{"kind": "sequences", "schema": "shop"},
		func(t *testing.T, out map[string]any) {
			if got := jsonAt(t, out["objects"]); got != `[{"dataType":"bigint","increment":1,"max":"9223372036854775807","name":"s","schema":"shop","start":1}]` {
				t.Errorf("got %s; want shop.s, never used", jsonAt(t, out))
			}
		}},
}

// TestReadServer runs the read-only server's surface over one database: the tools
// list, every tool at both revisions, SQL errors, resources, the prompt, completion
// and readiness.
func TestReadServer(t *testing.T) {
	t.Parallel()
	d, db := shopDB(t, Options{})
	s := newServer(db, Config{ResourcePageSize: 3})

	t.Run("tools golden", func(t *testing.T) {
		c := mcpkittest.Connect(t, s, "2026-07-28", nil)
		size := mcpkittest.ToolsGolden(t, c, "testdata/tools_readonly.golden.json")
		t.Logf("read-only tools/list: %d bytes", size)
		var got []string
		for _, tool := range s.Tools() {
			got = append(got, tool.Name)
			if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint || a.OpenWorldHint {
				t.Errorf("%s: annotations %+v; want readOnlyHint, not destructive, closed world", tool.Name, a)
			}
		}
		if d := cmp.Diff(readTools, got); d != "" {
			t.Errorf("read-only tools (-want +got):\n%s", d)
		}
	})

	t.Run("tools golden with writes", func(t *testing.T) {
		w := newServer(db, Config{AllowWrites: true})
		c := mcpkittest.Connect(t, w, "2026-07-28", nil)
		size := mcpkittest.ToolsGolden(t, c, "testdata/tools_writes.golden.json")
		t.Logf("tools/list with --allow-writes: %d bytes", size)
		tools := w.Tools()
		if last := tools[len(tools)-1]; last.Name != "execute" || last.Annotations.ReadOnlyHint || !last.Annotations.DestructiveHint {
			t.Errorf("last tool %s %+v; want execute, not read-only, destructive", last.Name, last.Annotations)
		}
		if len(tools) != len(readTools)+1 {
			t.Errorf("%d tools; want the %d read tools and execute", len(tools), len(readTools))
		}
	})

	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("every tool at "+rev, func(t *testing.T) {
			c := mcpkittest.Connect(t, s, rev, nil)
			for _, tc := range readCases {
				t.Run(tc.name, func(t *testing.T) {
					tc.check(t, structured(t, tc.name, callTool(t, c, tc.tool, tc.args)))
				})
			}
		})
	}

	t.Run("SQL errors reach the model", func(t *testing.T) {
		c := mcpkittest.Connect(t, s, "2026-07-28", nil)
		for _, tc := range []struct {
			tool string
			args map[string]any
			want []string // all in the error text
		}{
			{"query", map[string]any{"sql": "SELECT nme FROM shop.customers"},
				[]string{"ERROR 42703: column \"nme\" does not exist", "HINT: Perhaps you meant to reference the column \"customers.name\".", "LINE 1: SELECT nme FROM shop.customers\n               ^"}},
			{"query", map[string]any{"sql": "SELECT 1,\n  '{\"a\":}'::jsonb"},
				[]string{"ERROR 22P02: invalid input syntax for type json", "DETAIL: Expected JSON value, but found \"}\".", "LINE 2:   '{\"a\":}'::jsonb\n          ^"}},
			{"query", map[string]any{"sql": "SELECT * FROM nosuch"}, []string{"ERROR 42P01: relation \"nosuch\" does not exist", "LINE 1: SELECT * FROM nosuch\n                      ^"}},
			{"query", map[string]any{"sql": "SHOW search_path"}, []string{"not a query and was not run", "current_setting('name')"}},
			{"query", map[string]any{"sql": "SELECT $1::int", "params": []any{"seven"}}, []string{"ERROR 22P02: invalid input syntax for type integer: \"seven\""}},
			{"explain_query", map[string]any{"sql": "DELETE FROM public.t", "analyze": true}, []string{"ERROR 25006: cannot execute DELETE in a read-only transaction", "REASON: this server is read-only"}},
			{"describe_table", map[string]any{"table": "nosuch"}, []string{`table "nosuch" not found on the search path`}},
			{"list_tables", map[string]any{"schema": "nosuch"}, []string{`schema "nosuch" does not exist`}},
		} {
			res := c.CallTool(tc.tool, tc.args)
			if !res.IsError {
				t.Errorf("%s %v: not isError: %s", tc.tool, tc.args, res.Text())
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("%s %v: error text lacks %q:\n%s", tc.tool, tc.args, w, res.Text())
				}
			}
		}
		if n := rowCount(t, db, "SELECT count(*) FROM public.t"); n != 5 {
			t.Errorf("public.t has %d rows after EXPLAIN ANALYZE DELETE; want 5", n)
		}
	})

	t.Run("resources", func(t *testing.T) { testResources(t, s, db, d.Name) })
	t.Run("write_query prompt", func(t *testing.T) { testPrompt(t, s, d.Name) })

	t.Run("completion", func(t *testing.T) {
		c := mcpkittest.Connect(t, s, "2026-07-28", nil)
		for _, tc := range []struct {
			params map[string]any
			want   []string
		}{
			{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "write_query"}, "argument": map[string]any{"name": "schema", "value": "sh"}}, []string{"shop"}},
			{map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "postgres://" + d.Name + "/{schema}/{table}/schema"},
				"argument": map[string]any{"name": "table", "value": "o"}, "context": map[string]any{"arguments": map[string]any{"schema": "shop"}}}, []string{"orders"}},
			{map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "postgres://" + d.Name + "/{schema}/{table}/schema"},
				"argument": map[string]any{"name": "table", "value": ""}, "context": map[string]any{"arguments": map[string]any{"schema": "public"}}}, []string{"t"}},
		} {
			var res struct {
				Completion struct {
					Values []string `json:"values"`
				} `json:"completion"`
			}
			if err := json.Unmarshal(c.Call("completion/complete", tc.params), &res); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, res.Completion.Values); d != "" {
				t.Errorf("%v (-want +got):\n%s", tc.params, d)
			}
		}
	})

	t.Run("readyz pings the database", func(t *testing.T) {
		db2 := openDB(t, d.URL, Options{})
		h, err := serve.HTTPService(s, &serve.Options{Ready: db2.Ping})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		status := func() int {
			resp, err := http.Get(srv.URL + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if got := status(); got != http.StatusOK {
			t.Errorf("readyz with the database up: %d; want 200", got)
		}
		db2.Close()
		if got := status(); got != http.StatusServiceUnavailable {
			t.Errorf("readyz with the pool closed: %d; want 503", got)
		}
		if err := db2.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "database="+d.Name) {
			t.Errorf("Ping on a closed pool: %v; want an error naming the target", err)
		}
	})
}
