package github

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// selfDescribing json names may go without a description: their meaning is plain from
// the name and every tool uses them the same way.
var selfDescribing = map[string]bool{"owner": true, "repo": true, "page": true}

// plainArguments are argument names whose meaning is plain from the name, its type
// and enum, and the tool (GitHub's own terms): they need no words anywhere.
var plainArguments = map[string]bool{"number": true, "title": true, "body": true, "state": true, "draft": true,
	"order": true, "direction": true, "base": true, "startLine": true, "maxLines": true, "commentsPage": true, "commentsPerPage": true}

// TestSchemaTags checks every input and output struct reachable from the Backend's
// operations: each exported field has a json name, and each output field a
// jsonschema_description (except the self-describing owner, repo and page, left bare
// to keep tools/list small). Input fields need no description of their own:
// TestEveryArgumentExplained checks that the model is told what each means. How the
// tags are spelled (no description in jsonschema:"…", only known keywords there) is
// checked for the whole repository by mcpkit's TestSchemaTags.
func TestSchemaTags(t *testing.T) {
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type, bool)
	fields := 0
	visit = func(typ reflect.Type, input bool) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			fld := typ.Field(i)
			if !fld.IsExported() {
				continue
			}
			if fld.Anonymous {
				visit(fld.Type, input)
				continue
			}
			fields++
			where := typ.Name() + "." + fld.Name
			jsonName, _, _ := strings.Cut(fld.Tag.Get("json"), ",")
			if jsonName == "" || jsonName == "-" {
				t.Errorf("%s has no json name", where)
			}
			if !input && fld.Tag.Get("jsonschema_description") == "" && !selfDescribing[jsonName] {
				t.Errorf("%s has no jsonschema_description", where)
			}
			visit(fld.Type, input)
		}
	}
	bt := reflect.TypeOf(&Backend{})
	ops := 0
	for i := range bt.NumMethod() {
		mt := bt.Method(i).Type
		if mt.NumIn() == 3 && mt.In(1) == ctxType && mt.In(2).Kind() == reflect.Struct && mt.NumOut() == 2 {
			visit(mt.In(2), true)
			visit(mt.Out(0), false)
			ops++
		}
	}
	if ops < 20 || fields < 100 {
		t.Errorf("checked %d operations and %d fields; the reflection walk missed things", ops, fields)
	}
}

// TestEveryArgumentExplained: each argument of each tool is explained somewhere a
// model reads, once: its own schema description, the tool's description, or (for
// what the tools share: owner, repo, path, ref, page, perPage...) the instructions,
// by name.
func TestEveryArgumentExplained(t *testing.T) {
	b, err := NewBackend(BackendConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{AllowWrites: true}, b)
	instructions := instructions(b, true)
	mcpkittest.CheckArgumentsExplained(t, s.Tools(), instructions, plainArguments)
}
