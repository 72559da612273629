package errorserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getsentry/sentry-go"
)

// BenchmarkIngestEnvelopes posts envelopes over HTTP from many concurrent clients to a
// store on disk; every acknowledged event is fsynced (group commit). One op = one event.
func BenchmarkIngestEnvelopes(b *testing.B) {
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	srv, _ := startIngest(b, store)
	url := srv.URL + "/api/42/envelope/"
	template := envelopeOf(hexID(0), [2]string{"event", testEvent(hexID(0), "*errors.errorString", "card declined", "Charge", map[string]string{"tenant": "acme"})})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var seq atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := []byte(hexID(int(seq.Add(1))))
			body := bytes.ReplaceAll(template, []byte(hexID(0)), id)
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("X-Sentry-Auth", "Sentry sentry_key="+testKey)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body) // drained, so the connection is reused
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIngestSentryGo sends exceptions from 16 concurrent sentry-go clients (each
// with a synchronous transport, so every op waits for its acknowledgement).
func BenchmarkIngestSentryGo(b *testing.B) {
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	_, dsn := startIngest(b, store)
	const clients = 16
	hubs := make(chan *sentry.Hub, clients)
	for range clients {
		c, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Transport: sentry.NewHTTPSyncTransport(), Environment: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		hubs <- sentry.NewHub(c, sentry.NewScope())
	}
	var next atomic.Int64
	next.Store(int64(b.N))
	errBench := errors.New("bench failure")
	b.ResetTimer()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hub := <-hubs
			for next.Add(-1) >= 0 {
				hub.CaptureException(errBench)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if n := store.eventCount(b); n != int64(b.N) {
		b.Fatalf("stored %d events, sent %d", n, b.N)
	}
}

// benchEvent builds a stored-size-realistic event directly (no JSON parsing), so that
// 100,000 of them are generated in seconds.
func benchEvent(i int) *eventData {
	issue := i % 1000
	envs := []string{"production", "staging", "development"}
	levels := []string{"error", "error", "error", "warning", "fatal"}
	e := &eventData{
		ID: hexID(i), Project: fmt.Sprint(40 + issue%5), Timestamp: time.Unix(1777600000+int64(i), 0).UTC(),
		Level: levels[issue%len(levels)], Platform: "go", Environment: envs[i%3], Release: fmt.Sprintf("shop@1.%d.0", i%10),
		ServerName: fmt.Sprintf("web-%d", i%8), Transaction: fmt.Sprintf("POST /api/v1/resource%d", issue%50),
		User: &userData{ID: fmt.Sprintf("u-%d", i%5000)},
		Tags: []tagPair{{"tenant", fmt.Sprintf("t%d", i%40)}, {"region", []string{"eu", "us", "ap"}[i%3]}},
		Exceptions: []exceptionData{{
			Type: fmt.Sprintf("*pkg%d.Error%d", issue%20, issue), Value: fmt.Sprintf("operation %d failed for item %d", issue, i),
			Frames: []frameData{
				{Function: "main", Module: "main", Filename: "main.go", Line: 20, InApp: true},
				{Function: "(*Server).ServeHTTP", Module: "net/http", Filename: "server.go", Line: 3100},
				{Function: fmt.Sprintf("handler%d", issue), Module: "shop/api", Filename: "api.go", Line: 100 + issue%300, InApp: true,
					Context: []contextLine{{99, "func handler() error {"}, {100, "\treturn doThing()"}, {101, "}"}}},
			},
		}},
		Breadcrumbs: []breadcrumbData{{Category: "http", Message: "GET /api/v1/items"}, {Category: "query", Message: "SELECT * FROM items WHERE id = $1"}},
	}
	return e
}

// BenchmarkSearchIssues measures search_issues over 100,000 stored events in 1,000
// issues, for several query shapes.
func BenchmarkSearchIssues(b *testing.B) {
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	fillBenchStore(b, store, 100_000)
	for _, q := range []struct {
		name string
		in   SearchIssuesInput
	}{
		{"default", SearchIssuesInput{}},
		{"freq_level_env", SearchIssuesInput{Query: "is:unresolved level:error environment:production", Sort: "freq"}},
		{"free_text", SearchIssuesInput{Query: "operation 42"}},
		{"tag_negation_window", SearchIssuesInput{Query: "!region:eu tenant:t7", StatsPeriod: "24h", Sort: "user"}},
		{"page_3", SearchIssuesInput{Sort: "new", Limit: 100}},
	} {
		b.Run(q.name, func(b *testing.B) {
			in := q.in
			if q.name == "page_3" {
				for range 2 {
					res, err := store.SearchIssues(context.Background(), in)
					if err != nil {
						b.Fatal(err)
					}
					in.Cursor = res.NextCursor
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := store.SearchIssues(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReopen100k measures replaying 100,000 stored events into the index.
func BenchmarkReopen100k(b *testing.B) {
	dir := b.TempDir()
	store := openTestStore(b, dir)
	fillBenchStore(b, store, 100_000)
	store.Close()
	b.ResetTimer()
	for b.Loop() {
		s := openTestStore(b, dir)
		if n := s.eventCount(b); n != 100_000 {
			b.Fatalf("reopened with %d events", n)
		}
		s.Close()
	}
}

// fillBenchStore stores total benchEvents (1,000 issues) in batches, the way the
// ingest endpoint does, and logs the time and size.
func fillBenchStore(b *testing.B, store *LocalStore, total int) {
	b.Helper()
	const batch = 5_000
	start := time.Now()
	for i := 0; i < total; i += batch {
		events := make([]*eventData, min(batch, total-i))
		for j := range events {
			events[j] = benchEvent(i + j)
		}
		if err := store.ingest(context.Background(), events); err != nil {
			b.Fatal(err)
		}
	}
	if n := store.eventCount(b); n != int64(total) {
		b.Fatalf("stored %d events, want %d", n, total)
	}
	used, _ := usedBytes(context.Background(), store.db)
	b.Logf("stored %d events in %s (%d bytes on disk)", total, time.Since(start).Round(time.Millisecond), used)
}
