package sentryapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/sentryapi"
	"github.com/mcpkit/reference/servers/errors/sentryapi/sentrytest"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
)

func TestSentrySearchSendsQuerySortAndWindow(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	ctx := context.Background()
	res, err := b.SearchIssues(ctx, backend.SearchIssuesInput{
		Query: "is:unresolved level:error", Sort: "freq", StatsPeriod: "24h",
		Environment: []string{"production", "staging"}, Project: []string{"backend", "12"}, Limit: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got url.Values
	for _, u := range fake.Seen() {
		if u.Path == "/api/0/organizations/acme/issues/" {
			got = u.Query()
		}
	}
	want := url.Values{
		"query": {"is:unresolved level:error"}, "sort": {"freq"}, "statsPeriod": {"24h"},
		"environment": {"production", "staging"}, "project": {"11", "12"}, "limit": {"2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("query string the fake received (-want +got):\n%s", diff)
	}
	wantFirst := backend.Issue{
		ID: "1001", ShortID: "BACKEND-1", Title: "*errors.errorString: card declined", Culprit: "shop/checkout in Charge",
		Type: "*errors.errorString", Value: "card declined", Level: "error", Status: "unresolved", Project: "backend",
		Platform: "go", Count: 1520, UserCount: 87, FirstSeen: "2026-05-01T08:12:33.123Z", LastSeen: "2026-05-02T14:03:10.456Z",
		Permalink: "https://acme.sentry.io/issues/1001/",
	}
	if len(res.Issues) != 2 {
		t.Fatalf("got %d issues, want 2", len(res.Issues))
	}
	if diff := cmp.Diff(wantFirst, res.Issues[0]); diff != "" {
		t.Errorf("first issue (-want +got):\n%s", diff)
	}
	if res.NextCursor != "0:2:0" || !res.Truncated {
		t.Errorf("NextCursor %q truncated %v, want 0:2:0 and true", res.NextCursor, res.Truncated)
	}

	// An absolute window replaces statsPeriod.
	if _, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Start: "2026-05-01T00:00:00Z", End: "2026-05-02T12:30:00Z"}); err != nil {
		t.Fatal(err)
	}
	last := fake.Seen()[len(fake.Seen())-1].Query()
	if last.Get("start") != "2026-05-01T00:00:00" || last.Get("end") != "2026-05-02T12:30:00" || last.Has("statsPeriod") || last.Has("query") {
		t.Errorf("absolute window sent as %v", last)
	}
}

func TestSentryCursorPaginationAcrossThreePages(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	var ids, cursorsSent []string
	cursor := ""
	for page := 1; ; page++ {
		if page > 5 {
			t.Fatal("pagination did not end")
		}
		res, err := b.SearchIssues(context.Background(), backend.SearchIssuesInput{Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, is := range res.Issues {
			ids = append(ids, is.ID)
		}
		if cursor = res.NextCursor; cursor == "" {
			if res.Truncated {
				t.Error("last page marked truncated")
			}
			break
		}
	}
	for _, u := range fake.Seen() {
		cursorsSent = append(cursorsSent, u.Query().Get("cursor"))
	}
	if diff := cmp.Diff([]string{"1001", "1002", "1003", "1004", "1005", "1006"}, ids); diff != "" {
		t.Errorf("issues across pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "0:2:0", "0:4:0"}, cursorsSent); diff != "" {
		t.Errorf("cursors sent (-want +got):\n%s", diff)
	}
}

func TestSentryLatestEventWithChainedException(t *testing.T) {
	_, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	ev, err := b.GetEvent(context.Background(), backend.GetEventInput{IssueID: "1002", MaxFrames: 3})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := &backend.Event{
		ID: "9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b", IssueID: "1002", Project: "11",
		Timestamp: "2026-05-02T14:03:10.456Z", Title: "*fmt.wrapError: load cart: cart missing",
		Level: "error", Platform: "go", Culprit: "shop/cart in Load", Transaction: "GET /cart",
		Release: "shop@1.4.2", Environment: "production",
		Exceptions: []backend.Exception{
			{
				Type: "*fmt.wrapError", Value: "load cart: cart missing", Mechanism: "generic", Handled: &yes,
				Frames: []backend.Frame{
					{Function: "Load", File: "shop/cart/load.go", Line: 19, InApp: true,
						Context: []backend.ContextLine{
							{Line: 16, Code: "func Load(ctx context.Context, user string) (*Cart, error) {"},
							{Line: 17, Code: "\tc, ok := store[user]"},
							{Line: 18, Code: "\tif !ok {"},
							{Line: 19, Code: "\t\treturn nil, fmt.Errorf(\"load cart: %w\", errCartMissing)", Current: true},
							{Line: 20, Code: "\t}"},
							{Line: 21, Code: "\treturn c, nil"},
							{Line: 22, Code: "}"},
						},
						Vars: map[string]string{"ok": "false", "user": "u-4821"}},
					{Function: "(*Handler).ServeHTTP", File: "shop/cart/handler.go", Line: 41, InApp: true,
						Context: []backend.ContextLine{
							{Line: 40, Code: "func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {"},
							{Line: 41, Code: "\tcart, err := Load(r.Context(), userID(r))", Current: true},
							{Line: 42, Code: "\tif err != nil {"},
						},
						Vars: map[string]string{"authorization": event.Redacted, "r": "<*http.Request>"}},
					{Function: "(*conn).serve", File: "net/http/server.go", Line: 2092},
				},
				FramesOmitted: 1,
			},
			{Type: "*errors.errorString", Value: "cart missing", Mechanism: "chained", Handled: &yes},
		},
		Breadcrumbs: []backend.Breadcrumb{
			{Timestamp: "2026-05-02T14:03:09.900Z", Type: "http", Category: "http", Level: "info",
				Data: map[string]string{"method": "GET", "status_code": "200", "url": "https://payments.example/v1/status?api_key=" + event.Redacted}},
			{Timestamp: "2026-05-02T14:03:10.100Z", Type: "default", Category: "query", Level: "info", Message: "SELECT * FROM carts WHERE user_id = $1"},
			{Timestamp: "2026-05-02T14:03:10.400Z", Type: "default", Category: "log", Level: "warning", Message: "login retry for ann password=" + event.Redacted},
		},
		Request: &backend.Request{
			Method: "GET", URL: "https://shop.example/cart",
			Query:   map[string]string{"page": "2", "access_token": event.Redacted},
			Headers: map[string]string{"Accept": "application/json", "Authorization": event.Redacted, "Cookie": event.Redacted, "User-Agent": "curl/8.5.0"},
		},
		User: &backend.User{ID: "u-4821", Email: "ann@example.com", IP: "203.0.113.9"},
		// environment, level, release and transaction are the fields above.
		Tags: []backend.Tag{{Key: "server_name", Value: "web-1"}, {Key: "session_id", Value: event.Redacted}, {Key: "tenant", Value: "acmegnp.exe"}},
		Contexts: map[string]map[string]string{
			"os":      {"name": "linux", "type": "os"},
			"runtime": {"name": "go", "type": "runtime", "version": "go1.26.8"},
			"trace":   {"span_id": "00f067aa0ba902b7", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "type": "trace"},
		},
		Extra: map[string]string{"cart_items": "3", "db_password": event.Redacted, "note": "retry with token=" + event.Redacted},
		// No code mapping is configured: the result says how to add one.
		Notice: "no code mappings are set for frame files such as shop/cart/: to get local paths, start this server with --code-mapping shop/cart/=DIR (env ERRORS_CODE_MAPPINGS), DIR being where that directory is on this machine",
	}
	want.Cut("stack frames cut at maxFrames=3 (in-app frames kept first): call again with a larger maxFrames (up to 200) for more")
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}

func TestSentryIssueDetailEventsAndTagValues(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	ctx := context.Background()
	is, err := b.GetIssue(ctx, backend.GetIssueInput{IssueID: "1001"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ts := range is.Tags {
		keys = append(keys, fmt.Sprintf("%s:%d/%d", ts.Key, len(ts.TopValues), ts.TotalValues))
	}
	if diff := cmp.Diff([]string{"environment:2/1520", "release:3/1520", "server_name:2/1520", "browser:0/0"}, keys); diff != "" {
		t.Errorf("tag summary, priority keys first (-want +got):\n%s", diff)
	}
	if is.Count != 1520 || is.Title != "*errors.errorString: card declined" {
		t.Errorf("issue = %+v", is.Issue)
	}

	evs, err := b.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: "1002", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []backend.EventSummary{
		{ID: "9b1f6d9a4c2e4f0a8e6b3c1d2e4f5a6b", Timestamp: "2026-05-02T14:03:10.456Z", Title: "*fmt.wrapError: load cart: cart missing", Level: "error", Environment: "production", Release: "shop@1.4.2", User: "id:u-4821"},
		{ID: "0c2d8e1f3a4b4c5d9e8f7a6b5c4d3e2f", Timestamp: "2026-05-02T13:58:01.000Z", Title: "*fmt.wrapError: load cart: cart missing", Level: "error", Environment: "staging", Release: "shop@1.4.1"},
	}
	if diff := cmp.Diff(want, evs.Events); diff != "" || evs.NextCursor != "" {
		t.Errorf("events (cursor %q) (-want +got):\n%s", evs.NextCursor, diff)
	}

	tv, err := b.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: "1002", Key: "environment"})
	if err != nil {
		t.Fatal(err)
	}
	wantTV := &backend.TagValueList{Key: "environment", TotalValues: 230, UniqueValues: 2, Values: []backend.TagValue{
		{Value: "production", Count: 200, FirstSeen: "2026-05-01T08:12:33.000Z", LastSeen: "2026-05-02T14:03:10.000Z"},
		{Value: "staging", Count: 30, FirstSeen: "2026-05-01T09:00:00.000Z", LastSeen: "2026-05-02T13:58:01.000Z"},
	}}
	if diff := cmp.Diff(wantTV, tv); diff != "" {
		t.Errorf("tag values (-want +got):\n%s", diff)
	}
	for _, u := range fake.Seen() {
		if strings.HasSuffix(u.Path, "/values/") && (u.Query().Get("sort") != "count" || u.Query().Get("per_page") != "25") {
			t.Errorf("tag values requested with %v, want sort=count (most frequent first) per_page=25", u.Query())
		}
	}

	if _, err := b.GetIssue(ctx, backend.GetIssueInput{IssueID: "9999"}); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("missing issue: %v, want ErrNotFound", err)
	}
}

// TestSentryTagValuesMostFrequentFirst: get_tag_values lists most frequent first on
// Sentry. Its endpoint orders by times seen only for sort=count; any other value
// ("-count" included) falls back to first seen, newest first, and the fake orders
// the same way. The fixture's values are in neither order, and first seen and last
// Seen each order them differently from their counts.
func TestSentryTagValuesMostFrequentFirst(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	tv, err := b.GetTagValues(context.Background(), backend.GetTagValuesInput{IssueID: "1002", Key: "server_name"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range tv.Values {
		got = append(got, fmt.Sprintf("%s=%d", v.Value, v.Count))
	}
	if diff := cmp.Diff([]string{"web-1=200", "web-2=50", "web-3=10"}, got); diff != "" || tv.TotalValues != 260 {
		t.Errorf("get_tag_values server_name of 1002 (total %d), most frequent first (-want +got):\n%s", tv.TotalValues, diff)
	}
	for _, u := range fake.Seen() {
		if strings.HasSuffix(u.Path, "/values/") && u.Query().Get("sort") != "count" {
			t.Errorf("tag values requested with sort=%q; Sentry orders by count only for sort=count", u.Query().Get("sort"))
		}
	}
}

func TestSentryRetriesAndRateLimits(t *testing.T) {
	retryAt := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	cases := []struct {
		name      string
		responses []func(w http.ResponseWriter) // one per attempt; the last repeats
		wantErr   error
		wantMsg   string
		wantCalls int
	}{
		{name: "429 then success", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.Header().Set("Retry-After", "0"); w.WriteHeader(429) },
			nil,
		}, wantCalls: 2},
		{name: "500 then success", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.WriteHeader(500); w.Write([]byte(`{"detail":"Internal Error"}`)) },
			nil,
		}, wantCalls: 2},
		{name: "502 until the attempts run out", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.WriteHeader(502) },
		}, wantErr: backend.ErrUnavailable, wantMsg: "after 3 attempts", wantCalls: 3},
		{name: "429 longer than the wait limit", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.Header().Set("Retry-After", "3600"); w.WriteHeader(429) },
		}, wantErr: backend.ErrRateLimited, wantMsg: "retry after", wantCalls: 1},
		{name: "429 with an HTTP date", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", retryAt.Format(http.TimeFormat))
				w.WriteHeader(429)
			},
		}, wantErr: backend.ErrRateLimited, wantMsg: "retry after " + retryAt.Format(time.RFC3339) + " (in 2h0m0s)", wantCalls: 1},
		{name: "401 is a configuration error", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.WriteHeader(401); w.Write([]byte(`{"detail":"Invalid token"}`)) },
		}, wantErr: backend.ErrConfig, wantMsg: "SENTRY_AUTH_TOKEN", wantCalls: 1},
		{name: "403 names the scopes", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.WriteHeader(403)
				w.Write([]byte(`{"detail":"You do not have permission to perform this action."}`))
			},
		}, wantErr: backend.ErrConfig, wantMsg: "event:read", wantCalls: 1},
		{name: "redirect is not followed", responses: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.Header().Set("Location", "https://us.sentry.io/api/0/")
				w.WriteHeader(302)
			},
		}, wantErr: backend.ErrConfig, wantMsg: "https://us.sentry.io", wantCalls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := sentrytest.New(t, "")
			calls := 0
			fake.SetOverride("/api/0/organizations/acme/issues/1001/", func(w http.ResponseWriter, r *http.Request) {
				i := min(calls, len(tc.responses)-1)
				calls++
				if tc.responses[i] == nil {
					w.Write(sentrytest.Fixture(t, "issue_1001.json"))
					return
				}
				tc.responses[i](w)
			})
			var logs bytes.Buffer
			b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) {
				c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			})
			err := b.GetIssueForTest(context.Background(), []string{"organizations", "acme", "issues", "1001"})
			if tc.wantErr == nil && err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if tc.wantErr != nil && (!errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg)) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.wantErr, tc.wantMsg)
			}
			if calls != tc.wantCalls {
				t.Errorf("%d requests, want %d", calls, tc.wantCalls)
			}
			if err != nil && strings.Contains(err.Error(), sentrytest.Token) || strings.Contains(logs.String(), sentrytest.Token) {
				t.Errorf("the token leaked into an error or a log line")
			}
			if logs.Len() == 0 {
				t.Error("no debug log line per request")
			}
		})
	}
}

