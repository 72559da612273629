package mcpkittest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// CheckArgumentsExplained fails t for each argument of each tool that is explained
// nowhere a model reads: not by its own schema description, not by name in the
// tool's description, not by name in the server's instructions, and not listed in
// plain (names whose meaning is plain from the name, type and tool; may be nil).
func CheckArgumentsExplained(t testing.TB, tools []mcpkit.Tool, instructions string, plain map[string]bool) {
	t.Helper()
	// A check that sees nothing passes on anything: a server that lists no tool, or
	// tools with no argument, is a mistake in the test, not a pass.
	if len(tools) == 0 {
		t.Fatal("CheckArgumentsExplained: no tools to check (is the server's tool list empty?)")
	}
	checked := 0
	for _, tl := range tools {
		var sc struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &sc); err != nil {
			t.Fatalf("%s: input schema: %v", tl.Name, err)
		}
		for name, p := range sc.Properties {
			checked++
			if p.Description == "" && !plain[name] && !strings.Contains(tl.Description, name) && !strings.Contains(instructions, name) {
				t.Errorf("%s.%s: neither its schema, the tool's description nor the instructions say what it is", tl.Name, name)
			}
		}
	}
	if checked == 0 {
		t.Fatalf("CheckArgumentsExplained: none of the %d tools has an argument to check", len(tools))
	}
}
