package postgres

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// objectsSQL is the fixture of the object tool: functions (SQL, PL/pgSQL, a
// procedure, an aggregate, a security definer), a trigger (and a disabled one),
// sequences (one owned by a column), an extension, an enum, a domain, a composite
// type, roles with grants, and a database setting.
const objectsSQL = `
CREATE SCHEMA app;
CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
COMMENT ON TYPE app.mood IS 'How a customer feels';
CREATE DOMAIN app.email AS text CHECK (VALUE ~ '@');
CREATE TYPE app.money_pair AS (amount numeric(10,2), currency char(3));
CREATE TABLE app.people (id serial PRIMARY KEY, name text NOT NULL, mood app.mood, updated timestamptz);
CREATE SEQUENCE app.tickets START 100 INCREMENT 5;
SELECT nextval('app.tickets');
CREATE FUNCTION app.add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
COMMENT ON FUNCTION app.add(int, int) IS 'Adds two numbers';
CREATE FUNCTION app.touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated := now(); RETURN NEW; END $$;
CREATE FUNCTION app.secret() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER AS $$ SELECT 'x' $$;
CREATE PROCEDURE app.archive(days int) LANGUAGE sql AS $$ DELETE FROM app.people WHERE false $$;
CREATE AGGREGATE app.total(int) (SFUNC = int4pl, STYPE = int);
CREATE TRIGGER people_touch BEFORE UPDATE ON app.people FOR EACH ROW EXECUTE FUNCTION app.touch();
CREATE TRIGGER people_off AFTER INSERT ON app.people FOR EACH ROW EXECUTE FUNCTION app.touch();
ALTER TABLE app.people DISABLE TRIGGER people_off;
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
INSERT INTO app.people (name, mood) VALUES ('plain', 'ok'), (E'evil\u202Egnp.exe\u200B', 'sad');
CREATE TABLE app.docs (id int, body jsonb, tags text[]);
INSERT INTO app.docs VALUES (1, E'{"k\u200Dey": "v\u2066al", "n": 2, "esc": "\\u0007 and \\\\u0007"}', ARRAY[E'a\u200Bb', 'c']);
`

// TestListObjects runs list_objects against the fixture: every kind, the schema and
// name filters, the connected role first with what it may do, and a role that can see
// little seeing only that.
func TestListObjects(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "pg_stat_statements")
	d.Exec(t, objectsSQL)
	reader := d.CreateRole(t, "objreader", "NOSUPERUSER", "")
	d.Exec(t, "GRANT USAGE ON SCHEMA app TO "+reader+"; GRANT SELECT ON app.people TO "+reader+"; ALTER DATABASE "+quoteIdent(d.Name)+" SET work_mem = '8MB'")
	c := mcpkittest.Connect(t, newServer(openDB(t, d.URL, Options{}), Config{}), "2025-11-25", nil)
	rc := mcpkittest.Connect(t, newServer(openDB(t, d.URLAs(reader, ""), Options{}), Config{}), "2025-11-25", nil)

	list := func(c *mcpkittest.Client, args map[string]any) []map[string]any {
		t.Helper()
		out := structured(t, "list_objects", c.CallTool("list_objects", args))
		if out["untrusted"] != "objects" && len(out["objects"].([]any)) > 0 {
			t.Errorf("%v: untrusted %v; want objects", args, out["untrusted"])
		}
		var objs []map[string]any
		for _, o := range out["objects"].([]any) {
			objs = append(objs, o.(map[string]any))
		}
		return objs
	}
	find := func(objs []map[string]any, name string) map[string]any {
		t.Helper()
		for _, o := range objs {
			if o["name"] == name {
				return o
			}
		}
		t.Errorf("no %s in %s", name, jsonAt(t, objs))
		return map[string]any{}
	}
	check := func(what string, got map[string]any, want string) {
		t.Helper()
		var w map[string]any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		for k, v := range w {
			if jsonAt(t, got[k]) != jsonAt(t, v) {
				t.Errorf("%s.%s = %s; want %s", what, k, jsonAt(t, got[k]), jsonAt(t, v))
			}
		}
	}

	fns := list(c, map[string]any{"kind": "functions", "schema": "app"})
	if len(fns) != 5 {
		t.Errorf("%d functions; want add, archive, secret, total, touch: %s", len(fns), jsonAt(t, fns))
	}
	check("add", find(fns, "add"), `{"schema":"app","kind":"function","arguments":"a integer, b integer","returns":"integer","language":"sql","volatility":"immutable","comment":"Adds two numbers"}`)
	check("archive", find(fns, "archive"), `{"kind":"procedure","arguments":"IN days integer"}`)
	check("total", find(fns, "total"), `{"kind":"aggregate"}`)
	check("secret", find(fns, "secret"), `{"securityDefiner":true,"volatility":"stable"}`)
	if def := find(fns, "touch")["definition"]; def != nil {
		t.Errorf("a listing shows definitions: %v", def)
	}
	one := list(c, map[string]any{"kind": "functions", "name": "touch"})
	if len(one) != 1 || !strings.Contains(one[0]["definition"].(string), "NEW.updated := now()") {
		t.Errorf("touch by name: %s; want its definition", jsonAt(t, one))
	}
	for _, o := range list(c, map[string]any{"kind": "functions"}) {
		if strings.HasPrefix(o["name"].(string), "pg_stat_statements") {
			t.Errorf("an extension's function is listed: %v", o["name"])
		}
	}

	trg := list(c, map[string]any{"kind": "triggers", "schema": "app"})
	check("people_touch", find(trg, "people_touch"), `{"table":"app.people","enabled":true,"definition":"CREATE TRIGGER people_touch BEFORE UPDATE ON app.people FOR EACH ROW EXECUTE FUNCTION app.touch()"}`)
	check("people_off", find(trg, "people_off"), `{"enabled":false}`)

	seqs := list(c, map[string]any{"kind": "sequences", "schema": "app"})
	check("tickets", find(seqs, "tickets"), `{"dataType":"bigint","start":100,"increment":5,"lastValue":100}`)
	check("people_id_seq", find(seqs, "people_id_seq"), `{"dataType":"integer","ownedBy":"app.people.id","lastValue":2}`)

	exts := list(c, map[string]any{"kind": "extensions"})
	if exts[0]["name"] != "plpgsql" && exts[0]["name"] != "pg_stat_statements" {
		t.Errorf("installed extensions are not first: %s", jsonAt(t, exts[:2]))
	}
	if v := find(exts, "pg_stat_statements")["version"]; v == nil || v == "" {
		t.Errorf("pg_stat_statements is not shown installed")
	}

	types := list(c, map[string]any{"kind": "types", "schema": "app"})
	check("mood", find(types, "mood"), `{"kind":"enum","values":["sad","ok","happy"],"comment":"How a customer feels"}`)
	check("email", find(types, "email"), `{"kind":"domain","dataType":"text","values":["CHECK ((VALUE ~ '@'::text))"]}`)
	check("money_pair", find(types, "money_pair"), `{"kind":"composite","values":["amount numeric(10,2)","currency character(3)"]}`)
	if len(types) != 3 {
		t.Errorf("%d types; want mood, email, money_pair (no table row types, no arrays): %s", len(types), jsonAt(t, types))
	}

	roles := list(rc, map[string]any{"kind": "roles"})
	if roles[0]["name"] != reader || roles[0]["current"] != true {
		t.Fatalf("first role %s; want the connected %s", jsonAt(t, roles[0]), reader)
	}
	if got := jsonAt(t, roles[0]["mayDo"]); !strings.Contains(got, `"schema app: USAGE"`) || !strings.Contains(got, `"table app.people: SELECT"`) || strings.Contains(got, "app.docs") {
		t.Errorf("the reader may do %s; want USAGE on app and SELECT on app.people only", got)
	}
	if find(list(c, map[string]any{"kind": "roles", "name": reader}), reader)["mayDo"] != nil {
		t.Errorf("another role's privileges are listed as the connected role's")
	}

	sets := list(c, map[string]any{"kind": "settings"})
	check("work_mem", find(sets, "work_mem"), `{"setting":"8192 kB","default":"4096 kB","source":"database"}`)
	for _, o := range sets {
		if o["source"] == "session" || o["source"] == "client" || o["name"] == "statement_timeout" {
			t.Errorf("a setting of the server's own session is listed: %v", o)
		}
	}

	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"kind": "roles", "schema": "app"}, "schema does not apply to roles"},
		{map[string]any{"kind": "functions", "schema": "nope"}, `schema "nope" does not exist`},
		{map[string]any{"kind": "views"}, "must be one of"},
	} {
		if res := c.CallTool("list_objects", bad.args); !res.IsError || !strings.Contains(res.Text(), bad.want) {
			t.Errorf("%v: isError=%v %q; want %q", bad.args, res.IsError, res.Text(), bad.want)
		}
	}
}

