package errorserver

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/getsentry/sentry-go"
	"github.com/google/go-cmp/cmp"
)

func TestLocalEndToEndWithSentryGo(t *testing.T) {
	ctx := context.Background()
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	_, dsn := startIngest(t, store)

	staging := errorstest.NewTestHub(t, dsn, "staging", func(s *sentry.Scope) {
		req, _ := http.NewRequest(http.MethodPost, "https://shop.example/checkout?token=tok_live_123&step=2", nil)
		req.Header.Set("Authorization", "Bearer sk_live_abcdefghijkl")
		req.Header.Set("Cookie", "session=s3cr3t")
		req.Header.Set("Accept", "text/html")
		s.SetRequest(req)
		s.SetContext("payment", sentry.Context{"card_token": "tok_visa_4242", "amount": 42})
	})
	production := errorstest.NewTestHub(t, dsn, "production", nil)
	staging.AddBreadcrumb(&sentry.Breadcrumb{Category: "http", Message: "POST /login password=hunter2", Data: map[string]any{"api_key": "k-123", "status": 500}}, nil)

	flush := func(name string, hub *sentry.Hub) {
		if !hub.Flush(10 * time.Second) {
			t.Fatalf("%s hub did not flush", name)
		}
	}
	var chargeLine int
	for range 3 {
		chargeLine = errorstest.ChargeCard(staging)
	}
	errorstest.LoadCart(staging, "ann")
	flush("staging", staging) // so bob's event is the issue's latest, which titles it
	errorstest.LoadCart(staging, "bob")
	staging.CaptureMessage("inventory low")
	staging.CaptureMessage("inventory low") // a second call site, same message: same issue
	staging.CaptureMessage("payment provider slow")
	errorstest.Explode(staging)
	flush("staging", staging)
	errorstest.ChargeCard(production) // after the staging events: the latest of its issue
	flush("production", production)

	res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{StatsPeriod: "1h", Sort: "freq"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Type  string
		Count int64
		Level string
	}
	byTitle := map[string]row{}
	titles := map[string]string{} // issue id by short name
	for _, is := range res.Issues {
		byTitle[is.Title] = row{is.Type, is.Count, is.Level}
	}
	want := map[string]row{
		"*errors.errorString: card declined":             {"*errors.errorString", 4, "error"},
		"*fmt.wrapError: load cart of bob: cart missing": {"*fmt.wrapError", 2, "error"}, // titled by its latest event
		"inventory low":         {"", 2, "info"},
		"payment provider slow": {"", 1, "info"},
	}
	var panicTitle string
	for title, r := range byTitle {
		if strings.Contains(title, "assignment to entry in nil map") {
			panicTitle = title
			want[title] = row{r.Type, 1, "fatal"}
		}
	}
	if panicTitle == "" {
		t.Errorf("no issue for the recovered panic among %v", byTitle)
	}
	if diff := cmp.Diff(want, byTitle); diff != "" {
		t.Fatalf("issues (-want +got):\n%s", diff)
	}
	if res.Issues[0].Title != "*errors.errorString: card declined" {
		t.Errorf("sort=freq put %q first, want the issue with 4 events", res.Issues[0].Title)
	}
	for _, is := range res.Issues {
		titles[is.Title] = is.ID
	}
	charge := titles["*errors.errorString: card declined"]

	// Search filters over the same data.
	for _, tc := range []struct {
		query string
		env   []string
		want  []string
	}{
		{query: "environment:production", want: []string{"*errors.errorString: card declined"}},
		{env: []string{"production"}, want: []string{"*errors.errorString: card declined"}},
		{query: "level:fatal", want: []string{panicTitle}},
		{query: "declined is:unresolved", want: []string{"*errors.errorString: card declined"}},
		{query: "!level:fatal !level:info", want: []string{"*errors.errorString: card declined", "*fmt.wrapError: load cart of bob: cart missing"}},
		{query: "tenant:acme release:shop@1.2.3 level:info", want: []string{"inventory low", "payment provider slow"}},
		{query: "error.type:*wrapError", want: []string{"*fmt.wrapError: load cart of bob: cart missing"}},
		{query: "is:resolved", want: nil},
	} {
		got, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Query: tc.query, Environment: tc.env})
		if err != nil {
			t.Errorf("SearchIssues(%q): %v", tc.query, err)
			continue
		}
		var gotTitles []string
		for _, is := range got.Issues {
			gotTitles = append(gotTitles, is.Title)
		}
		sort.Strings(gotTitles)
		if diff := cmp.Diff(tc.want, gotTitles); diff != "" {
			t.Errorf("SearchIssues(query=%q env=%v) (-want +got):\n%s", tc.query, tc.env, diff)
		}
	}

	// The issue's tag summary counts environments, tenants, users and the release.
	detail, err := store.GetIssue(ctx, backend.GetIssueInput{IssueID: charge})
	if err != nil {
		t.Fatal(err)
	}
	tagCounts := map[string]map[string]int64{}
	for _, ts := range detail.Tags {
		tagCounts[ts.Key] = map[string]int64{}
		for _, v := range ts.TopValues {
			tagCounts[ts.Key][v.Value] = v.Count
		}
	}
	for key, wantVals := range map[string]map[string]int64{
		"environment": {"staging": 3, "production": 1},
		"tenant":      {"acme": 4},
		"release":     {"shop@1.2.3": 4},
		"user":        {"id:u-1": 4},
		"server_name": {"web-1": 4},
		"level":       {"error": 4},
	} {
		if diff := cmp.Diff(wantVals, tagCounts[key]); diff != "" {
			t.Errorf("tag %s (-want +got):\n%s", key, diff)
		}
	}
	if detail.Count != 4 || detail.UserCount != 1 {
		t.Errorf("GetIssue count=%d users=%d, want 4 and 1", detail.Count, detail.UserCount)
	}

	// The latest event: frames point at the capture line, in-app first, with source.
	ev, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: charge})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Environment != "production" || ev.Release != "shop@1.2.3" || ev.Level != "error" {
		t.Errorf("latest event env=%q release=%q level=%q, want production, shop@1.2.3, error", ev.Environment, ev.Release, ev.Level)
	}
	if len(ev.Exceptions) != 1 || len(ev.Exceptions[0].Frames) == 0 {
		t.Fatalf("latest event exceptions = %+v", ev.Exceptions)
	}
	top := ev.Exceptions[0].Frames[0]
	if !top.InApp || top.Function != "chargeCard" || top.Line != chargeLine || !strings.HasSuffix(top.File, "errorstest.go") {
		t.Errorf("first frame = %+v, want in-app chargeCard at errorstest.go:%d", top, chargeLine)
	}
	var current *backend.ContextLine
	for i, c := range top.Context {
		if c.Current {
			current = &top.Context[i]
		}
	}
	if current == nil || current.Line != chargeLine || !strings.Contains(current.Code, `hub.CaptureException(errors.New("card declined"))`) {
		t.Errorf("source context of the first frame = %+v, want the capture line marked current", top.Context)
	}
	seenLib := false
	for _, f := range ev.Exceptions[0].Frames {
		if !f.InApp {
			seenLib = true
		} else if seenLib {
			t.Errorf("in-app frame %s after a library frame: in-app frames must come first", f.Function)
		}
	}

	// A staging event carries the request, breadcrumbs and contexts, redacted.
	list, err := store.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: charge, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Events) != 3 || list.NextCursor == "" || !list.Truncated {
		t.Fatalf("first page: %d events, cursor %q, truncated %v; want 3, a cursor, true", len(list.Events), list.NextCursor, list.Truncated)
	}
	if list.Events[0].Environment != "production" {
		t.Errorf("newest event first: got environment %q", list.Events[0].Environment)
	}
	rest, err := store.ListIssueEvents(ctx, backend.ListIssueEventsInput{IssueID: charge, Limit: 3, Cursor: list.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest.Events) != 1 || rest.NextCursor != "" {
		t.Errorf("second page: %d events, cursor %q; want 1 and none", len(rest.Events), rest.NextCursor)
	}
	sev, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: charge, EventID: rest.Events[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if sev.Request == nil {
		t.Fatal("staging event has no request")
	}
	wantReq := &backend.Request{
		Method:  "POST",
		URL:     "http://shop.example/checkout", // the SDK rebuilds it from a request without TLS
		Query:   map[string]string{"step": "2", "token": event.Redacted},
		Headers: map[string]string{"Authorization": event.Redacted, "Cookie": event.Redacted, "Accept": "text/html"},
	}
	if diff := cmp.Diff(wantReq.Query, sev.Request.Query); diff != "" {
		t.Errorf("request query (-want +got):\n%s", diff)
	}
	for k, v := range wantReq.Headers {
		if sev.Request.Headers[k] != v {
			t.Errorf("request header %s = %q, want %q", k, sev.Request.Headers[k], v)
		}
	}
	if sev.Request.URL != wantReq.URL || sev.Request.Method != wantReq.Method {
		t.Errorf("request %s %s, want %s %s", sev.Request.Method, sev.Request.URL, wantReq.Method, wantReq.URL)
	}
	if got := sev.Contexts["payment"]; got["card_token"] != event.Redacted || got["amount"] != "42" {
		t.Errorf("payment context = %v, want card_token redacted and amount 42", got)
	}
	if len(sev.Breadcrumbs) == 0 {
		t.Fatal("staging event has no breadcrumbs")
	}
	crumb := sev.Breadcrumbs[len(sev.Breadcrumbs)-1]
	if crumb.Message != "POST /login password="+event.Redacted || crumb.Data["api_key"] != event.Redacted || crumb.Data["status"] != "500" {
		t.Errorf("breadcrumb = %+v, want the password and api_key redacted", crumb)
	}

	// A wrapped error is a chain: the reported error first, then its cause.
	wrapped, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: titles["*fmt.wrapError: load cart of bob: cart missing"]})
	if err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, x := range wrapped.Exceptions {
		chain = append(chain, x.Type+": "+x.Value)
	}
	if diff := cmp.Diff([]string{"*fmt.wrapError: load cart of bob: cart missing", "*errors.errorString: cart missing"}, chain); diff != "" {
		t.Errorf("exception chain (-want +got):\n%s", diff)
	}

	// The recovered panic points at the function that panicked.
	pev, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: titles[panicTitle]})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, x := range pev.Exceptions {
		for _, f := range x.Frames {
			found = found || (f.InApp && f.Function == "explode")
		}
	}
	if !found || pev.Level != "fatal" {
		t.Errorf("panic event level %q, frames %+v: want fatal with an in-app explode frame", pev.Level, pev.Exceptions)
	}

	// Message events carry the stack the SDK attached.
	mev, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: titles["inventory low"]})
	if err != nil {
		t.Fatal(err)
	}
	if mev.Message != "inventory low" || len(mev.Stacktrace) == 0 || !mev.Stacktrace[0].InApp {
		t.Errorf("message event message=%q stack=%d frames: want the message and an in-app stack", mev.Message, len(mev.Stacktrace))
	}

	tv, err := store.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: charge, Key: "environment"})
	if err != nil {
		t.Fatal(err)
	}
	var gotVals []string
	for _, v := range tv.Values {
		gotVals = append(gotVals, fmt.Sprintf("%s=%d", v.Value, v.Count))
	}
	if diff := cmp.Diff([]string{"staging=3", "production=1"}, gotVals); diff != "" || tv.TotalValues != 4 || tv.UniqueValues != 2 {
		t.Errorf("GetTagValues(environment) total=%d unique=%d (-want +got):\n%s", tv.TotalValues, tv.UniqueValues, diff)
	}

	// Reopen the same directory: every event and count comes back from disk.
	before := allEventIDs(t, store)
	if len(before) != 10 {
		t.Errorf("stored %d events, want 10", len(before))
	}
	store.Close()
	reopened := openTestStore(t, store.cfg.DataDir)
	defer reopened.Close()
	if diff := cmp.Diff(before, allEventIDs(t, reopened)); diff != "" {
		t.Errorf("events after reopen (-before +after):\n%s", diff)
	}
	again, err := reopened.GetIssue(ctx, backend.GetIssueInput{IssueID: charge})
	if err != nil || again.Count != 4 {
		t.Errorf("after reopen GetIssue = %v, %v; want count 4", again, err)
	}
}
