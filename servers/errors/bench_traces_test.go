package errorserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
)

// Benchmarks of traces and logs (#28). The ingest ones post through the HTTP endpoint
// as BenchmarkIngestEnvelopes does (16 keep-alive clients, acknowledged after the
// fsynced commit); each request's trace id is new (postEnvelopes replaces the id the
// body holds, which is both the envelope's event id and the trace id), so every span
// and log line is a new row.

// transactionEnvelopes are 8 transaction envelopes of a root span and 20 child spans
// (with data, as SDKs send them); their trace ids are their event ids.
func transactionEnvelopes() (bodies [][]byte, ids []string) {
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for k := range 8 {
		id := hexID(1_000_000 + k)
		var spans []string
		for i := range 20 {
			st := base.Add(time.Duration(i) * 3 * time.Millisecond)
			spans = append(spans, fmt.Sprintf(`{"trace_id":%q,"span_id":"%016x","parent_span_id":"a0a0a0a0a0a0a0a0","op":"db.query","description":"SELECT id, price FROM products WHERE id = $%d","start_timestamp":%q,"timestamp":%q,"status":"ok","origin":"auto.db","data":{"db.system":"postgresql","db.name":"shop","thread.id":"1","code.filepath":"example.com/shop/checkout/rates.go","code.function":"lookupRate","code.lineno":42}}`,
				id, i+1, i, st.Format(time.RFC3339Nano), st.Add(2*time.Millisecond).Format(time.RFC3339Nano)))
		}
		tx := fmt.Sprintf(`{"type":"transaction","event_id":%q,"transaction":"POST /checkout","start_timestamp":%q,"timestamp":%q,"release":"shop@1.2.3","environment":"production","platform":"go","sdk":{"name":"sentry.go","version":"0.46.2"},"tags":{"currency":"EUR"},"contexts":{"trace":{"trace_id":%q,"span_id":"a0a0a0a0a0a0a0a0","op":"http.server","status":"ok","data":{"http.method":"POST"}}},"spans":[%s]}`,
			id, base.Format(time.RFC3339Nano), base.Add(80*time.Millisecond).Format(time.RFC3339Nano), id, strings.Join(spans, ","))
		bodies = append(bodies, fmt.Appendf(nil, "{\"event_id\":%q}\n{\"type\":\"transaction\",\"length\":%d}\n%s\n", id, len(tx), tx))
		ids = append(ids, id)
	}
	return bodies, ids
}

// logEnvelopes are 8 envelopes of one log item of 100 lines each (sentry-go's
// shape); every line carries the envelope's id as its trace id.
func logEnvelopes() (bodies [][]byte, ids []string) {
	for k := range 8 {
		id := hexID(2_000_000 + k)
		var lines []string
		for i := range 100 {
			lines = append(lines, fmt.Sprintf(`{"timestamp":%d.%03d,"trace_id":%q,"level":"info","severity_number":9,"body":"charged order A-%d for %d.50 EUR","attributes":{"sentry.release":{"value":"shop@1.2.3","type":"string"},"sentry.environment":{"value":"production","type":"string"},"sentry.sdk.name":{"value":"sentry.go","type":"string"},"order":{"value":"A-%d","type":"string"},"amount":{"value":%d.5,"type":"double"}}}`,
				1796126400+i, i, id, i, i, i, i))
		}
		payload := `{"items":[` + strings.Join(lines, ",") + `]}`
		bodies = append(bodies, fmt.Appendf(nil, "{\"event_id\":%q}\n{\"type\":\"log\",\"item_count\":100,\"content_type\":\"application/vnd.sentry.items.log+json\",\"length\":%d}\n%s\n", id, len(payload), payload))
		ids = append(ids, id)
	}
	return bodies, ids
}

// BenchmarkIngestTransactions: one op = one transaction of 21 spans.
func BenchmarkIngestTransactions(b *testing.B) {
	bodies, ids := transactionEnvelopes()
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	srv, _ := startIngest(b, store)
	postEnvelopes(b, srv.Listener.Addr().String(), "42", testKey, bodies, ids, 0)
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "transactions/s")
	b.ReportMetric(rate*21, "spans/s")
	if n := tableRows(b, store, "spans"); n != int64(b.N)*21 {
		b.Fatalf("stored %d spans, sent %d", n, b.N*21)
	}
}

