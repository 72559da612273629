package mcpkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	invopop "github.com/invopop/jsonschema"

	"github.com/mcpkit/reference/pkg/mcpkit/internal/argschema"
)

// reflector is the one schema generator configuration every tool shares: flat,
// self-contained object schemas (no $ref, no $defs, no $id/$schema), fields required
// exactly when their json tag lacks omitempty/omitzero, and no additional properties.
var reflector = &invopop.Reflector{
	Anonymous:      true,
	DoNotReference: true,
	ExpandedStruct: true,
	Mapper: func(t reflect.Type) *invopop.Schema {
		if t == reflect.TypeFor[json.RawMessage]() || (t.Kind() == reflect.Interface && t.NumMethod() == 0) {
			return anyJSONValue()
		}
		return nil
	},
}

// anyJSONValue is the schema of a value of any JSON type, spelled out as anyOf the six
// types: hosts that check tool schemas (the Inspector's --strict among them) reject or
// flag the bare `true` or `{}` that would otherwise stand for it.
func anyJSONValue() *invopop.Schema {
	s := &invopop.Schema{}
	for _, t := range []string{"string", "number", "boolean", "null", "array", "object"} {
		s.AnyOf = append(s.AnyOf, &invopop.Schema{Type: t})
	}
	return s
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[reflect.Type]json.RawMessage{}
)

// SchemaFor returns the JSON Schema mcpkit generates for T: the input schema of a tool
// whose arguments are T, or the output schema of one that returns T.
func SchemaFor[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[t]; ok {
		return s
	}
	var s *invopop.Schema
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && t.NumField() == 0 {
		s = &invopop.Schema{Type: "object"}
		s.AdditionalProperties = invopop.FalseSchema
	} else {
		s = reflector.ReflectFromType(t)
	}
	s.Version = ""
	s.ID = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpkit: schema for %v: %v", t, err))
	}
	schemaCache[reflect.TypeFor[T]()] = b
	return b
}

// Tool arguments are checked against the tool's input schema before the handler runs.
// mcpkit validates the JSON Schema keywords its own generated schemas use (and a few
// more of the same kind) itself: a general validator costs a server milliseconds of
// package initialisation at every start and re-scans each call's arguments. A schema
// with any other assertion keyword needs [ServerOptions.SchemaCompiler]
// (pkg/mcpkit/schemafull is a complete one); without it registration panics, so no
// keyword is ever silently ignored.

// ArgumentValidator checks one call's arguments (a JSON object) and returns "" when
// they are valid, or a message naming every problem by field.
type ArgumentValidator func(args json.RawMessage) string

// SchemaCompiler turns a tool's input schema into an [ArgumentValidator].
type SchemaCompiler func(schema json.RawMessage) (ArgumentValidator, error)

// FieldPath renders the location of a value inside the arguments as a field path a
// model reads easily: field "a.b[2].c".
func FieldPath(loc []string) string { return argschema.FieldPath(loc) }

// compileArguments prepares a tool's input schema for checking arguments: with
// mcpkit's own validator when the schema keeps to the keywords it checks, else with
// [ServerOptions.SchemaCompiler].
func (s *Server) compileArguments(schema json.RawMessage) (ArgumentValidator, error) {
	c, err := argschema.Compile(schema)
	if err == nil {
		return c.Validate, nil
	}
	var unsupported *argschema.UnsupportedKeywordError
	if errors.As(err, &unsupported) && s.opts.SchemaCompiler != nil {
		return s.opts.SchemaCompiler(schema)
	}
	return nil, err
}
