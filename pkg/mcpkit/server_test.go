package mcpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

type addIn struct {
	A    int    `json:"a" jsonschema_description:"first addend"`
	B    int    `json:"b" jsonschema_description:"second addend"`
	Note string `json:"note,omitempty"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func newTestServer(t *testing.T) *mcpkit.Server {
	t.Helper()
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "test", Version: "1.0.0"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add", Description: "adds", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in addIn) (addOut, error) {
			if in.A < 0 {
				return addOut{}, errors.New("a must not be negative")
			}
			return addOut{Sum: in.A + in.B}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "confirm", Description: "asks", Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true}},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
			r, err := req.Elicit(ctx, "ok", mcpkit.ElicitParams{Message: "sure?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"yes": map[string]any{"type": "boolean"}}}})
			if err != nil {
				return addOut{}, err
			}
			if r.Action != "accept" {
				return addOut{Sum: -1}, nil
			}
			return addOut{Sum: 1}, nil
		})
	return s
}

func TestToolCallBothRevisions(t *testing.T) {
	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125, mcpkit.Revision20250618} {
		t.Run(rev, func(t *testing.T) {
			c := mcpkittest.Connect(t, newTestServer(t), rev, nil)
			res := c.CallTool("add", map[string]any{"a": 2, "b": 3})
			if res.IsError {
				t.Fatalf("isError: %s", res.Text())
			}
			if diff := cmp.Diff(`{"sum":5}`, string(res.StructuredContent)); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
			bad := c.CallTool("add", map[string]any{"a": "x", "b": 3})
			if !bad.IsError || !strings.Contains(bad.Text(), `"a"`) {
				t.Errorf("bad args: want isError naming field a, got %+v", bad)
			}
			neg := c.CallTool("add", map[string]any{"a": -1, "b": 3})
			if !neg.IsError || neg.Text() != "a must not be negative" {
				t.Errorf("handler error: got %+v", neg)
			}
			r := c.Request("tools/call", map[string]any{"name": "nope"})
			if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
				t.Errorf("unknown tool: got %+v", r)
			}
		})
	}
}

func TestMRTRElicitation(t *testing.T) {
	c := mcpkittest.Connect(t, newTestServer(t), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
	first := c.CallTool("confirm", map[string]any{})
	if first.ResultType != "input_required" || first.InputRequests["ok"].Method != "elicitation/create" || first.RequestState == "" {
		t.Fatalf("want input_required, got %+v", first)
	}
	res := c.Call("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{},
		"inputResponses": map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{"yes": true}}},
		"requestState":   first.RequestState})
	var tr mcpkittest.ToolResult
	_ = json.Unmarshal(res, &tr)
	if string(tr.StructuredContent) != `{"sum":1}` {
		t.Errorf("after retry: %s", res)
	}
	// An answer to a question the server never asked (no requestState) is ignored:
	// a client cannot pre-approve a confirmation.
	pre := c.Call("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{},
		"inputResponses": map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{"yes": true}}}})
	var preRes mcpkittest.ToolResult
	_ = json.Unmarshal(pre, &preRes)
	if preRes.ResultType != "input_required" {
		t.Errorf("unsolicited answer was taken: %s", pre)
	}
	tampered := first.RequestState[:len(first.RequestState)-2] + "AA"
	r := c.Request("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}, "requestState": tampered})
	if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
		t.Errorf("tampered state: want -32602, got %s", r.Raw)
	}
}

func TestLegacyElicitation(t *testing.T) {
	c := mcpkittest.Connect(t, newTestServer(t), mcpkit.Revision20251125, &mcpkittest.Options{
		Capabilities: map[string]any{"elicitation": map[string]any{}},
		OnRequest: func(method string, params json.RawMessage) (any, error) {
			return map[string]any{"action": "accept", "content": map[string]any{"yes": true}}, nil
		}})
	res := c.CallTool("confirm", map[string]any{})
	if string(res.StructuredContent) != `{"sum":1}` {
		t.Errorf("got %+v", res)
	}
}

func TestMissingMeta(t *testing.T) {
	c := mcpkittest.Connect(t, newTestServer(t), mcpkit.Revision20260728, nil)
	r := c.RequestRaw("tools/list", map[string]any{})
	if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
		t.Errorf("got %s", r.Raw)
	}
	r = c.RequestRaw("tools/list", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}})
	if r.Error == nil || r.Error.Code != mcpkit.CodeUnsupportedProtocolVersion {
		t.Errorf("got %s", r.Raw)
	}
}
