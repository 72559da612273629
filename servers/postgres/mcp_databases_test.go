package postgres

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// threeDatabases makes three throwaway databases served as app, staging and reports:
// app and staging hold the shop fixture (staging one customer more), reports holds
// its own table and is connected as a role that can read only that table (so it
// cannot see the others' tables, nor, in its own database, the shop's).
func threeDatabases(t *testing.T) (names []string, dbs []*DB, dbases []*pgtest.Database) {
	t.Helper()
	fixture := func() *pgtest.Database {
		d := pgtest.NewDatabase(t)
		d.Exec(t, multiSQL)
		return d
	}
	app, staging, reports := fixture(), fixture(), fixture()
	staging.Exec(t, "INSERT INTO shop.customers VALUES (3, 'Grace', 'grace@example.com')")
	appDB, stagingDB := openDB(t, app.URL, Options{}), openDB(t, staging.URL, Options{})
	reports.Exec(t, "CREATE SCHEMA r; CREATE TABLE r.daily (day date PRIMARY KEY, orders int); INSERT INTO r.daily VALUES ('2026-01-01', 7);")
	password := ""
	if pgtest.PasswordsEnforced(t) {
		password = "reports-secret-pw"
	}
	role := reports.CreateRole(t, "reporter", "NOSUPERUSER", password)
	reports.Exec(t, "GRANT USAGE ON SCHEMA r TO "+role+"; GRANT SELECT ON r.daily TO "+role)
	reportsDB := openDB(t, reports.URLAs(role, password), Options{})
	return []string{"app", "staging", "reports"}, []*DB{appDB, stagingDB, reportsDB}, []*pgtest.Database{app, staging, reports}
}

// multiSQL is the shop fixture with the bypass corpus's objects in public (its t
// instead of the shop's).
var multiSQL = strings.Replace(shopSQL, `CREATE TABLE public.t (id int PRIMARY KEY, v text);
INSERT INTO public.t SELECT g, 'v' || g FROM generate_series(1, 5) g;
`, "", 1) + bypassFixture

func namedDBs(names []string, dbs []*DB, descriptions ...string) []NamedDB {
	out := make([]NamedDB, len(names))
	for i := range names {
		out[i] = NamedDB{Name: names[i], DB: dbs[i]}
		if i < len(descriptions) {
			out[i].Description = descriptions[i]
		}
	}
	return out
}

