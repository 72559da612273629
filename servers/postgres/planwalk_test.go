package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestColumnRefs(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // alias.column=eq|range, space-separated
	}{
		{"(o.customer_id = 42)", "o.customer_id=eq"},
		{"(($1 = o.customer_id) AND (o.total > 10.5))", "o.customer_id=eq o.total=range"},
		{"((o.status = 'paid'::text) AND (o.created_at >= '2024-01-01 00:00:00'::timestamp without time zone))", "o.status=eq o.created_at=range"},
		{"(o.id = ANY ('{1,2,3}'::bigint[]))", "o.id=eq"},
		{"(lower(c.email) = 'a@b.c'::text)", ""},
		{"((c.name)::text = 'x'::text)", ""},
		{"(c.note IS NULL)", "c.note=range"},
		{"(c.name ~~ 'Ad%'::text)", "c.name=range"},
		{"(c.name <> 'x'::text)", ""},
		{`("Weird Alias"."Col ""q""" = 1)`, `Weird Alias.Col "q"=eq`},
		{"(o.note = 'it''s o.customer_id = 1'::text)", "o.note=eq"},
		{"(o.tags @> '{a}'::text[])", ""},
		{"(o.customer_id = c.id)", "o.customer_id=eq c.id=eq"},
		{"(o.total = public.f(o.customer_id))", "o.total=eq"},
		{"(o.d = (CURRENT_DATE - 1))", "o.d=eq"},
	} {
		var got []string
		for _, r := range columnRefs(tc.expr) {
			kind := "range"
			if r.eq {
				kind = "eq"
			}
			got = append(got, r.alias+"."+r.column+"="+kind)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %q, want %q", tc.expr, g, tc.want)
		}
	}
}

func TestSortColumns(t *testing.T) {
	for _, tc := range []struct {
		keys  []string
		alias string
		cols  []string
	}{
		{[]string{"o.total DESC", "o.id"}, "o", []string{"total", "id"}},
		{[]string{"o.total", "c.name"}, "o", []string{"total"}},
		{[]string{"(lower(o.note))", "o.id"}, "", nil},
		{[]string{`"O"."Total" NULLS FIRST`}, "O", []string{"Total"}},
	} {
		alias, cols := sortColumns(tc.keys)
		if alias != tc.alias || !cmp.Equal(cols, tc.cols) {
			t.Errorf("%q: got %q %q, want %q %q", tc.keys, alias, cols, tc.alias, tc.cols)
		}
	}
}

// TestPlanCandidates reads a plan of a join with a filter and a sort (as EXPLAIN
// (FORMAT JSON, VERBOSE) prints it) and proposes indexes from its filter, join and
// sort columns, only for tables read by a sequential scan.
func TestPlanCandidates(t *testing.T) {
	const plan = `{"Node Type": "Sort", "Total Cost": 3594.54, "Sort Key": ["o.total DESC"],
 "Plans": [{"Node Type": "Hash Join", "Hash Cond": "(o.customer_id = c.id)", "Plans": [
   {"Node Type": "Seq Scan", "Relation Name": "orders", "Schema": "shop", "Alias": "o", "Filter": "((o.status = 'paid'::text) AND (o.total > $1))"},
   {"Node Type": "Hash", "Plans": [{"Node Type": "Index Scan", "Relation Name": "customers", "Schema": "shop", "Alias": "c",
     "Index Name": "customers_pkey", "Index Cond": "(c.id = 5)"}]}]}]}`
	var root advNode
	if err := json.Unmarshal([]byte(plan), &root); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range planCandidates(&root) {
		got = append(got, fmt.Sprintf("%s.%s(%s) %s", c.schema, c.table, strings.Join(c.columns, ","), strings.Join(c.reasons, "+")))
	}
	want := []string{
		"shop.orders(status,total) filter+sort",
		"shop.orders(status) filter",
		"shop.orders(total) filter+sort",
		"shop.orders(customer_id) join",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("candidates (-want +got):\n%s", d)
	}
	if !root.usesIndex("customers_pkey") || root.usesIndex("nope") {
		t.Error("usesIndex")
	}
}
