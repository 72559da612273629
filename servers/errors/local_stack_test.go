package errorserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
)

// TestLocalStackSearchAndLinks: stack.filename:, stack.function: and stack.module:
// find the issues whose frames match (a file name also by the path's last elements,
// wildcards, lists and negation as for tags), and the tools take an issue as the
// page's own link, its resource URI or a Sentry-style URL, and an event as its link.
func TestLocalStackSearchAndLinks(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	s := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now } })
	defer s.Close()
	ctx := context.Background()
	send := func(id int, typ string, frames ...map[string]any) {
		t.Helper()
		fr := make([]any, len(frames))
		for i, f := range frames {
			f["in_app"] = true
			fr[i] = f
		}
		ev := map[string]any{"event_id": hexID(id), "level": "error", "platform": "go", "timestamp": now.Add(-time.Hour).Format(time.RFC3339),
			"exception": []any{map[string]any{"type": typ, "value": "v", "stacktrace": map[string]any{"frames": fr}}}}
		b, _ := json.Marshal(ev)
		e, err := ingest.ParseEvent(b, "42", now, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Ingest(ctx, []*event.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	main := map[string]any{"function": "main", "module": "main", "filename": "main.go", "lineno": 9}
	send(1, "RatesError", main, map[string]any{"function": "convert", "module": "shop/payment", "filename": "shop/payment.go", "abs_path": "/src/shop/payment.go", "lineno": 53})
	send(2, "CartError", map[string]any{"function": "main", "module": "main", "filename": "main.go", "lineno": 9}, map[string]any{"function": "loadCart", "module": "shop/cart", "filename": "shop/cart.go", "lineno": 20})
	p := backend.NewPresenter(s, nil, nil, "", func() time.Time { return now })
	types := func(q string) []string {
		t.Helper()
		list, err := p.SearchIssues(ctx, backend.SearchIssuesInput{Query: q})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, is := range list.Issues {
			out = append(out, is.Type)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"stack.filename:payment.go", []string{"RatesError"}},
		{"stack.filename:shop/payment.go", []string{"RatesError"}},
		{"stack.filename:/src/shop/payment.go", nil}, // the file name, not the absolute path, is matched whole
		{"stack.filename:*.go", []string{"CartError", "RatesError"}},
		{"stack.filename:main.go", []string{"CartError", "RatesError"}},
		{"stack.filename:ayment.go", nil},
		{"stack.function:convert", []string{"RatesError"}},
		{"stack.function:[convert,loadCart]", []string{"CartError", "RatesError"}},
		{"!stack.function:convert", []string{"CartError"}},
		{"stack.module:shop/*", []string{"CartError", "RatesError"}},
		{"stack.module:shop/cart", []string{"CartError"}},
		{"stack.function:convert stack.module:shop/cart", nil},
	} {
		if got := types(c.q); !slices.Equal(got, c.want) {
			t.Errorf("search %q: %v; want %v", c.q, got, c.want)
		}
	}

	list, err := p.SearchIssues(ctx, backend.SearchIssuesInput{Query: "stack.function:convert"})
	if err != nil || len(list.Issues) != 1 {
		t.Fatalf("%+v, %v", list, err)
	}
	id := list.Issues[0].ID
	for _, link := range []string{"http://127.0.0.1:8970/issues/" + id + "?event=" + hexID(1) + "#event", "errors://issues/" + id, "https://acme.sentry.io/issues/" + id + "/?project=42"} {
		d, err := p.GetIssue(ctx, backend.GetIssueInput{IssueID: link})
		if err != nil || d.ID != id {
			t.Errorf("get_issue %s: %+v, %v; want issue %s", link, d, err, id)
		}
		tv, err := p.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: link, Key: "level"})
		if err != nil || tv.TotalValues != 1 {
			t.Errorf("get_tag_values %s: %+v, %v", link, tv, err)
		}
		evs, err := p.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: link})
		if err != nil || len(evs.Events) != 1 {
			t.Errorf("list_issue_events %s: %+v, %v", link, evs, err)
		}
	}
	// An event's link picks that event, as the issue or as the event.
	for _, in := range []backend.GetEventInput{
		{IssueID: "https://acme.sentry.io/issues/" + id + "/events/" + hexID(1) + "/"},
		{IssueID: id, EventID: "http://localhost:8970/issues/" + id + "?event=" + hexID(1)},
	} {
		e, err := p.GetEvent(ctx, in)
		if err != nil || e.ID != hexID(1) {
			t.Errorf("get_event %+v: %+v, %v; want event %s", in, e, err, hexID(1))
		}
	}
	if _, err := p.GetIssue(ctx, backend.GetIssueInput{IssueID: "https://acme.sentry.io/projects/shop/"}); err == nil {
		t.Error("get_issue took a link that names no issue")
	}
}
