package errorserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestSchemasOfInputsAndResults reflects every tool input and result type the way
// mcpkit will (flat, no $ref) and checks that the jsonschema tags parse: every result
// property has a description (the documentation of the results, which publish no
// output schema), and enums and bounds come through. Input properties need no
// description of their own: TestEveryArgumentExplained checks that the model is told
// what each means.
func TestSchemasOfInputsAndResults(t *testing.T) {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	types := []any{
		backend.ListProjectsInput{}, backend.SearchIssuesInput{}, backend.GetIssueInput{}, backend.GetEventInput{}, backend.ListIssueEventsInput{}, backend.GetTagValuesInput{},
		backend.ProjectList{}, backend.IssueList{}, backend.IssueDetail{}, backend.Event{}, backend.EventList{}, backend.TagValueList{},
	}
	for i, v := range types {
		input := i < 6
		name := reflect.TypeOf(v).Name()
		s := r.Reflect(v)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(string(b), `"$ref"`) {
			t.Errorf("%s: schema has $ref", name)
		}
		var missing []string
		var walk func(path string, s *jsonschema.Schema)
		walk = func(path string, s *jsonschema.Schema) {
			if s == nil {
				return
			}
			if s.Properties != nil {
				for p := s.Properties.Oldest(); p != nil; p = p.Next() {
					if p.Value.Description == "" && !input {
						missing = append(missing, path+"."+p.Key)
					}
					walk(path+"."+p.Key, p.Value)
				}
			}
			walk(path+"[]", s.Items)
			if ap, ok := any(s.AdditionalProperties).(*jsonschema.Schema); ok {
				walk(path+"{}", ap)
			}
		}
		walk(name, s)
		if len(missing) > 0 {
			t.Errorf("properties without a description: %v", missing)
		}
	}
	search := r.Reflect(backend.SearchIssuesInput{})
	sortProp, _ := search.Properties.Get("sort")
	if diff := cmp.Diff([]any{"date", "new", "freq", "user"}, sortProp.Enum); diff != "" {
		t.Errorf("sort enum (-want +got):\n%s", diff)
	}
	limit, _ := search.Properties.Get("limit")
	if limit.Maximum != json.Number("100") {
		t.Errorf("limit maximum = %v, want 100", limit.Maximum)
	}
	if diff := cmp.Diff([]string{"issueId"}, r.Reflect(backend.GetEventInput{}).Required); diff != "" {
		t.Errorf("GetEventInput required (-want +got):\n%s", diff)
	}
}

// TestEveryArgumentExplained: each argument of each tool is explained somewhere a
// model reads, once: its own schema description, the tool's description, or (for
// what the tools share: organization, issueId, limit, cursor) the instructions, by
// name.
func TestEveryArgumentExplained(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	s := New(Config{Logger: quietLogger}, store)
	instructions := instructions(Config{}, store)
	mcpkittest.CheckArgumentsExplained(t, s.Tools(), instructions, nil)
}
