package mcpkit_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// TestAddTools: a table registers in its order, each row as AddTool would, and a
// ReadOnly server leaves out the rows not marked read-only.
func TestAddTools(t *testing.T) {
	h := func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}
	table := []mcpkit.ServerTool{
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "b", Annotations: mcpkit.ReadOnly()}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "a", Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true}}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "c", Annotations: mcpkit.ReadOnly()}, h),
	}
	names := func(s *mcpkit.Server) []string {
		var out []string
		for _, tl := range s.Tools() {
			out = append(out, tl.Name)
			if len(tl.InputSchema) == 0 || len(tl.OutputSchema) == 0 {
				t.Errorf("%s: schemas not generated: %s %s", tl.Name, tl.InputSchema, tl.OutputSchema)
			}
		}
		return out
	}
	all := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, nil)
	all.AddTools(table...)
	if d := cmp.Diff([]string{"b", "a", "c"}, names(all)); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	ro := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, &mcpkit.ServerOptions{ReadOnly: true})
	ro.AddTools(table...)
	if d := cmp.Diff([]string{"b", "c"}, names(ro)); d != "" {
		t.Errorf("read-only server's tools (-want +got):\n%s", d)
	}
	defer func() {
		if recover() == nil {
			t.Error("AddTools with a zero ServerTool did not panic")
		}
	}()
	all.AddTools(mcpkit.ServerTool{Tool: &mcpkit.Tool{Name: "zero"}})
}