func TestSentryHangingEndpointIsCutOffByTheDeadline(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	fake.SetOverride("/api/0/organizations/acme/issues/1001/", hang)
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) {
		c.CallTimeout, c.AttemptTimeout = 400*time.Millisecond, 150*time.Millisecond
	})
	_, err := b.GetIssue(context.Background(), backend.GetIssueInput{IssueID: "1001"})
	if !errors.Is(err, backend.ErrUnavailable) || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err = %v, want ErrUnavailable naming the deadline", err)
	}
	if n := len(fake.Seen()); n < 2 {
		t.Errorf("%d attempts, want the timed-out attempt retried within the deadline", n)
	}

	// A timeout then an answer: the retry succeeds.
	calls := 0
	fake.SetOverride("/api/0/organizations/acme/issues/1001/", func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			hang(w, r)
			return
		}
		w.Write(sentrytest.Fixture(t, "issue_1001.json"))
	})
	b = sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.AttemptTimeout = 150 * time.Millisecond })
	is, err := b.GetIssue(context.Background(), backend.GetIssueInput{IssueID: "1001"})
	if err != nil || is.ID != "1001" {
		t.Fatalf("timeout then success: %v, %v", is, err)
	}
}

func TestSentryWrongTokenIsAClearConfigurationError(t *testing.T) {
	_, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.Token = "sntrys_wrong_secret_value" })
	_, err := b.SearchIssues(context.Background(), backend.SearchIssuesInput{})
	if !errors.Is(err, backend.ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
	for _, want := range []string{"401", "SENTRY_AUTH_TOKEN", "org:read", "project:read", "event:read"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sntrys_wrong_secret_value") {
		t.Error("error contains the token")
	}
}

