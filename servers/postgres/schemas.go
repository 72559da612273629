package postgres

import (
	"github.com/invopop/jsonschema"
)

// Schema refinements for tool inputs and outputs. A value of any JSON type (a
// result cell, a param) is spelled out as anyOf the six JSON types instead of the
// bare `true` or `{}` the reflector writes for `any`: hosts that check tool schemas
// (the Inspector's --strict among them) reject or flag an untyped schema.

// anyJSONValue is the schema of a value that may be of any JSON type.
func anyJSONValue(desc string) *jsonschema.Schema {
	s := &jsonschema.Schema{Description: desc}
	for _, t := range []string{"string", "number", "boolean", "null", "array", "object"} {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
	}
	return s
}

// JSONSchema describes Params: an array of values of any type.
func (Params) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: anyJSONValue("The value of one placeholder")}
}

// rowsSchema types the cells of a rows property (an array of arrays of values).
func rowsSchema(s *jsonschema.Schema) {
	if rows, ok := s.Properties.Get("rows"); ok && rows.Items != nil {
		rows.Items.Items = anyJSONValue("One column's value")
	}
}

// JSONSchemaExtend types the cells of the rows.
func (QueryResult) JSONSchemaExtend(s *jsonschema.Schema) { rowsSchema(s) }

// JSONSchemaExtend types the cells of the RETURNING rows.
func (ExecResult) JSONSchemaExtend(s *jsonschema.Schema) { rowsSchema(s) }

// JSONSchemaExtend says what EXPLAIN (FORMAT JSON) returns: an array holding one
// object with the Plan.
func (ExplainResult) JSONSchemaExtend(s *jsonschema.Schema) {
	if plan, ok := s.Properties.Get("plan"); ok {
		plan.Type = "array"
		plan.Items = &jsonschema.Schema{Type: "object"}
	}
}
