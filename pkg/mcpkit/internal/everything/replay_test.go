package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestFixtureRequestStateReplay (issue 13, item 3) measures the replay on the
// fixture: the finished requestState of test_input_required_result_request_state,
// sent again with the same answer, no longer completes the call a second time.
func TestFixtureRequestStateReplay(t *testing.T) {
	s := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
	name := "test_input_required_result_request_state"
	first := c.CallTool(name, map[string]any{})
	if first.ResultType != "input_required" || first.RequestState == "" {
		t.Fatalf("first round: %+v", first)
	}
	retry := map[string]any{"name": name, "arguments": map[string]any{}, "requestState": first.RequestState,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}
	if r := c.Request("tools/call", retry); r.Error != nil || !strings.Contains(string(r.Result), "state-ok") {
		t.Fatalf("the answer: %s", r.Raw)
	}
	r := c.Request("tools/call", retry)
	if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams || !strings.Contains(r.Error.Message, "already used") {
		t.Errorf("the same state again: %s; want -32602, already used", r.Raw)
	}
}