func TestSentrySelfHostedPathPrefix(t *testing.T) {
	fake, srv := sentrytest.New(t, "/sentry")
	for _, base := range []string{srv.URL + "/sentry/", srv.URL + "/sentry", srv.URL + "/sentry/api/0/"} {
		b := sentrytest.NewBackend(t, base)
		if got, want := b.BaseURL(), srv.URL+"/sentry/"; got != want {
			t.Errorf("BaseURL(%q) = %q, want %q", base, got, want)
		}
		is, err := b.GetIssue(context.Background(), backend.GetIssueInput{IssueID: "1001"})
		if err != nil || is.ID != "1001" {
			t.Fatalf("GetIssue via %s: %v", base, err)
		}
	}
	for _, u := range fake.Seen() {
		if !strings.HasPrefix(u.Path, "/sentry/api/0/organizations/acme/issues/1001/") {
			t.Errorf("request to %s, want it under /sentry/api/0/", u.Path)
		}
	}
}

func TestSentryOrganizationDefaultsAndProjects(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL, func(c *sentryapi.Config) { c.Organization = "" })
	ctx := context.Background()
	ps, err := b.ListProjects(ctx, backend.ListProjectsInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := &backend.ProjectList{
		Organizations: []backend.Organization{{Slug: "acme", Name: "Acme Shop"}},
		Projects: []backend.Project{
			{ID: "11", Slug: "backend", Name: "Backend", Platform: "go", Organization: "acme"},
			{ID: "12", Slug: "storefront", Name: "Storefront", Platform: "javascript-react", Organization: "acme"},
		},
	}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("ListProjects (-want +got):\n%s", diff)
	}
	// With no organization configured, the only one the token sees is used.
	if _, err := b.GetIssue(ctx, backend.GetIssueInput{IssueID: "1001"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Project: []string{"no-such-project"}}); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown project slug: %v, want ErrNotFound", err)
	}
	orgCalls := 0
	for _, u := range fake.Seen() {
		if u.Path == "/api/0/organizations/" {
			orgCalls++
		}
	}
	if orgCalls != 1 {
		t.Errorf("organizations listed %d times, want 1 (cached)", orgCalls)
	}
}

