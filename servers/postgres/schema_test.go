package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestOutputSchemas checks that every result type works as a tool output type: the
// schema mcpkit generates for it describes every property, and real results validate
// against it.
func TestOutputSchemas(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, catalogFixture)
	db := openDB(t, d.URL, Options{})
	ctx := context.Background()
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		name   string
		schema json.RawMessage
		value  any
	}{
		{"QueryResult", mcpkit.SchemaFor[QueryResult](), must(db.Query(ctx, "SELECT * FROM shop.orders, generate_series(1, 2000)", nil))},
		{"ExplainResult", mcpkit.SchemaFor[ExplainResult](), must(db.Explain(ctx, "SELECT * FROM shop.orders", nil, true))},
		{"EffectEstimate", mcpkit.SchemaFor[EffectEstimate](), must(db.EstimateEffect(ctx, "DELETE FROM shop.orders", nil))},
		{"SchemaList", mcpkit.SchemaFor[SchemaList](), must(db.ListSchemas(ctx))},
		{"TableList", mcpkit.SchemaFor[TableList](), must(db.ListTables(ctx, ""))},
		{"TableDescription", mcpkit.SchemaFor[TableDescription](), must(db.DescribeTable(ctx, "shop", "orders"))},
		{"ActivityReport", mcpkit.SchemaFor[ActivityReport](), must(db.Activity(ctx))},
		{"WriteAccess", mcpkit.SchemaFor[WriteAccess](), must(db.CanWrite(ctx))},
		{"ExecResult", mcpkit.SchemaFor[ExecResult](), must(db.Execute(ctx, "UPDATE shop.orders SET status = 'x' RETURNING id", nil, true))},
		{"SQLError", mcpkit.SchemaFor[SQLError](), func() any { _, err := db.Query(ctx, "SELECT * FROM nope", nil); return err }()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(c.schema, &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range undescribed(doc, "") {
				t.Errorf("property %s has no description", p)
			}
			compiled := compile(t, c.schema)
			b, err := json.Marshal(c.value)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := compiled.Validate(inst); err != nil {
				t.Errorf("result does not match its schema: %v\nresult: %.500s", err, b)
			}
		})
	}
}

func compile(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// undescribed lists object properties (recursively) that lack a description.
func undescribed(schema map[string]any, path string) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if d, _ := ps["description"].(string); d == "" {
			out = append(out, path+name)
		}
		out = append(out, undescribed(ps, path+name+".")...)
		if items, ok := ps["items"].(map[string]any); ok {
			out = append(out, undescribed(items, path+name+"[].")...)
		}
	}
	return out
}
