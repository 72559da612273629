package mcpkit_test

import (
	"context"
	"encoding/json"
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
			if len(tl.InputSchema) == 0 || len(tl.OutputSchema) != 0 {
				t.Errorf("%s: input schema %s, output schema %s; want the input schema generated and no output schema (OutputSchemas is off)", tl.Name, tl.InputSchema, tl.OutputSchema)
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

// TestWriteScopeOption: ServerOptions.WriteScope is added to every tool registered
// that is not marked read-only, whatever the registration path (a table, AddTool,
// AddRawTool, annotations left out), once, and without changing the table's Tool
// (issue 13, item 1: no server's write tool can lack its write scope).
func TestWriteScopeOption(t *testing.T) {
	h := func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}
	own := []string{"extra:scope"}
	table := []mcpkit.ServerTool{
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "read", Annotations: mcpkit.ReadOnly()}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "destroy", Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true}}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "unannotated"}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "own", Scopes: own[:1:1]}, h),
		mcpkit.NewServerTool(&mcpkit.Tool{Name: "already", Scopes: []string{"notes:write"}}, h),
	}
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, &mcpkit.ServerOptions{WriteScope: mcpkit.WriteScope("notes")})
	s.AddTools(table...)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "direct", Annotations: &mcpkit.ToolAnnotations{IdempotentHint: true}}, h)
	s.AddRawTool(&mcpkit.Tool{Name: "raw"}, func(ctx context.Context, req *mcpkit.Request, args json.RawMessage) (*mcpkit.CallToolResult, error) {
		return nil, nil
	})
	got := map[string][]string{}
	for _, tl := range s.Tools() {
		got[tl.Name] = tl.Scopes
	}
	want := map[string][]string{
		"read": nil, "destroy": {"notes:write"}, "unannotated": {"notes:write"}, "own": {"extra:scope", "notes:write"},
		"already": {"notes:write"}, "direct": {"notes:write"}, "raw": {"notes:write"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("registered tools' scopes (-want +got):\n%s", d)
	}
	if len(table[1].Tool.Scopes) != 0 || len(table[3].Tool.Scopes) != 1 {
		t.Errorf("registering changed the table's tools: %v %v", table[1].Tool.Scopes, table[3].Tool.Scopes)
	}
}
