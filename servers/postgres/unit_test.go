package postgres

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestConfirmMessage: what the user reads before a write: target, statement,
// params, estimate or why there is none, and a refusal of what is too long to show.
func TestConfirmMessage(t *testing.T) {
	target := Target{Host: "db.example.com", Port: 5432, Database: "shop", User: "app"}
	in := executeInput{SQL: "UPDATE t SET v = $1 WHERE id < $2", Params: Params{[]byte(`"x"`), []byte(`3`)}}
	got, err := confirmMessage(target, "", in, &EffectEstimate{Estimated: true, EstimatedRows: 2,
		Targets: []TableEffect{{Operation: "Update", Table: "public.t", EstimatedRows: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `Run this statement on database "shop" (host db.example.com, user app) and commit it?

UPDATE t SET v = $1 WHERE id < $2

Parameters:
  $1 = "x"
  $2 = 3

Estimated effect: about 2 rows (UPDATE public.t: 2 rows), as estimated by the planner without running the statement.
It is committed as soon as you confirm; this server cannot undo it.`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("message (-want +got):\n%s", d)
	}

	got, err = confirmMessage(target, "", executeInput{SQL: "DROP TABLE t\u200b"}, &EffectEstimate{Note: "PostgreSQL cannot estimate the effect of this statement"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`DROP TABLE t\u{200B}`, "WARNING: the statement contains 1 invisible", "Estimated effect: not available: PostgreSQL cannot estimate"} {
		if !strings.Contains(got, w) {
			t.Errorf("DDL message lacks %q:\n%s", w, got)
		}
	}

	_, err = confirmMessage(target, "", executeInput{SQL: "INSERT INTO t VALUES " + strings.Repeat("(1, 'x'), ", 4000)}, &EffectEstimate{})
	if err == nil || !strings.Contains(err.Error(), "too long to show the user") {
		t.Errorf("a 40 KB statement: %v; want a refusal", err)
	}
}

// TestCheckRole: a superuser is refused unless allowed; a role that can write starts
// with a warning naming the recommended role; a reader starts silently.
func TestCheckRole(t *testing.T) {
	for _, tc := range []struct {
		name    string
		access  WriteAccess
		policy  RolePolicy
		err     string
		warning string
	}{
		{"reader", WriteAccess{Role: "r"}, RolePolicy{}, "", ""},
		{"superuser refused", WriteAccess{Role: "postgres", Superuser: true, CanWrite: true}, RolePolicy{}, "refusing to start: role \"postgres\" is a superuser", ""},
		{"superuser refused with writes", WriteAccess{Role: "postgres", Superuser: true, CanWrite: true}, RolePolicy{AllowWrites: true}, "--allow-superuser", ""},
		{"superuser allowed", WriteAccess{Role: "postgres", Superuser: true, CanWrite: true}, RolePolicy{AllowSuperuser: true}, "", "is a superuser (allowed by --allow-superuser)"},
		{"writer warned", WriteAccess{Role: "app", CanWrite: true, Reasons: []string{"INSERT/UPDATE/DELETE/TRUNCATE on public.t"}}, RolePolicy{},
			"", "role \"app\" can write (INSERT/UPDATE/DELETE/TRUNCATE on public.t)"},
		{"writer with writes", WriteAccess{Role: "app", CanWrite: true}, RolePolicy{AllowWrites: true}, "", ""},
		{"reader with writes", WriteAccess{Role: "r"}, RolePolicy{AllowWrites: true}, "", "--allow-writes is set but role \"r\" holds no write privilege"},
	} {
		warnings, err := CheckRole(&tc.access, tc.policy)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "GRANT pg_read_all_data")):
			t.Errorf("%s: error %v; want one containing %q and the reader role SQL", tc.name, err, tc.err)
		}
		all := strings.Join(warnings, "\n")
		if tc.warning == "" && all != "" || !strings.Contains(all, tc.warning) || len(warnings) > 1 {
			t.Errorf("%s: warnings %q; want one containing %q", tc.name, warnings, tc.warning)
		}
		if tc.name == "writer warned" && !strings.Contains(all, ReaderRoleSQL) {
			t.Errorf("writer warning does not name the recommended role setup: %s", all)
		}
	}
}

// TestRelevantTables: with many tables, the prompt describes those the question
// names (plural or singular, whole name or snake_case part) and lists the others.
func TestRelevantTables(t *testing.T) {
	var tables []TableSummary
	for _, n := range []string{"accounts", "audit_log", "categories", "customer", "invoices", "order_items", "orders", "payments", "products", "refunds", "sessions", "shipments"} {
		tables = append(tables, TableSummary{Schema: "public", Name: n})
	}
	tables[8].Comment = "Things the shop sells"
	names := func(ts []TableSummary) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	chosen, others := relevantTables(tables, "How many orders per customer, and which products do they sell?")
	if d := cmp.Diff([]string{"products", "customer", "orders", "order_items"}, names(chosen)); d != "" {
		t.Errorf("chosen (-want +got):\n%s", d)
	}
	if len(others) != len(tables)-4 || others[0].Name != "accounts" {
		t.Errorf("others %v; want the remaining 8 in name order", names(others))
	}
	chosen, others = relevantTables(tables, "zzz")
	if len(chosen) != promptTables || chosen[0].Name != "accounts" || len(others) != 2 {
		t.Errorf("no match: chosen %v others %v; want the first %d by name", names(chosen), names(others), promptTables)
	}
	chosen, others = relevantTables(tables[:3], "zzz")
	if len(chosen) != 3 || others != nil {
		t.Errorf("few tables: chosen %v others %v; want all of them", names(chosen), names(others))
	}
}

// TestInputSchemas holds input_schemas.json, the schemas New takes instead of
// generating them at every start, to what the tools' Go types generate (-update or
// go generate rewrites it). No database is reached: New only builds the server.
func TestInputSchemas(t *testing.T) {
	db, err := prepare("postgres://nobody@/nowhere?host=/nonexistent-dir", Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mcpkittest.InputSchemas(t, "input_schemas.json", newServer(db, Config{AllowWrites: true}))
}

// TestEveryArgumentExplained: every argument of every tool is explained where the
// model reads it (its schema description, its tool's description, or the
// instructions), as docs/context-economy.md says of every server.
func TestEveryArgumentExplained(t *testing.T) {
	db, err := prepare("postgres://nobody@/nowhere?host=/nonexistent-dir", Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, writes := range []bool{false, true} {
		mcpkittest.CheckArgumentsExplained(t, newServer(db, Config{AllowWrites: writes}).Tools(), instructions(db, writes, true), nil)
	}
}
