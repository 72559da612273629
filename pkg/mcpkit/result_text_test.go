package mcpkit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

type excerptOut struct {
	Path  string `json:"path"`
	Start int    `json:"start"`
	Text  string `json:"text"`
}

func (e excerptOut) MCPText() string { return "[" + e.Path + "]\n" + e.Text }

type excerptIn struct {
	Nil bool `json:"nil,omitempty"`
}

// TestTextRendererOutput: a typed output that is a TextRenderer has its MCPText as the
// text block, unescaped. Under the default output policy that is the whole result (no
// structuredContent, no output schema; a nil pointer is an empty result); with
// OutputSchemas, structuredContent stays its JSON and the output schema its type's. A
// nil pointer output is never asked for its text (no panic).
func TestTextRendererOutput(t *testing.T) {
	for _, publish := range []bool{false, true} {
		s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, &mcpkit.ServerOptions{OutputSchemas: publish})
		mcpkit.AddTool(s, &mcpkit.Tool{Name: "excerpt", Annotations: mcpkit.ReadOnly()},
			func(ctx context.Context, req *mcpkit.Request, in excerptIn) (excerptOut, error) {
				return excerptOut{Path: "a.go", Start: 3, Text: "\tif x < \"y\" {\n"}, nil
			})
		mcpkit.AddTool(s, &mcpkit.Tool{Name: "pointer", Annotations: mcpkit.ReadOnly()},
			func(ctx context.Context, req *mcpkit.Request, in excerptIn) (*excerptOut, error) {
				if in.Nil {
					return nil, nil
				}
				return &excerptOut{Path: "b.go", Text: "x\n"}, nil
			})
		for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125} {
			c := mcpkittest.Connect(t, s, rev, nil)
			res := c.CallTool("excerpt", map[string]any{})
			if res.IsError || len(res.Content) != 1 || res.Text() != "[a.go]\n\tif x < \"y\" {\n" {
				t.Errorf("OutputSchemas=%v %s: text %q; want the output's MCPText", publish, rev, res.Text())
			}
			want := ""
			if publish {
				want = `{"path":"a.go","start":3,"text":"\tif x < \"y\" {\n"}`
			}
			if string(res.StructuredContent) != want {
				t.Errorf("OutputSchemas=%v %s: structuredContent %s; want %q", publish, rev, res.StructuredContent, want)
			}
			if res := c.CallTool("pointer", map[string]any{}); res.Text() != "[b.go]\nx\n" {
				t.Errorf("OutputSchemas=%v %s: pointer output text %q; want its MCPText", publish, rev, res.Text())
			}
			if publish && rev != mcpkit.Revision20260728 {
				continue // (a nil output's null structuredContent is not a valid legacy result)
			}
			res = c.CallTool("pointer", map[string]any{"nil": true})
			switch {
			case !publish:
				if res.IsError || len(res.Content) != 0 || res.StructuredContent != nil {
					t.Errorf("%s: nil pointer output: isError=%v text %q structuredContent %s; want an empty result", rev, res.IsError, res.Text(), res.StructuredContent)
				}
			default:
				if res.IsError || res.Text() != "null" || string(res.StructuredContent) != "null" {
					t.Errorf("%s: nil pointer output: isError=%v text %q structuredContent %s", rev, res.IsError, res.Text(), res.StructuredContent)
				}
			}
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		switch out := s.Tools()[0].OutputSchema; {
		case !publish && len(out) != 0:
			t.Errorf("output schema %s published without OutputSchemas", out)
		case publish && (json.Unmarshal(out, &schema) != nil || len(schema.Properties) != 3):
			t.Errorf("output schema %s; want the type's three properties", out)
		}
	}
}
