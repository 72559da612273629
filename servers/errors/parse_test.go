package errorserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnvelope(t *testing.T) {
	type item struct{ Type, Payload string }
	cases := []struct {
		name    string
		in      string
		want    []item
		wantErr string
	}{
		{name: "length-prefixed payload with newlines", in: "{\"event_id\":\"a\"}\n{\"type\":\"attachment\",\"length\":7}\nab\ncd\ne\n{\"type\":\"event\",\"length\":2}\n{}\n",
			want: []item{{"attachment", "ab\ncd\ne"}, {"event", "{}"}}},
		{name: "newline-delimited payloads", in: "{}\n{\"type\":\"session\"}\n{\"a\":1}\n{\"type\":\"event\"}\n{\"b\":2}",
			want: []item{{"session", `{"a":1}`}, {"event", `{"b":2}`}}},
		{name: "CRLF and blank lines", in: "{}\r\n\r\n{\"type\":\"event\"}\r\n{\"c\":3}\r\n\r\n",
			want: []item{{"event", `{"c":3}`}}},
		{name: "last payload without trailing newline", in: "{}\n{\"type\":\"event\",\"length\":3}\nabc", want: []item{{"event", "abc"}}},
		{name: "header only", in: "{\"event_id\":\"x\"}\n", want: nil},
		{name: "empty body", in: "", wantErr: "empty"},
		{name: "header not an object", in: "[1]\n", wantErr: "header"},
		{name: "item header not JSON", in: "{}\nnope\n", wantErr: "item 1 header"},
		{name: "item without type", in: "{}\n{\"length\":1}\nx\n", wantErr: "no type"},
		{name: "length past the end", in: "{}\n{\"type\":\"event\",\"length\":10}\nabc", wantErr: "truncated"},
		{name: "negative length", in: "{}\n{\"type\":\"event\",\"length\":-1}\nabc", wantErr: "truncated"},
		{name: "garbage after a length payload", in: "{}\n{\"type\":\"event\",\"length\":1}\nxy\n", wantErr: "no newline"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, err := ingest.ParseEnvelope([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []item
			for _, it := range env.Items {
				got = append(got, item{it.Type, string(it.Payload)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSDKEventAcceptsProtocolVariants(t *testing.T) {
	received := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// The shapes of other SDKs: {"values": [...]} wrappers, numeric timestamps, tag
	// pair lists, a logentry, a query string as text, and numbers where strings are usual.
	payload := `{
	  "event_id": "9B1F6D9A-4C2E-4F0A-8E6B-3C1D2E4F5A6B",
	  "timestamp": 1777636800.25,
	  "level": "warn",
	  "platform": "python",
	  "release": 42,
	  "logentry": {"message": "user %s not found", "params": ["ann"], "formatted": "user ann not found"},
	  "tags": [["browser", "Firefox"], ["api_key", "k-1"]],
	  "user": {"id": 7, "ip_address": "203.0.113.9"},
	  "request": {"url": "https://x.example/p?q=1", "method": "post", "query_string": "a=1&token=t", "headers": {"Cookie": "s=1", "Accept": "*/*"}, "data": {"password": "p", "n": 1}},
	  "exception": {"values": [{"type": "KeyError", "value": "'sku'", "mechanism": {"type": "generic", "handled": "false"},
	     "stacktrace": {"frames": [{"function": "handle", "module": "shop.views", "filename": "views.py", "lineno": "12", "in_app": true,
	        "pre_context": ["def handle():", "    x = 1"], "context_line": "    return d['sku']", "post_context": [""], "vars": {"secret": "s", "d": {"a": 1}}}]}}]},
	  "breadcrumbs": {"values": [{"timestamp": "2026-05-01T11:59:59Z", "category": "query", "message": "SELECT 1"}]},
	  "contexts": {"os": {"name": "Linux", "version": "6.1"}, "runtime": {"name": "CPython", "version": "3.12"}},
	  "extra": {"session_id": "abc", "n": 1}
	}`
	e, err := ingest.ParseEvent([]byte(payload), "42", received, "")
	if err != nil {
		t.Fatal(err)
	}
	event.DeriveIssueFields(e)
	no := false
	want := &event.Event{
		ID: "9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b", Project: "42",
		Timestamp: time.Unix(1777636800, 250000000).UTC(), Level: "warning", Platform: "python",
		Title: "KeyError: 'sku'", Culprit: "shop.views in handle",
		Message: "user ann not found", MessageTemplate: "user %s not found", Release: "42",
		Tags: []event.Pair{{Key: "api_key", Value: event.Redacted}, {Key: "browser", Value: "Firefox"}, {Key: "handled", Value: "no"}, {Key: "level", Value: "warning"}, {Key: "mechanism", Value: "generic"},
			{Key: "os", Value: "Linux 6.1"}, {Key: "os.name", Value: "Linux"}, {Key: "release", Value: "42"}, {Key: "runtime", Value: "CPython 3.12"}, {Key: "runtime.name", Value: "CPython"},
			{Key: "url", Value: "https://x.example/p"}, {Key: "user", Value: "id:7"}},
		Exceptions: []event.Exception{{Type: "KeyError", Value: "'sku'", Mechanism: "generic", Handled: &no, Frames: []event.Frame{{
			Function: "handle", Module: "shop.views", Filename: "views.py", Line: 12, InApp: true,
			Context: []event.ContextLine{{Line: 10, Code: "def handle():"}, {Line: 11, Code: "    x = 1"}, {Line: 12, Code: "    return d['sku']"}, {Line: 13, Code: ""}},
			Vars:    map[string]any{"secret": event.Redacted, "d": map[string]any{"a": 1.0}},
		}}}},
		Breadcrumbs: []event.Breadcrumb{{Timestamp: time.Date(2026, 5, 1, 11, 59, 59, 0, time.UTC), Category: "query", Message: "SELECT 1"}},
		Request: &event.Request{Method: "POST", URL: "https://x.example/p",
			Query:   []event.Pair{{Key: "a", Value: "1"}, {Key: "token", Value: event.Redacted}},
			Headers: []event.Pair{{Key: "Accept", Value: "*/*"}, {Key: "Cookie", Value: event.Redacted}},
			Data:    map[string]any{"password": event.Redacted, "n": 1.0}},
		User:     &event.User{ID: "7", IP: "203.0.113.9"},
		Contexts: map[string]event.Context{"os": {"name": "Linux", "version": "6.1"}, "runtime": {"name": "CPython", "version": "3.12"}},
		Extra:    map[string]any{"session_id": event.Redacted, "n": 1.0},
	}
	if diff := cmp.Diff(want, e, cmp.AllowUnexported(event.Pair{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseSDKEventRejects(t *testing.T) {
	for in, want := range map[string]string{
		"":                               "not a JSON object",
		"[1,2]":                          "not a JSON object",
		`"text"`:                         "not a JSON object",
		`{"level": }`:                    "not valid JSON",
		`{"event_id": "xyz"}`:            "event_id",
		`{"exception": "a string"}`:      "not valid JSON",
		`{"breadcrumbs": {"values": 3}}`: "not valid JSON",
	} {
		if _, err := ingest.ParseEvent([]byte(in), "1", time.Now(), ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseSDKEvent(%q) = %v, want an error mentioning %q", in, err, want)
		}
	}
}

func TestGrouping(t *testing.T) {
	frame := func(mod, fn string, line int, inApp bool) event.Frame {
		return event.Frame{Module: mod, Function: fn, Line: line, InApp: inApp}
	}
	exc := func(typ, val string, frames ...event.Frame) *event.Event {
		return &event.Event{Exceptions: []event.Exception{{Type: typ, Value: val, Frames: frames}}}
	}
	base := exc("ValueError", "bad 1", frame("lib", "call", 5, false), frame("app", "pay", 10, true))
	cases := []struct {
		name  string
		a, b  *event.Event
		equal bool
	}{
		{"same type and in-app frames, other value and line", base,
			exc("ValueError", "bad 2", frame("lib", "call", 99, false), frame("app", "pay", 11, true)), true},
		{"library frames do not matter when there are in-app ones", base,
			exc("ValueError", "x", frame("otherlib", "x", 1, false), frame("app", "pay", 10, true)), true},
		{"other call site", base, exc("ValueError", "bad 1", frame("lib", "call", 5, false), frame("app", "refund", 10, true)), false},
		{"other type", base, exc("TypeError", "bad 1", frame("lib", "call", 5, false), frame("app", "pay", 10, true)), false},
		{"no frames: value decides", exc("E", "a"), exc("E", "b"), false},
		{"no frames, same value", exc("E", "a"), exc("E", "a"), true},
		{"messages by template", &event.Event{Message: "user ann not found", MessageTemplate: "user %s not found"},
			&event.Event{Message: "user bob not found", MessageTemplate: "user %s not found"}, true},
		{"messages without template", &event.Event{Message: "a"}, &event.Event{Message: "b"}, false},
		{"custom fingerprint overrides", &event.Event{Fingerprint: []string{"db-down"}, Message: "a"},
			&event.Event{Fingerprint: []string{"db-down"}, Message: "b"}, true},
		{"{{ default }} refines the default", &event.Event{Fingerprint: []string{"{{ default }}", "tenant-a"}, Message: "m"},
			&event.Event{Fingerprint: []string{"{{default}}", "tenant-b"}, Message: "m"}, false},
		{"{{ default }} alone equals the default", &event.Event{Fingerprint: []string{"{{ default }}"}, Message: "m"},
			&event.Event{Message: "m"}, true},
	}
	for _, tc := range cases {
		a, b := event.IssueIDFor("1", event.GroupingParts(tc.a)), event.IssueIDFor("1", event.GroupingParts(tc.b))
		if (a == b) != tc.equal {
			t.Errorf("%s: same issue = %v, want %v (%v vs %v)", tc.name, a == b, tc.equal, event.GroupingParts(tc.a), event.GroupingParts(tc.b))
		}
	}
	if event.IssueIDFor("1", []string{"x"}) == event.IssueIDFor("2", []string{"x"}) {
		t.Error("the same fingerprint in two projects must be two issues")
	}
}

func TestParseQuery(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.Now = func() time.Time { return now }; c.countTagsAfter = time.Hour })
	defer store.Close()
	var batch []*event.Event
	for i := range 5 {
		e := &event.Event{
			ID: hexID(i + 1), IssueID: "abc123", Project: "42", Level: "error",
			Timestamp: now.Add(-2*time.Hour + time.Duration(i)*(110*time.Minute)/4),
			Title:     "ValueError: card declined", Culprit: "app in pay",
			Exceptions: []event.Exception{{Type: "ValueError", Value: "card declined"}},
		}
		for k, v := range map[string]string{"level": "error", "environment": "production", "release": "shop@1.2", "browser": "Firefox 120", "user": "email:ann@example.com", "handled": "no"} {
			e.Tags = append(e.Tags, event.Pair{Key: k, Value: v})
		}
		batch = append(batch, e)
	}
	if err := store.Ingest(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	// matches runs the terms' SQL against the one stored issue.
	matches := func(terms []queryTerm) bool {
		conds, args := []string{"1"}, []any{}
		for i := range terms {
			c, a := terms[i].sql()
			conds = append(conds, c)
			args = append(args, a...)
		}
		var n int
		if err := store.db.QueryRow(`SELECT count(*) FROM issues i WHERE `+strings.Join(conds, " AND "), args...).Scan(&n); err != nil {
			t.Fatalf("query of %+v: %v", terms, err)
		}
		return n == 1
	}
	cases := []struct {
		q    string
		want bool
	}{
		{"", true},
		{"card", true},
		{"CARD declined", true},
		{`"card declined"`, true},
		{"refund", false},
		{"42-abc123", true},
		{"abc123", true},
		{"50%", false},
		{"card*", false},
		{"is:unresolved", true},
		{"is:resolved", false},
		{"!is:resolved level:error", true},
		{"level:warning", false},
		{"!level:error", false},
		{"environment:[staging,production]", true},
		{`browser:"Firefox 120"`, true},
		{"browser:Firefox*", true},
		{"browser:*Chrome*", false},
		{"release:shop@1.2 environment:production", true},
		{"has:browser", true},
		{"!has:browser", false},
		{"has:device", false},
		{"user.email:ann@example.com", true},
		{"error.type:ValueError", true},
		{"error.value:*declined", true},
		{"error.handled:false", true},
		{"error.unhandled:true", true},
		{"project:42", true},
		{"project:7", false},
		{"times_seen:>4", true},
		{"times_seen:>=6", false},
		{"age:-24h", true},
		{"age:-1h", false},
		{"firstSeen:+1h", true},
		{"lastSeen:-15m", true},
		{"lastSeen:-5m", false},
		{"firstSeen:-2h30m", true}, // any period, as statsPeriod
		{"firstSeen:-1h30m", false},
		{"firstSeen:>2026-05-02", true}, // absolute dates, as the README documents
		{"firstSeen:>2026-05-02T11:00:00Z", false},
		{"lastSeen:<2026-05-03", true},
		{"age:<=2026-05-01", false},
		{"message:declined AND level:error", true},
	}
	// First with the tags not counted yet (as a reader in another process finds the
	// events the writer committed a moment ago), then counted.
	for _, counted := range []bool{false, true} {
		if counted {
			store.syncTags(context.Background())
		} else if n := store.eventCount(t); n != 5 || tableRows(t, store, "issue_tags") != 0 {
			t.Fatalf("before the first pass: %d events, tags counted", n)
		}
		for _, tc := range cases {
			terms, err := parseQuery(tc.q, now)
			if err != nil {
				t.Errorf("parseQuery(%q): %v", tc.q, err)
				continue
			}
			if got := matches(terms); got != tc.want {
				t.Errorf("query %q (tags counted: %v) matched = %v, want %v", tc.q, counted, got, tc.want)
			}
		}
	}
	for q, want := range map[string]string{
		"a OR b":              "OR is not supported",
		"(level:error)":       "parentheses",
		`message:"open`:       "unclosed double quote",
		"level:[a,b":          "unclosed [",
		"is:bookmarked":       "is:bookmarked is not supported",
		"times_seen:lots":     "comparison with a number",
		"age:yesterday":       "-24h",
		"level:":              "has no value",
		"error.handled:maybe": "not true or false",
	} {
		if _, err := parseQuery(q, now); !errors.Is(err, backend.ErrInvalidInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseQuery(%q) = %v, want ErrInvalidInput mentioning %q", q, err, want)
		}
	}
}

func TestResolveWindow(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		period, start, end string
		want               backend.TimeWindow
		wantErr            string
	}{
		{want: backend.TimeWindow{Period: "14d", Start: now.Add(-14 * 24 * time.Hour), End: now}},
		{period: "24h", want: backend.TimeWindow{Period: "24h", Start: now.Add(-24 * time.Hour), End: now}},
		{period: "2w", want: backend.TimeWindow{Period: "2w", Start: now.Add(-14 * 24 * time.Hour), End: now}},
		{period: "90s", want: backend.TimeWindow{Period: "90s", Start: now.Add(-90 * time.Second), End: now}},
		// Any duration; a period of several units becomes one unit, as Sentry takes it.
		{period: "90m", want: backend.TimeWindow{Period: "90m", Start: now.Add(-90 * time.Minute), End: now}},
		{period: "6h30m", want: backend.TimeWindow{Period: "390m", Start: now.Add(-6*time.Hour - 30*time.Minute), End: now}},
		{period: "3d", want: backend.TimeWindow{Period: "3d", Start: now.Add(-72 * time.Hour), End: now}},
		{period: "1d12h", want: backend.TimeWindow{Period: "36h", Start: now.Add(-36 * time.Hour), End: now}},
		{period: "1w2d", want: backend.TimeWindow{Period: "9d", Start: now.Add(-9 * 24 * time.Hour), End: now}},
		{period: "1h30m15s", want: backend.TimeWindow{Period: "5415s", Start: now.Add(-5415 * time.Second), End: now}},
		// start alone runs until now.
		{start: "2026-05-01", want: backend.TimeWindow{Start: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), End: now}},
		{start: "2026-05-02T09:00:00Z", want: backend.TimeWindow{Start: time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC), End: now}},
		{start: "2026-05-01T00:00:00Z", end: "2026-05-01T06:00:00+02:00", want: backend.TimeWindow{Start: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 5, 1, 4, 0, 0, 0, time.UTC)}},
		{start: "2026-05-01", end: "2026-05-02", want: backend.TimeWindow{Start: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)}},
		{period: "1 day", wantErr: "not a period"},
		{period: "0h", wantErr: "positive"},
		{period: "99999w", wantErr: "ten years"},
		{period: "1d", start: "2026-05-01", end: "2026-05-02", wantErr: "not both"},
		{end: "2026-05-01", wantErr: "end needs start"},
		{start: "2026-05-03", wantErr: "not before now"},
		{period: "6h30", wantErr: "not a period"},
		{period: "h", wantErr: "not a period"},
		{period: "0h0m", wantErr: "positive"},
		{period: "3650d1d", wantErr: "ten years"},
		{start: "May 1st", end: "2026-05-02", wantErr: "RFC 3339"},
		{start: "2026-05-02", end: "2026-05-01", wantErr: "not after"},
	}
	for _, tc := range cases {
		got, err := backend.ResolveWindow(tc.period, tc.start, tc.end, now)
		if tc.wantErr != "" {
			if !errors.Is(err, backend.ErrInvalidInput) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("resolveWindow(%q,%q,%q) = %v, want ErrInvalidInput mentioning %q", tc.period, tc.start, tc.end, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !got.Start.Equal(tc.want.Start) || !got.End.Equal(tc.want.End) || got.Period != tc.want.Period {
			t.Errorf("resolveWindow(%q,%q,%q) = %+v, %v; want %+v", tc.period, tc.start, tc.end, got, err, tc.want)
		}
	}
}

func TestNormalizeEventRef(t *testing.T) {
	for in, want := range map[string]string{
		"": "latest", "latest": "latest", "LATEST": "latest", "recommended": "latest", "oldest": "oldest",
		"9B1F6D9A-4C2E-4F0A-8E6B-3C1D2E4F5A6B": "9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b",
	} {
		if got, err := backend.NormalizeEventRef(in); err != nil || got != want {
			t.Errorf("normalizeEventRef(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"newest", "123", "../x", strings.Repeat("a", 33)} {
		if _, err := backend.NormalizeEventRef(in); !errors.Is(err, backend.ErrInvalidInput) {
			t.Errorf("normalizeEventRef(%q) = %v, want ErrInvalidInput", in, err)
		}
	}
}