func newMultiServer(t *testing.T, list []NamedDB, def string, cfg Config) *mcpkit.Server {
	t.Helper()
	cfg.Logger = quietLogger()
	s, err := NewMulti(cfg, list, def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// toolArgs are arguments that make each tool succeed on the shop fixture.
var toolArgs = map[string]map[string]any{
	"query":           {"sql": "SELECT current_database() AS db, count(*) AS n FROM shop.customers"},
	"list_schemas":    {},
	"list_tables":     {"schema": "shop"},
	"describe_table":  {"schema": "shop", "table": "customers"},
	"explain_query":   {"sql": "SELECT * FROM shop.customers WHERE email = $1", "params": []any{"ada@example.com"}},
	"activity":        {},
	"top_queries":     {},
	"health":          {"checks": []any{"cache"}},
	"suggest_indexes": {"sql": "SELECT * FROM shop.orders WHERE status = 'paid'"},
	"list_objects":    {"kind": "sequences"},
}

func withDatabase(args map[string]any, name string) map[string]any {
	out := map[string]any{"database": name}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// TestSeveralDatabases serves three throwaway databases from one server, without a
// default and (two of them) with one: every tool publishes database (an enum of the
// names, required without a default) and answers with and without it as it should,
// each call reaches the database it names (the reports role cannot read the shop
// tables there, nor is it the role of the others), list_schemas names the databases
// with their descriptions and never a URL or password, resources and completions are
// per database, and the bypass corpus leaves every database as it was.
func TestSeveralDatabases(t *testing.T) {
	t.Parallel()
	names, dbs, dbases := threeDatabases(t)
	descriptions := []string{"the local app database", "staging replica\u202e, read only", "daily reports"}
	three := mcpkittest.Connect(t, newMultiServer(t, namedDBs(names, dbs, descriptions...), "", Config{ResourcePageSize: 2}), "2025-11-25", nil)
	two := mcpkittest.Connect(t, newMultiServer(t, namedDBs(names[:2], dbs[:2]), "staging", Config{}), "2025-11-25", nil)

	t.Run("tools publish database", func(t *testing.T) {
		for _, tc := range []struct {
			c        *mcpkittest.Client
			names    []string
			required bool
		}{{three, names, true}, {two, names[:2], false}} {
			var list struct {
				Tools []struct {
					Name        string `json:"name"`
					InputSchema struct {
						Properties map[string]struct {
							Enum []string `json:"enum"`
						} `json:"properties"`
						Required []string `json:"required"`
					} `json:"inputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(tc.c.Call("tools/list", nil), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) < 10 {
				t.Fatalf("%d tools; want every read tool", len(list.Tools))
			}
			for _, tool := range list.Tools {
				p, ok := tool.InputSchema.Properties["database"]
				if !ok || !slices.Equal(p.Enum, tc.names) {
					t.Errorf("%s: database %+v (present %v); want enum %v", tool.Name, p, ok, tc.names)
				}
				if got := slices.Contains(tool.InputSchema.Required, "database"); got != tc.required {
					t.Errorf("%s: database required=%v; want %v", tool.Name, got, tc.required)
				}
			}
		}
	})

	t.Run("each tool with and without database", func(t *testing.T) {
		for tool, args := range toolArgs {
			res := three.CallTool(tool, args)
			if !res.IsError || !strings.Contains(res.Text(), "missing property 'database'") {
				t.Errorf("%s without database on three: isError=%v %.200s; want the required error naming the databases", tool, res.IsError, res.Text())
			}
			for _, name := range names[:2] {
				if res := three.CallTool(tool, withDatabase(args, name)); res.IsError {
					t.Errorf("%s on %s: %.300s", tool, name, res.Text())
				}
			}
			// reports is read as a role that may read only r.daily: the catalog tools
			// answer, the tools that read or plan the shop's tables are refused there.
			res = three.CallTool(tool, withDatabase(args, "reports"))
			switch tool {
			case "query", "explain_query", "suggest_indexes":
				if !res.IsError || !strings.Contains(res.Text(), "permission denied") {
					t.Errorf("%s on reports: isError=%v %.200s; want permission denied", tool, res.IsError, res.Text())
				}
			default:
				if res.IsError {
					t.Errorf("%s on reports: %.300s", tool, res.Text())
				}
			}
			if res := two.CallTool(tool, args); res.IsError {
				t.Errorf("%s on the default: %.300s", tool, res.Text())
			}
			if res := two.CallTool(tool, withDatabase(args, "reports")); !res.IsError || !strings.Contains(res.Text(), `field "database": value must be one of "app", "staging"`) {
				t.Errorf("%s on an unknown database: isError=%v %.200s", tool, res.IsError, res.Text())
			}
		}
	})

	t.Run("calls reach the database they name", func(t *testing.T) {
		who := func(c *mcpkittest.Client, args map[string]any) string {
			t.Helper()
			out := structured(t, "who", c.CallTool("query", args))
			return jsonAt(t, out["rows"])
		}
		count := map[string]any{"sql": "SELECT count(*)::int FROM shop.customers"}
		if got := who(three, withDatabase(count, "app")); got != "[[2]]" {
			t.Errorf("app has %s customers; want 2", got)
		}
		if got := who(three, withDatabase(count, "staging")); got != "[[3]]" {
			t.Errorf("staging has %s customers; want 3", got)
		}
		if got := who(two, count); got != "[[3]]" {
			t.Errorf("the default (staging) has %s customers; want 3", got)
		}
		dbname := map[string]any{"sql": "SELECT current_database()"}
		for i, name := range names {
			if got, want := who(three, withDatabase(dbname, name)), `[["`+dbases[i].Name+`"]]`; got != want {
				t.Errorf("%s is %s; want %s", name, got, want)
			}
		}
		res := three.CallTool("query", withDatabase(count, "reports"))
		if !res.IsError || !strings.Contains(res.Text(), "permission denied") {
			t.Errorf("the reports role read shop.customers: isError=%v %.200s", res.IsError, res.Text())
		}
		if got := who(three, withDatabase(map[string]any{"sql": "SELECT orders FROM r.daily"}, "reports")); got != "[[7]]" {
			t.Errorf("reports reads %s; want [[7]]", got)
		}
		res = three.CallTool("query", withDatabase(map[string]any{"sql": "SELECT orders FROM r.daily"}, "app"))
		if !res.IsError || !strings.Contains(res.Text(), "does not exist") {
			t.Errorf("app has r.daily: %.200s", res.Text())
		}
	})

	t.Run("list_schemas names the databases, never a URL", func(t *testing.T) {
		res := three.CallTool("list_schemas", map[string]any{"database": "reports"})
		out := structured(t, "list_schemas", res)
		want := `[{"description":"the local app database","name":"app"},{"description":"staging replica\\u{202E}, read only","name":"staging"},{"description":"daily reports","name":"reports"}]`
		if got := jsonAt(t, out["databases"]); got != want {
			t.Errorf("databases %s\nwant %s", got, want)
		}
		if out["database"] != "reports" {
			t.Errorf("database %v; want reports", out["database"])
		}
		for _, secret := range []string{"postgres://", "reports-secret-pw", "host=", dbases[0].Name} {
			if strings.Contains(res.Text(), secret) {
				t.Errorf("list_schemas shows %q:\n%s", secret, res.Text())
			}
		}
		out = structured(t, "list_schemas default", two.CallTool("list_schemas", map[string]any{}))
		if got := jsonAt(t, out["databases"]); got != `[{"name":"app"},{"default":true,"name":"staging"}]` {
			t.Errorf("databases %s; want staging marked default", got)
		}
	})

	t.Run("instructions name the databases", func(t *testing.T) {
		ds, err := newDatabases(namedDBs(names, dbs, descriptions...), "")
		if err != nil {
			t.Fatal(err)
		}
		instr := multiInstructions(ds, false, true)
		for _, w := range []string{"every tool takes database, one of: app (the local app database); staging (staging replica\\u{202E}, read only); reports (daily reports)", "It is required."} {
			if !strings.Contains(instr, w) {
				t.Errorf("instructions lack %q:\n%s", w, instr)
			}
		}
		if strings.ContainsRune(instr, '\u202e') {
			t.Errorf("instructions carry a bidi override from a description:\n%s", instr)
		}
	})

	t.Run("resources and completions per database", func(t *testing.T) {
		var uris []string
		cursor := ""
		for pages := 0; ; pages++ {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			var page struct {
				Resources []struct {
					URI string `json:"uri"`
				} `json:"resources"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(three.Call("resources/list", params), &page); err != nil {
				t.Fatal(err)
			}
			for _, r := range page.Resources {
				uris = append(uris, r.URI)
			}
			if cursor = page.NextCursor; cursor == "" || pages > 20 {
				break
			}
		}
		for _, want := range []string{"postgres://app/shop/customers/schema", "postgres://staging/shop/orders/schema", "postgres://reports/r/daily/schema"} {
			if !slices.Contains(uris, want) {
				t.Errorf("resources lack %s: %v", want, uris)
			}
		}
		if n := len(slices.Compact(slices.Sorted(slices.Values(uris)))); n != len(uris) {
			t.Errorf("a resource is listed twice across pages: %v", uris)
		}
		var read struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(three.Call("resources/read", map[string]any{"uri": "postgres://reports/r/daily/schema"}), &read); err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"orders"`) {
			t.Errorf("reading reports' r.daily: %v %+v", err, read)
		}
		var comp struct {
			Completion mcpkit.Completion `json:"completion"`
		}
		raw := three.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "postgres://reports/{schema}/{table}/schema"},
			"argument": map[string]any{"name": "table", "value": "d"}, "context": map[string]any{"arguments": map[string]any{"schema": "r"}}})
		if err := json.Unmarshal(raw, &comp); err != nil || !slices.Equal(comp.Completion.Values, []string{"daily"}) {
			t.Errorf("completing reports' tables: %v %s", err, raw)
		}
		raw = three.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "write_query"},
			"argument": map[string]any{"name": "database", "value": "st"}})
		if err := json.Unmarshal(raw, &comp); err != nil || !slices.Equal(comp.Completion.Values, []string{"staging"}) {
			t.Errorf("completing database: %v %s", err, raw)
		}
	})

	t.Run("write_query per database", func(t *testing.T) {
		var got struct {
			Messages []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		raw := three.Call("prompts/get", map[string]any{"name": "write_query", "arguments": map[string]any{"question": "orders per day?", "database": "reports", "schema": "r"}})
		if err := json.Unmarshal(raw, &got); err != nil || len(got.Messages) != 1 {
			t.Fatalf("prompts/get: %v %s", err, raw)
		}
		text := got.Messages[0].Content.Text
		for _, w := range []string{`about database reports, then run it with the query tool, passing database "reports"`, "r.daily"} {
			if !strings.Contains(text, w) {
				t.Errorf("prompt lacks %q:\n%.600s", w, text)
			}
		}
		if r := three.Request("prompts/get", map[string]any{"name": "write_query", "arguments": map[string]any{"question": "x"}}); r.Error == nil || !strings.Contains(r.Error.Message, `needs argument "database"`) {
			t.Errorf("write_query without database: %+v", r.Error)
		}
	})

	t.Run("writes name the database", func(t *testing.T) {
		w := mcpkittest.Connect(t, newMultiServer(t, namedDBs(names, dbs), "app", Config{AllowWrites: true}), "2026-07-28",
			&mcpkittest.Options{Capabilities: elicitCaps})
		args := map[string]any{"database": "staging", "sql": "UPDATE shop.customers SET name = name || '!' WHERE id = 3 RETURNING name"}
		res := w.CallTool("execute", args)
		var p struct {
			Message string `json:"message"`
		}
		if ask, ok := res.InputRequests["confirm"]; !ok || json.Unmarshal(ask.Params, &p) != nil ||
			!strings.HasPrefix(p.Message, `Run this statement on database staging (PostgreSQL database "`+dbases[1].Name+`", host `) {
			t.Fatalf("confirmation %q (%s); want it to name staging first", p.Message, res.Text())
		}
		res = w.RetryTool("execute", args, res.RequestState, map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}})
		out := structured(t, "execute", res)
		if out["database"] != "staging" || jsonAt(t, out["rows"]) != `[["Grace!"]]` {
			t.Errorf("execute answered %s; want database staging and Grace!", jsonAt(t, out))
		}
		if n := rowCount(t, dbs[0], "SELECT count(*) FROM shop.customers WHERE name LIKE '%!'"); n != 0 {
			t.Errorf("app changed too: %d rows", n)
		}
	})

	t.Run("bypass corpus against every database", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "mcpkit-bypass-multi-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o777)
		for i, name := range names {
			admin := connectAdmin(t, dbases[i].URL)
			before := snapshot(t, admin, dir)
			for _, tc := range bypassCorpus {
				if tc.short {
					continue // needs the short statement timeout of its own DB; TestBypassCorpus runs it
				}
				sql := strings.ReplaceAll(tc.sql, "{dir}", dir)
				res := three.CallTool("query", map[string]any{"database": name, "sql": sql})
				if tc.super != harmless && !res.IsError {
					t.Errorf("%s: %q ran: %.200s", name, tc.sql, res.Text())
				}
			}
			if diff := cmp.Diff(before, snapshot(t, admin, dir)); diff != "" {
				t.Errorf("%s changed (-before +after):\n%s", name, diff)
			}
		}
	})
}
