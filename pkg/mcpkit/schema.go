package mcpkit

import (
	"bytes"
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
// (pkg/mcpkit/schemafull is a complete one); without it, no keyword is ever silently
// ignored: a schema the server wrote itself panics at registration, and one mcpkit
// generated (from struct tags such as jsonschema_extras) fails its tool's first call
// with an internal error and fails [Server.CheckTools], which mcpkittest.Connect runs.
// (A generated schema is compiled on its tool's first call: compiling every tool's at
// start cost about as much as the rest of a server's start.)

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

// GeneratedInputSchemas returns, by tool name, the input schema mcpkit generates by
// reflection from the Go input type of each typed tool registered without an
// InputSchema of its own, whether or not ServerOptions.InputSchemas supplied it: what
// that table must hold (mcpkittest.InputSchemas checks and writes it).
func (s *Server) GeneratedInputSchemas() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, rt := range s.tools.all() {
		if rt.generate != nil {
			out[rt.tool.Name] = rt.generate()
		}
	}
	return out
}

// CheckTools compiles the argument validator of every registered tool now (a tool
// whose schema mcpkit generated compiles on its first call otherwise) and returns the
// first failure: a test's way to find a schema nothing validates before a client does.
// It also reports a tool whose schema ServerOptions.InputSchemas supplied that differs
// from what reflection generates.
func (s *Server) CheckTools() error {
	for _, rt := range s.tools.all() {
		if _, err := rt.validator(s); err != nil {
			return err
		}
		if rt.generate != nil {
			if sc, ok := s.inputSchemas[rt.tool.Name]; ok && !bytes.Equal(sc, rt.generate()) {
				return fmt.Errorf("mcpkit: tool %q: its schema in ServerOptions.InputSchemas differs from the one generated from its Go input type: regenerate the table (mcpkittest.InputSchemas with -update)", rt.tool.Name)
			}
		}
	}
	return nil
}
