package argschema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/internal/argschema"
	"github.com/mcpkit/reference/pkg/mcpkit/schemafull"
)

// compile is argschema's validator in the form schemafull's takes.
func compile(schema json.RawMessage) (func(json.RawMessage) string, error) {
	s, err := argschema.Compile(schema)
	if err != nil {
		return nil, err
	}
	return s.Validate, nil
}

// TestArgSchemaAgreesWithFullValidator checks mcpkit's own argument validator against
// a complete JSON Schema 2020-12 validator (schemafull): every tool input schema the
// four servers publish (their golden tools/list files) and the fixture's, each with a
// corpus of arguments built from the schema (every property given values of every
// JSON type and at its bounds, required properties left out, unknown properties
// added). The two must accept and reject exactly the same arguments.
func TestArgSchemaAgreesWithFullValidator(t *testing.T) {
	schemas := map[string]json.RawMessage{}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "servers", "*", "testdata", "tools*.golden.json"))
	if len(files) < 4 {
		t.Fatalf("found %d golden tools files, want the servers' (at least 4)", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var golden struct { // the format mcpkittest.ToolsGolden writes
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &golden); err != nil || len(golden.Tools) == 0 {
			t.Fatalf("%s: no tools read (%v)", f, err)
		}
		tools := golden.Tools
		for _, tl := range tools {
			schemas[filepath.Base(filepath.Dir(filepath.Dir(f)))+"/"+tl.Name] = tl.InputSchema
		}
	}
	cases, disagreements := 0, 0
	for name, schema := range schemas {
		ours, err := compile(schema)
		if err != nil {
			t.Errorf("%s: mcpkit cannot compile the schema: %v", name, err)
			continue
		}
		full, err := schemafull.Compile(schema)
		if err != nil {
			t.Fatalf("%s: schemafull: %v", name, err)
		}
		for _, args := range argumentCorpus(t, schema) {
			cases++
			o, f := ours(args), full(args)
			if (o == "") != (f == "") {
				disagreements++
				if disagreements <= 20 {
					t.Errorf("%s with %s: mcpkit says %q, the full validator %q", name, args, o, f)
				}
			}
		}
	}
	if cases < 1000 {
		t.Errorf("only %d cases; the corpus generator is broken", cases)
	}
	t.Logf("%d schemas, %d argument sets, %d disagreements", len(schemas), cases, disagreements)
}

// argumentCorpus builds argument objects for an object schema.
func argumentCorpus(t *testing.T, schema json.RawMessage) []json.RawMessage {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	base := map[string]any{}
	for _, name := range s.Required {
		base[name] = sampleValue(s.Properties[name])
	}
	var out []json.RawMessage
	add := func(m map[string]any) {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	add(base)
	add(map[string]any{})
	for _, name := range s.Required {
		m := clone(base)
		delete(m, name)
		add(m)
	}
	extra := clone(base)
	extra["unknownArgument"] = 1
	add(extra)
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range valuesFor(s.Properties[name]) {
			m := clone(base)
			m[name] = v
			add(m)
		}
	}
	return out
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// generic values of every JSON type, including edge cases of each.
var generic = []any{nil, true, false, 0, -1, 1, 2.5, 1e6, 100, 101, 1000, 1001, 10000, 10001, json.Number("1.0"),
	"", "a", "x/y.go", "-1", "ÿé", string(make([]byte, 300)), []any{}, []any{"a"}, []any{1}, []any{"a", "a"},
	[]any{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}, map[string]any{}, map[string]any{"k": "v"}}

// valuesFor is every generic value plus values at the schema's own bounds and enums,
// and for an array one-item arrays of the values for its items (one level down).
func valuesFor(p map[string]any) []any {
	vs := slices.Clone(generic)
	for _, kw := range []string{"minimum", "maximum"} {
		if n, ok := p[kw].(float64); ok {
			vs = append(vs, n, n-1, n+1, n-0.5, n+0.5)
		}
	}
	for _, kw := range []string{"minLength", "maxLength"} {
		if n, ok := p[kw].(float64); ok {
			for _, l := range []int{int(n) - 1, int(n), int(n) + 1} {
				if l >= 0 {
					vs = append(vs, string(make([]rune, l)))
					vs = append(vs, fmt.Sprintf("%0*d", l, 0))
				}
			}
		}
	}
	if e, ok := p["enum"].([]any); ok {
		vs = append(vs, e...)
	}
	if items, ok := p["items"].(map[string]any); ok {
		itemValues := slices.Clone(generic)
		if e, ok := items["enum"].([]any); ok {
			itemValues = append(itemValues, e...)
		}
		for _, v := range itemValues {
			vs = append(vs, []any{v})
		}
	}
	return vs
}

// sampleValue is a value that is likely valid for p, to fill required properties.
func sampleValue(p map[string]any) any {
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch p["type"] {
	case "string":
		if p["pattern"] != nil || p["minLength"] != nil {
			return "abc123"
		}
		return "a"
	case "integer", "number":
		if n, ok := p["minimum"].(float64); ok {
			return n
		}
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "a"
}

// hugeExponent matches numbers with exponents of four digits or more.
var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[1-9][0-9]{3,}`)

// FuzzArgSchemaAgreesWithFullValidator feeds arbitrary JSON arguments to both
// validators over schemas that use every keyword mcpkit checks itself.
func FuzzArgSchemaAgreesWithFullValidator(f *testing.F) {
	schemas := []string{
		`{"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":8,"pattern":"^[a-z/]+$"},"n":{"type":"integer","minimum":0,"maximum":10},"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25}},"required":["path"],"additionalProperties":false}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1,"maxItems":3,"uniqueItems":true},"v":{"anyOf":[{"type":"string"},{"type":"null"}]},"o":{"type":"object","properties":{"k":{"const":1}},"minProperties":1,"maxProperties":2,"additionalProperties":{"type":"boolean"}}}}`,
		`{"type":"object","properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number","minimum":5}]},"b":{"not":{"type":["string","null"]}},"c":{"allOf":[{"type":"integer"},{"maximum":3}]},"d":false,"e":true}}`,
	}
	type pair struct{ ours, full func(json.RawMessage) string }
	var pairs []pair
	for _, s := range schemas {
		o, err := compile(json.RawMessage(s))
		if err != nil {
			f.Fatal(err)
		}
		full, err := schemafull.Compile(json.RawMessage(s))
		if err != nil {
			f.Fatal(err)
		}
		pairs = append(pairs, pair{o, full})
	}
	for _, seed := range []string{`{"path":"a/b"}`, `{"path":"","n":11}`, `{"n":1.0,"x":0.5,"path":"x"}`, `{"l":["a","a"],"v":null,"o":{"k":1,"z":true}}`,
		`{"a":5.5,"b":1,"c":2}`, `{"a":1,"b":"s","d":0}`, `{"l":[],"o":{}}`, `{"x":1e-400,"path":"\u00e9"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		var probe map[string]any
		if json.Unmarshal([]byte(args), &probe) != nil {
			return // not a JSON object: tools/call refuses it before validation
		}
		if hugeExponent.MatchString(args) {
			return // schemafull refuses these outright (TestArgSchemaHugeExponents covers ours)
		}
		for i, p := range pairs {
			o, full := p.ours(json.RawMessage(args)), p.full(json.RawMessage(args))
			if (o == "") != (full == "") {
				t.Errorf("schema %d, args %s: mcpkit says %q, the full validator %q", i, args, o, full)
			}
		}
	})
}
