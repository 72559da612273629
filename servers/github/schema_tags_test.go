package github

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// selfDescribing json names may go without a description: their meaning is plain from
// the name and every tool uses them the same way.
var selfDescribing = map[string]bool{"owner": true, "repo": true, "page": true}

// TestSchemaTags checks every input and output struct reachable from the Backend's
// operations: each exported field has a json name and a jsonschema description (except
// the self-describing owner, repo and page, left bare to keep tools/list small), and
// every jsonschema tag splits (on commas, as invopop/jsonschema splits it) into known
// key=value pairs. A comma inside a description would silently cut it short and turn
// the rest into a bogus keyword; this catches that.
func TestSchemaTags(t *testing.T) {
	known := regexp.MustCompile(`^(description|enum|minimum|maximum|default|example|pattern|minLength|maxLength|minItems|maxItems|format|title)=.`)
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	fields := 0
	visit = func(typ reflect.Type) {
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
				visit(fld.Type)
				continue
			}
			fields++
			where := typ.Name() + "." + fld.Name
			jsonName, _, _ := strings.Cut(fld.Tag.Get("json"), ",")
			if jsonName == "" || jsonName == "-" {
				t.Errorf("%s has no json name", where)
			}
			tag := fld.Tag.Get("jsonschema")
			if !strings.HasPrefix(tag, "description=") && !(selfDescribing[jsonName] && !strings.Contains(tag, "description=")) {
				t.Errorf("%s: jsonschema tag %q does not start with a description", where, tag)
			}
			for _, part := range strings.Split(tag, ",") {
				if part == "" && tag == "" {
					continue
				}
				if !known.MatchString(part) {
					t.Errorf("%s: jsonschema tag part %q is not key=value with a known key (a comma in a description?)", where, part)
				}
			}
			visit(fld.Type)
		}
	}
	bt := reflect.TypeOf(&Backend{})
	ops := 0
	for i := range bt.NumMethod() {
		mt := bt.Method(i).Type
		if mt.NumIn() == 3 && mt.In(1) == ctxType && mt.In(2).Kind() == reflect.Struct && mt.NumOut() == 2 {
			visit(mt.In(2))
			visit(mt.Out(0))
			ops++
		}
	}
	if ops < 20 || fields < 100 {
		t.Errorf("checked %d operations and %d fields; the reflection walk missed things", ops, fields)
	}
}
