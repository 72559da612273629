package errorserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/event"
)

// pageBenchEvents is the size of the one issue the page benchmarks read.
const pageBenchEvents = 100_000

// pageBenchEvent is one event of the benchmark's issue: the same exception and
// frames every time (one issue), with 5,000 users, three environments, ten releases
// and a source context, spread over the last 20 hours.
func pageBenchEvent(i int, now time.Time) *event.Event {
	return &event.Event{
		ID: hexID(i), Project: "1", Timestamp: now.Add(-20*time.Hour + time.Duration(i)*(20*time.Hour/pageBenchEvents)),
		Level: "error", Platform: "go", Environment: []string{"production", "staging", "development"}[i%3],
		Release: fmt.Sprintf("shop@1.%d.0", i%10), ServerName: fmt.Sprintf("web-%d", i%8), Transaction: "POST /checkout",
		User:    &event.User{ID: fmt.Sprintf("u-%d", i%5000)},
		Tags:    []event.Pair{{Key: "currency", Value: []string{"EUR", "USD", "GBP"}[i%3]}, {Key: "region", Value: []string{"eu", "us", "ap"}[i%3]}},
		Message: fmt.Sprintf("checkout %d failed", i),
		Exceptions: []event.Exception{{
			Type: "runtime.Error", Value: "integer divide by zero",
			Frames: []event.Frame{
				{Function: "main", Module: "main", Filename: "main.go", Line: 20, InApp: true},
				{Function: "(*Server).ServeHTTP", Module: "net/http", Filename: "server.go", Line: 3100},
				{Function: "convert", Module: "example.com/shop/checkout", Filename: "checkout/payment.go", Line: 54, InApp: true,
					Context: []event.ContextLine{{Line: 53, Code: "func convert(usdCents int64, currency string) int64 {"}, {Line: 54, Code: "\treturn usdCents * 100 / centsPerUnit[currency]"}, {Line: 55, Code: "}"}}},
			},
		}},
		Breadcrumbs: []event.Breadcrumb{{Category: "http", Message: "POST /checkout"}, {Category: "query", Message: "SELECT rate FROM rates WHERE currency = $1"}},
	}
}

// BenchmarkIssuePage renders the page of an issue with 100,000 events (counts, tag
// distributions, the latest event with its frames, the first page of 50 events), and
// the list page over the same store, through the HTTP handler. Its figure is reported
// in the README; nothing is asserted on time.
func BenchmarkIssuePage(b *testing.B) {
	if testing.Short() {
		b.Skip("the store of 100,000 events is not built under -short")
	}
	store := openTestStore(b, b.TempDir(), func(c *LocalConfig) { c.MaxAge = -1; c.MaxTotalBytes = -1 })
	defer store.Close()
	now := time.Now()
	start := time.Now()
	for from := 0; from < pageBenchEvents; from += 5000 {
		events := make([]*event.Event, 0, 5000)
		for i := from; i < from+5000; i++ {
			events = append(events, pageBenchEvent(i, now))
		}
		if err := store.Ingest(context.Background(), events); err != nil {
			b.Fatal(err)
		}
	}
	var id string
	var n int64
	if err := store.db.QueryRow(`SELECT id, times_seen FROM issues`).Scan(&id, &n); err != nil || n != pageBenchEvents {
		b.Fatalf("the store holds %d events in its issue (%v), want %d in one", n, err, pageBenchEvents)
	}
	// The tags are counted a moment after the commit: wait, as a page loaded a
	// second later would find them.
	waitFor(b, "the tags counted", func() bool { return store.Meta(metaTagsThrough) == fmt.Sprint(pageBenchEvents) })
	b.Logf("store of %d events in one issue built in %s", pageBenchEvents, time.Since(start).Round(time.Millisecond))
	h := store.PageHandler(PageConfig{}, ingest.Handler(store))
	for _, c := range []struct{ name, path, want string }{
		{"issue", "/issues/" + id, "100,000"},
		{"issue_older_events", "", ""},
		{"list", "/", "integer divide by zero"},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := c.path
			if c.name == "issue_older_events" { // the second page of events, by its keyset cursor
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/issues/"+id, nil))
				i := strings.Index(rec.Body.String(), `rel="next"`)
				if i < 0 {
					b.Fatalf("no next link: %d %s", rec.Code, rec.Body.String()[max(0, rec.Body.Len()-3000):])
				}
				j := strings.LastIndex(rec.Body.String()[:i], `href="`)
				path = strings.ReplaceAll(rec.Body.String()[j+6:i-2], "&amp;", "&")
			}
			var bytes int
			reportP50(b, func() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), c.want) {
					b.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body.String())
				}
				bytes = rec.Body.Len()
			})
			b.ReportMetric(float64(bytes), "bytes")
		})
	}
}