// BenchmarkIngestLogBatches: one op = one batch of 100 log lines.
func BenchmarkIngestLogBatches(b *testing.B) {
	bodies, ids := logEnvelopes()
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	srv, _ := startIngest(b, store)
	postEnvelopes(b, srv.Listener.Addr().String(), "42", testKey, bodies, ids, 0)
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "batches/s")
	b.ReportMetric(rate*100, "logs/s")
	if n := tableRows(b, store, "logs"); n != int64(b.N)*100 {
		b.Fatalf("stored %d logs, sent %d", n, b.N*100)
	}
}

// BenchmarkGetTrace: get_trace of a 1,000-span trace over the store.
func BenchmarkGetTrace(b *testing.B) {
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	trace, _, _ := bigTrace(store, b, 1000)
	pb := backend.NewPresenter(store, nil, nil, "", nil).Traces()
	var size int
	reportP50(b, func() {
		tr, err := pb.GetTrace(context.Background(), backend.GetTraceInput{TraceID: trace})
		if err != nil || len(tr.Spans) == 0 {
			b.Fatal(err)
		}
		size = len(mustJSON(tr))
	})
	b.ReportMetric(float64(size), "result_bytes")
}

var logBenchStore struct {
	once sync.Once
	dir  string
	err  error
}

// logStore is a store of 1,000,000 log lines over a day (10,000 traces, levels and
// attributes varied), built once per process through IngestTelemetry.
func logStore(b *testing.B) string {
	logBenchStore.once.Do(func() {
		// ERRORS_LOGBENCH_DIR names a store an earlier run built (it logs where) to
		// compare code changes on the same data without building it again.
		if dir := os.Getenv("ERRORS_LOGBENCH_DIR"); dir != "" {
			logBenchStore.dir = dir
			return
		}
		dir, err := os.MkdirTemp("", "errors-logbench-")
		if err != nil {
			logBenchStore.err = err
			return
		}
		logBenchStore.dir = dir
		start := time.Now()
		store, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger})
		if err != nil {
			logBenchStore.err = err
			return
		}
		defer store.Close()
		end := time.Now()
		levels := []string{"info", "info", "info", "debug", "warn", "error"}
		const total, batch = 1_000_000, 5000
		for k := 0; k < total; k += batch {
			tel := &event.Telemetry{Project: "1"}
			for i := k; i < k+batch; i++ {
				tel.Logs = append(tel.Logs, &event.Log{ID: hexID(i), Project: "1", Timestamp: end.Add(-time.Duration(total-i) * 86 * time.Millisecond),
					TraceID: hexID(3_000_000 + i/100), Level: levels[i%len(levels)], Body: fmt.Sprintf("order A-%d: %s step %d took %d ms", i, []string{"charged", "rate looked up", "cart loaded", "checkout failed"}[i%4], i%7, i%300),
					Release: "shop@1.2." + fmt.Sprint(i%5), Environment: []string{"production", "staging"}[i%2], Attributes: []event.Pair{{Key: "tenant", Value: fmt.Sprintf("t%d", i%50)}}})
			}
			if err := store.IngestTelemetry(context.Background(), nil, tel); err != nil {
				logBenchStore.err = err
				return
			}
		}
		fmt.Fprintf(os.Stderr, "log bench store: %d lines in %s, built in %s\n", total, dir, time.Since(start).Round(time.Millisecond))
	})
	if logBenchStore.err != nil {
		b.Fatal(logBenchStore.err)
	}
	return logBenchStore.dir
}

// BenchmarkSearchLogs: search_logs over 1,000,000 stored lines, opened to read.
func BenchmarkSearchLogs(b *testing.B) {
	dir := logStore(b)
	store, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for _, c := range []struct{ name, query, period string }{
		{"newest", "", "24h"},
		{"text", "checkout failed", "24h"},
		{"rare_text", "order A-777777:", "24h"},
		{"level_env", "level:error environment:production", "24h"},
		{"trace", "trace:" + hexID(3_000_000+4242), "24h"},
		{"attribute_1h", "tenant:t7", "1h"},
	} {
		b.Run(c.name, func(b *testing.B) {
			reportP50(b, func() {
				if _, err := store.SearchLogs(context.Background(), backend.SearchLogsInput{Query: c.query, StatsPeriod: c.period}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