func TestSentryConfigValidation(t *testing.T) {
	cases := []struct {
		base, want, wantErr string
	}{
		{base: "", want: "https://sentry.io/"},
		{base: "https://sentry.io", want: "https://sentry.io/"},
		{base: "us.sentry.io", want: "https://us.sentry.io/"},
		{base: "https://de.sentry.io/api/0/", want: "https://de.sentry.io/"},
		{base: "https://sentry.example.com/sentry/api/0", want: "https://sentry.example.com/sentry/"},
		{base: "http://localhost:9000", want: "http://localhost:9000/"},
		{base: "http://127.0.0.1:9000/", want: "http://127.0.0.1:9000/"},
		{base: "http://[::1]:9000/", want: "http://[::1]:9000/"},
		{base: "http://sentry.example.com", wantErr: "plain http"},
		{base: "http://10.0.0.5:9000", wantErr: "plain http"},
		{base: "https://user:pw@sentry.io", wantErr: "credentials"},
		{base: "ftp://sentry.io", wantErr: "https"},
		{base: "https://sentry.io/?x=1", wantErr: "query"},
	}
	for _, tc := range cases {
		b, err := sentryapi.New(sentryapi.Config{BaseURL: tc.base, Token: sentrytest.Token})
		switch {
		case tc.wantErr != "":
			if !errors.Is(err, backend.ErrConfig) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err = %v, want ErrConfig mentioning %q", tc.base, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.base, err)
		case b.BaseURL() != tc.want:
			t.Errorf("%q: BaseURL %q, want %q", tc.base, b.BaseURL(), tc.want)
		}
	}
	for _, tok := range []string{"", "abc def", "abc\nX-Injected: 1"} {
		_, err := sentryapi.New(sentryapi.Config{Token: tok})
		if !errors.Is(err, backend.ErrConfig) || (tok != "" && strings.Contains(err.Error(), tok)) {
			t.Errorf("token %q: err = %v, want ErrConfig without the token", tok, err)
		}
	}
}

