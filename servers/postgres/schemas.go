package postgres

import (
	"github.com/invopop/jsonschema"
)

// Schema refinements for tool outputs. Values of any JSON type (result cells,
// params) need none: mcpkit's reflector spells them out as anyOf the six JSON types.

// JSONSchemaExtend says what EXPLAIN (FORMAT JSON) returns: an array holding one
// object with the Plan.
func (ExplainResult) JSONSchemaExtend(s *jsonschema.Schema) {
	if plan, ok := s.Properties.Get("plan"); ok {
		plan.AnyOf = nil
		plan.Type = "array"
		plan.Items = &jsonschema.Schema{Type: "object"}
	}
}
