package errorserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestSentrySearchProgressAndTask (issue 14): a search_issues Sentry takes a second
// to answer reports how long it has run to a client that asked for progress, and is
// a task for a client with the Tasks extension; cancelling it ends the request to
// Sentry.
func TestSentrySearchProgressAndTask(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	ended := make(chan struct{}, 4)
	fake.SetOverride("/api/0/organizations/acme/issues/", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(1200 * time.Millisecond):
			w.Write(sentrytest.Fixture(t, "issues_page3.json"))
		case <-r.Context().Done():
			ended <- struct{}{}
		}
	})
	s := New(Config{Logger: quietLogger}, sentrytest.NewBackend(t, srv.URL))
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil)
	r := c.Request("tools/call", map[string]any{"name": ToolSearchIssues, "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": 7}})
	if r.Error != nil {
		t.Fatalf("search_issues: %v", r.Error)
	}
	var values []float64
	for _, n := range c.Notifications() {
		var m struct {
			Method string
			Params struct{ Progress float64 }
		}
		if json.Unmarshal(n, &m) == nil && m.Method == "notifications/progress" {
			values = append(values, m.Params.Progress)
		}
	}
	if len(values) < 3 {
		t.Fatalf("%d progress notifications during a 1.2 s search", len(values))
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Fatalf("progress not increasing: %v", values)
		}
	}

	tc := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: map[string]any{
		"extensions": map[string]any{mcpkit.ExtensionTasks: map[string]any{}}}})
	var tk struct{ ResultType, TaskID, Status string }
	_ = json.Unmarshal(tc.Call("tools/call", map[string]any{"name": ToolSearchIssues, "arguments": map[string]any{}}), &tk)
	if tk.ResultType != "task" {
		t.Fatalf("search_issues with the Tasks extension: %+v", tk)
	}
	tc.Call("tasks/cancel", map[string]any{"taskId": tk.TaskID})
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the request to Sentry went on after tasks/cancel")
	}
}