func TestSentryRefusesBadArgumentsBeforeAnyRequest(t *testing.T) {
	fake, srv := sentrytest.New(t, "")
	b := sentrytest.NewBackend(t, srv.URL)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"path in issue id": func() error { _, err := b.GetIssue(ctx, backend.GetIssueInput{IssueID: "../../admin"}); return err },
		"bad event id": func() error {
			_, err := b.GetEvent(ctx, backend.GetEventInput{IssueID: "1", EventID: "zzz"})
			return err
		},
		"bad period": func() error {
			_, err := b.SearchIssues(ctx, backend.SearchIssuesInput{StatsPeriod: "yesterday"})
			return err
		},
		"period and start": func() error {
			_, err := b.SearchIssues(ctx, backend.SearchIssuesInput{StatsPeriod: "1d", Start: "2026-01-01", End: "2026-01-02"})
			return err
		},
		"limit too big": func() error { _, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Limit: 1000}); return err },
		"bad sort":      func() error { _, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Sort: "random"}); return err },
		"bad cursor":    func() error { _, err := b.SearchIssues(ctx, backend.SearchIssuesInput{Cursor: "a b&c"}); return err },
		"bad tag key": func() error {
			_, err := b.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: "1", Key: "a/b"})
			return err
		},
		"too many frames": func() error {
			_, err := b.GetEvent(ctx, backend.GetEventInput{IssueID: "1", MaxFrames: 500})
			return err
		},
	} {
		if err := call(); !errors.Is(err, backend.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", name, err)
		}
	}
	if n := len(fake.Seen()); n != 0 {
		t.Errorf("%d requests sent for invalid arguments, want 0", n)
	}
}
