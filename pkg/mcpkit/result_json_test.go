package mcpkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestJSONText: compact, no trailing newline, no HTML escaping; what cannot be encoded
// is an error.
func TestJSONText(t *testing.T) {
	got, err := mcpkit.JSONText(map[string]any{"q": "a < b && c > d", "n": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":[1,2],"q":"a < b && c > d"}`; got != want {
		t.Errorf("JSONText = %s; want %s", got, want)
	}
	if _, err := mcpkit.JSONText(math.NaN()); err == nil {
		t.Error("JSONText(NaN) succeeded; want an error")
	}
}

type untypedIn struct {
	Kind string `json:"kind" jsonschema:"enum=object,enum=list,enum=nil,enum=nilpointer"`
}

// TestUntypedToolOutput: a tool whose Out is any publishes no output schema (unless it
// sets one and the server publishes output schemas), and its result is
// structuredContent plus the same JSON as text when the value is an object, text only
// for any other value, and empty for nil; at every revision, under either output
// policy.
func TestUntypedToolOutput(t *testing.T) {
	for _, publish := range []bool{false, true} {
		t.Run(fmt.Sprintf("OutputSchemas=%v", publish), func(t *testing.T) { testUntypedToolOutput(t, publish) })
	}
}

func testUntypedToolOutput(t *testing.T, publish bool) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, &mcpkit.ServerOptions{OutputSchemas: publish})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "untyped", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in untypedIn) (any, error) {
			switch in.Kind {
			case "object":
				return &addOut{Sum: 3}, nil
			case "list":
				return []string{"<a>", "b"}, nil
			case "nilpointer":
				return (*addOut)(nil), nil
			}
			return nil, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "declared", OutputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcpkit.Request, _ struct{}) (any, error) {
			return map[string]int{"n": 1}, nil
		})
	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125, mcpkit.Revision20250618} {
		t.Run(rev, func(t *testing.T) {
			c := mcpkittest.Connect(t, s, rev, nil)
			var list struct {
				Tools []struct {
					Name         string          `json:"name"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(c.Call("tools/list", nil), &list); err != nil {
				t.Fatal(err)
			}
			schemas := map[string]string{}
			for _, tl := range list.Tools {
				schemas[tl.Name] = string(tl.OutputSchema)
			}
			want := map[string]string{"untyped": "", "declared": ""}
			if publish {
				want["declared"] = `{"type":"object"}`
			}
			if d := cmp.Diff(want, schemas); d != "" {
				t.Errorf("output schemas (-want +got):\n%s", d)
			}
			for _, tc := range []struct {
				kind, text, structured string
				blocks                 int
			}{
				{"object", `{"sum":3}`, `{"sum":3}`, 1},
				{"list", `["<a>","b"]`, "", 1},
				{"nil", "", "", 0},
				{"nilpointer", "", "", 0},
			} {
				res := c.CallTool("untyped", map[string]any{"kind": tc.kind})
				if res.IsError || len(res.Content) != tc.blocks || res.Text() != tc.text || string(res.StructuredContent) != tc.structured {
					t.Errorf("%s: isError %v, %d blocks, text %q, structuredContent %q; want %d blocks, text %q, structuredContent %q",
						tc.kind, res.IsError, len(res.Content), res.Text(), res.StructuredContent, tc.blocks, tc.text, tc.structured)
				}
			}
			if res := c.CallTool("declared", map[string]any{}); string(res.StructuredContent) != `{"n":1}` || res.Text() != `{"n":1}` {
				t.Errorf("declared: text %q structuredContent %q; want both {\"n\":1}", res.Text(), res.StructuredContent)
			}
		})
	}
}