// TestRowTextMarked: a planted row with bidirectional and zero-width characters (in
// text, an array and jsonb, keys included) comes back with each one written as a
// visible \u{…} escape and counted, the rest of the text as it is, and the result names
// its rows as database text.
func TestRowTextMarked(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.RequireExtension(t, "pg_stat_statements")
	d.Exec(t, objectsSQL)
	c := mcpkittest.Connect(t, newServer(openDB(t, d.URL, Options{}), Config{}), "2025-11-25", nil)

	res := c.CallTool("query", map[string]any{"sql": "SELECT name AS \"na\u200bme\" FROM app.people ORDER BY id"})
	out := structured(t, "query", res)
	if got, want := jsonAt(t, out["rows"]), `[["plain"],["evil\\u{202E}gnp.exe\\u{200B}"]]`; got != want {
		t.Errorf("rows %s; want %s", got, want)
	}
	if got := jsonAt(t, out["columns"]); !strings.Contains(got, `"na\\u{200B}me"`) {
		t.Errorf("columns %s; want the hidden character in the name shown", got)
	}
	if out["untrusted"] != "rows" || out["hiddenShown"] != float64(3) {
		t.Errorf("untrusted %v hiddenShown %v; want rows and 3", out["untrusted"], out["hiddenShown"])
	}
	for _, r := range []rune{'\u202e', '\u200b'} {
		if strings.ContainsRune(res.Text(), r) {
			t.Errorf("the text content carries %U", r)
		}
	}

	out = structured(t, "query docs", c.CallTool("query", map[string]any{"sql": "SELECT body, tags FROM app.docs"}))
	want := `[[{"esc":"\\u{0007} and \\u0007","k\\u{200D}ey":"v\\u{2066}al","n":2},["a\\u{200B}b","c"]]]`
	if got := jsonAt(t, out["rows"]); got != want {
		t.Errorf("rows %s\nwant %s", got, want)
	}
	if out["hiddenShown"] != float64(4) {
		t.Errorf("hiddenShown %v; want 4", out["hiddenShown"])
	}

	out = structured(t, "plain", c.CallTool("query", map[string]any{"sql": "SELECT 'plain' AS v"}))
	if _, ok := out["hiddenShown"]; ok || out["untrusted"] != "rows" {
		t.Errorf("a plain row: %v", out)
	}
	out = structured(t, "empty", c.CallTool("query", map[string]any{"sql": "SELECT 1 WHERE false"}))
	if _, ok := out["untrusted"]; ok {
		t.Errorf("a result without rows names untrusted: %v", out)
	}
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
