package filesystem

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// toolReflector is the configuration DESIGN.md and RECIPES.md §5 fix for tool schemas:
// flat, self-contained object schemas.
func toolReflector() *jsonschema.Reflector {
	return &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
}

// TestToolSchemas reflects every input and output struct the tools will use and checks
// the tags: a flat object schema without $ref or $defs, a description on every output
// property at every depth (published with mcpkit's OutputSchemas), and required
// exactly where an input needs a value. Input properties need no description of their
// own: TestEveryArgumentExplained checks that the model is told what each means.
func TestToolSchemas(t *testing.T) {
	tests := []struct {
		v        any
		required []string // nil for outputs (not checked)
	}{
		{ListDirectoryInput{}, []string{}},
		{DirectoryTreeInput{}, []string{}},
		{ReadTextFileInput{}, []string{"path"}},
		{ReadMediaFileInput{}, []string{"path"}},
		{ReadMultipleFilesInput{}, []string{"paths"}},
		{SearchFilesInput{}, []string{"pattern"}},
		{SearchFileContentsInput{}, []string{"pattern"}},
		{GetFileInfoInput{}, []string{"path"}},
		{WriteFileInput{}, []string{"content", "path"}},
		{EditFileInput{}, []string{"edits", "path"}},
		{CreateDirectoryInput{}, []string{"path"}},
		{MoveFileInput{}, []string{"destination", "source"}},
		{CopyFileInput{}, []string{"destination", "source"}},
		{DeleteFileInput{}, []string{"path"}},
		{DeleteDirectoryInput{}, []string{"path"}},
		{ListDirectoryOutput{}, nil},
		{DirectoryTreeOutput{}, nil},
		{ReadTextFileOutput{}, nil},
		{ReadMediaFileOutput{}, nil},
		{ReadMultipleFilesOutput{}, nil},
		{SearchFilesOutput{}, nil},
		{SearchFileContentsOutput{}, nil},
		{FileInfo{}, nil},
		{WriteFileOutput{}, nil},
		{EditFileOutput{}, nil},
		{CreateDirectoryOutput{}, nil},
		{MoveFileOutput{}, nil},
		{CopyFileOutput{}, nil},
		{DeleteFileOutput{}, nil},
		{DeleteDirectoryOutput{}, nil},
		{ListAllowedDirectoriesInput{}, []string{}},
		{ListAllowedDirectoriesOutput{}, nil},
		{MediaFileInfo{}, nil},
	}
	for _, tt := range tests {
		name := reflect.TypeOf(tt.v).Name()
		t.Run(name, func(t *testing.T) {
			s := toolReflector().Reflect(tt.v)
			s.Version = ""
			js, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(js), `"$ref"`) || strings.Contains(string(js), `"$defs"`) {
				t.Errorf("schema is not flat: %s", js)
			}
			var m map[string]any
			json.Unmarshal(js, &m)
			if m["type"] != "object" {
				t.Errorf("type = %v; want object", m["type"])
			}
			if tt.required == nil {
				checkDescriptions(t, name, m)
			}
			if tt.required != nil {
				got := []string{}
				for _, r := range s.Required {
					got = append(got, r)
				}
				sort.Strings(got)
				if diff := cmp.Diff(tt.required, got); diff != "" {
					t.Errorf("required (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func checkDescriptions(t *testing.T, path string, schema map[string]any) {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm := p.(map[string]any)
		if d, _ := pm["description"].(string); d == "" {
			t.Errorf("%s.%s has no description", path, name)
		}
		if items, ok := pm["items"].(map[string]any); ok {
			checkDescriptions(t, path+"."+name+"[]", items)
		}
		checkDescriptions(t, path+"."+name, pm)
	}
}

// TestSchemaEnumsAndDefaults spot-checks tags that carry more than a description.
func TestSchemaEnumsAndDefaults(t *testing.T) {
	s := toolReflector().Reflect(ListDirectoryInput{})
	sortBy, _ := s.Properties.Get("sortBy")
	if diff := cmp.Diff([]any{"name", "size", "modified"}, sortBy.Enum); diff != "" {
		t.Errorf("sortBy enum (-want +got):\n%s", diff)
	}
	s = toolReflector().Reflect(DirectoryTreeInput{})
	rg, _ := s.Properties.Get("respectGitignore")
	if rg.Default != true {
		t.Errorf("respectGitignore default = %v; want true", rg.Default)
	}
	s = toolReflector().Reflect(SearchFilesInput{})
	pat, _ := s.Properties.Get("pattern")
	if !strings.Contains(pat.Description, "{a,b}") {
		t.Errorf("escaped comma lost in description: %q", pat.Description)
	}
}

// TestEveryArgumentExplained: each argument of each tool is explained somewhere a
// model reads, at no more cost than once: its own schema description, the tool's
// description, or (for what every tool shares, such as path) the server's
// instructions, by name.
func TestEveryArgumentExplained(t *testing.T) {
	s := newServerOn(t, Config{AllowWrites: true}, t.TempDir())
	mcpkittest.CheckArgumentsExplained(t, s.Tools(), instructions, nil)
}
