package mcpkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
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

// compileSchema prepares a schema for validating arguments. Remote $refs are never
// fetched: the compiler has no loader for them.
func compileSchema(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	loc := "mcpkit:///tools/" + name + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// noLoader refuses every external schema: a tool schema must be self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %s; only self-contained schemas are allowed", url)
}

var printer = xmessage.NewPrinter(language.English)
