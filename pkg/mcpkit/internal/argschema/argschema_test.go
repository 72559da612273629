package argschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The validator's own cases: what each keyword accepts and rejects, and that every
// message names the field. diff_test.go checks it against a complete JSON Schema
// validator on the schemas the servers really use.

func TestArgSchemaKeywords(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		args    string
		wantErr string // "" for valid; else a substring of the message
	}{
		{"required present", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, `{"path":"a"}`, ""},
		{"required missing", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, `{}`, "missing property 'path'"},
		{"two missing", `{"type":"object","required":["a","b"]}`, `{}`, "missing properties 'a', 'b'"},
		{"wrong type names field", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"3"}`, `field "n": got string, want integer`},
		{"integer accepts 2.0", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.0}`, ""},
		{"integer rejects 2.5", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`, "got number, want integer"},
		{"big integer exact", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`, `{"n":9007199254740994}`, "must be <= 9007199254740993"},
		{"minimum", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":0}`, `field "n": must be >= 1 but found 0`},
		{"maximum ok", `{"type":"object","properties":{"n":{"type":"integer","maximum":10}}}`, `{"n":10}`, ""},
		{"exclusiveMaximum", `{"type":"object","properties":{"n":{"type":"number","exclusiveMaximum":10}}}`, `{"n":10}`, "must be < 10"},
		{"exclusiveMinimum", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0}}}`, `{"n":0}`, "must be > 0"},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}}}`, `{"n":1.25}`, "multiple of 1/2"},
		{"enum", `{"type":"object","properties":{"s":{"type":"string","enum":["name","size"]}}}`, `{"s":"date"}`, `value must be one of "name", "size"`},
		{"enum number by value", `{"type":"object","properties":{"s":{"enum":[1]}}}`, `{"s":1.0}`, ""},
		{"const", `{"type":"object","properties":{"s":{"const":"x"}}}`, `{"s":"y"}`, `value must be "x"`},
		{"minLength counts characters", `{"type":"object","properties":{"s":{"type":"string","minLength":2}}}`, `{"s":"é"}`, "at least 2 characters"},
		{"maxLength", `{"type":"object","properties":{"s":{"type":"string","maxLength":1}}}`, `{"s":"ab"}`, "at most 1 characters"},
		{"pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"s":"A"}`, "does not match the pattern"},
		{"pattern unanchored", `{"type":"object","properties":{"s":{"type":"string","pattern":"b"}}}`, `{"s":"abc"}`, ""},
		{"additional false", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":"x","zz":1}`, "unknown property 'zz' (allowed: a)"},
		{"additional schema", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"k":1}`, `field "k": got integer, want string`},
		{"additional default allowed", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"b":1}`, ""},
		{"items and index", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`, `{"l":["a",2]}`, `field "l[1]": got integer, want string`},
		{"nested path", `{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"boolean"}}}}}`, `{"o":{"p":"no"}}`, `field "o.p"`},
		{"minItems", `{"type":"object","properties":{"l":{"type":"array","minItems":1}}}`, `{"l":[]}`, "at least 1 items"},
		{"maxItems", `{"type":"object","properties":{"l":{"type":"array","maxItems":1}}}`, `{"l":[1,2]}`, "at most 1 items"},
		{"uniqueItems", `{"type":"object","properties":{"l":{"type":"array","uniqueItems":true}}}`, `{"l":[1,1.0]}`, "must be unique"},
		{"anyOf any JSON value", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},{"type":"array"},{"type":"object"}]}}}`, `{"v":[{"a":null}]}`, ""},
		{"anyOf none", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`, `{"v":true}`, "none of the 2 allowed forms"},
		{"oneOf two match", `{"type":"object","properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":1}`, "exactly one of 2 forms"},
		{"allOf", `{"type":"object","allOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1}`, "missing property 'b'"},
		{"not", `{"type":"object","properties":{"v":{"not":{"type":"null"}}}}`, `{"v":null}`, "not allowed (not)"},
		{"type list", `{"type":"object","properties":{"v":{"type":["string","null"]}}}`, `{"v":null}`, ""},
		{"false schema", `{"type":"object","properties":{"v":false}}`, `{"v":1}`, `field "v": not allowed`},
		{"minProperties", `{"type":"object","minProperties":1}`, `{}`, "at least 1 properties"},
		{"maxProperties", `{"type":"object","maxProperties":1}`, `{"a":1,"b":2}`, "at most 1 properties"},
		{"annotations ignored", `{"type":"object","title":"t","description":"d","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"s":{"type":"string","format":"email","default":"x","examples":["y"],"x-mcp-header":"S"}}}`, `{"s":"not an email"}`, ""},
		{"root must be object", `{"type":"object"}`, `[]`, "got array, want object"},
		{"invalid JSON", `{"type":"object"}`, `{"a":`, "not valid JSON"},
		{"every problem reported", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["c"]}`, `{"a":1,"b":"x"}`, `field "a": got integer, want string; field "b": got string, want integer; missing property 'c'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got := c.Validate(json.RawMessage(tt.args))
			switch {
			case tt.wantErr == "" && got != "":
				t.Errorf("args %s: got error %q, want valid", tt.args, got)
			case tt.wantErr != "" && !strings.Contains(got, tt.wantErr):
				t.Errorf("args %s: got %q, want it to contain %q", tt.args, got, tt.wantErr)
			}
		})
	}
}

// A keyword the validator does not check is never ignored: compiling fails, naming it
// (mcpkit's TestToolSchemaNeedsSchemaCompiler: a server without a SchemaCompiler then
// refuses to register the tool).
func TestArgSchemaRefusesUnknownKeywords(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","$defs":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}`,
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
		`{"type":"object","properties":{"l":{"type":"array","prefixItems":[{"type":"string"}]}}}`,
		`{"type":"object","dependentRequired":{"a":["b"]}}`,
		`{"type":"object","properties":{"l":{"type":"array","contains":{"type":"string"}}}}`,
		`{"type":"object","unevaluatedProperties":false}`,
		`{"type":"object","propertyNames":{"pattern":"^a"}}`,
		`{"type":"object","properties":{"s":{"type":"string","minLenght":3}}}`, // a typo is not an annotation
	} {
		_, err := Compile(json.RawMessage(schema))
		var unsupported *UnsupportedKeywordError
		if !errors.As(err, &unsupported) {
			t.Errorf("schema %s: got %v, want an unsupported keyword error", schema, err)
		}
	}
}

func TestArgSchemaRejectsMalformedSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"obj"}`,
		`{"type":"object","required":"a"}`,
		`{"type":"object","properties":{"n":{"minimum":"1"}}}`,
		`{"type":"object","properties":{"s":{"pattern":"("}}}`,
		`{"type":"object","properties":{"s":{"maxLength":-1}}}`,
		`{"type":"object","anyOf":[]}`,
		`[]`,
	} {
		if _, err := Compile(json.RawMessage(schema)); err == nil {
			t.Errorf("schema %s compiled; want an error", schema)
		}
	}
}
