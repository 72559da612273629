package errorserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/getsentry/sentry-go"
)

// benchClients is the number of concurrent senders in the ingest benchmarks.
const benchClients = 16

// rawClient is a minimal HTTP/1.1 client on one keep-alive connection: it writes a
// prepared request and reads the status and body of the answer, so that the senders
// of the ingest benchmark cost the machine little beside the server they measure.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(addr string) (*rawClient, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawClient{conn: c, r: bufio.NewReaderSize(c, 4096)}, nil
}

// post sends one prepared request and returns the answer's status code.
func (c *rawClient) post(req []byte) (int, error) {
	if _, err := c.conn.Write(req); err != nil {
		return 0, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, _ := strconv.Atoi(string(line[9:12]))
	length := -1
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("answer without Content-Length")
	}
	_, err = c.r.Discard(length)
	return status, err
}

// BenchmarkIngestEnvelopes: 16 concurrent HTTP clients (keep-alive connections) post
// envelopes captured from sentry-go (realistic size: stack traces with source context,
// breadcrumbs, tags, user, request), each with a new event id, to a store on disk;
// each waits for its acknowledgement, which comes after the commit is fsynced (group
// commit). One op = one event.
func BenchmarkIngestEnvelopes(b *testing.B) {
	bodies, ids := errorstest.CaptureEnvelopes(b)
	size := 0
	for _, body := range bodies {
		size += len(body)
	}
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	srv, _ := startIngest(b, store)
	addr := srv.Listener.Addr().String()
	cost := meterCost(b, "self")
	commits := store.w.Load().commits.Load()
	postEnvelopes(b, addr, "42", testKey, bodies, ids, 0)
	b.StopTimer()
	diskKB, cpuUs := cost()
	b.ReportMetric(float64(b.N)/float64(store.w.Load().commits.Load()-commits), "events/commit")
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	ingestSummary(b, "the store in the benchmark's process (its 16 clients' CPU counted in), 16 HTTP clients posting sentry-go's envelopes", rate, diskKB, cpuUs)
	b.ReportMetric(float64(size/len(bodies)), "envelope_bytes")
	if n := store.eventCount(b); n != int64(b.N) {
		b.Fatalf("stored %d events, sent %d", n, b.N)
	}
}

// postEnvelopes runs b.N posts of the captured envelopes from benchClients keep-alive
// connections to the ingest endpoint at addr (project, key), each with a new event id
// (from seq0+1 up), and times them. Prepared requests: the event id is rewritten in
// place for every send.
func postEnvelopes(b *testing.B, addr, project, key string, bodies [][]byte, ids []string, seq0 int64) {
	requests := make([][]byte, len(bodies))
	for i, body := range bodies {
		requests[i] = append(fmt.Appendf(nil, "POST /api/%s/envelope/ HTTP/1.1\r\nHost: %s\r\nX-Sentry-Auth: Sentry sentry_version=7, sentry_key=%s\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: %d\r\n\r\n", project, addr, key, len(body)), body...)
	}
	var seq, next atomic.Int64
	seq.Store(seq0)
	next.Store(int64(b.N))
	b.ResetTimer()
	var wg sync.WaitGroup
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialRaw(addr)
			if err != nil {
				b.Error(err)
				return
			}
			defer c.conn.Close()
			// This client's copies of the requests, and the event id each holds now.
			mine := make([][]byte, len(requests))
			cur := slices.Clone(ids)
			for i := range requests {
				mine[i] = slices.Clone(requests[i])
			}
			for next.Add(-1) >= 0 {
				k := int(seq.Add(1))
				j := k % len(mine)
				req, id := mine[j], hexID(k)
				for off := 0; ; {
					i := bytes.Index(req[off:], []byte(cur[j]))
					if i < 0 {
						break
					}
					copy(req[off+i:], id)
					off += i + len(id)
				}
				cur[j] = id
				if status, err := c.post(req); err != nil || status != 200 {
					b.Errorf("post: %d %v", status, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkIngestSentryGo sends exceptions from 16 concurrent sentry-go clients (each
// with a synchronous transport, so every op waits for its acknowledgement).
func BenchmarkIngestSentryGo(b *testing.B) {
	store := openTestStore(b, b.TempDir())
	defer store.Close()
	_, dsn := startIngest(b, store)
	hubs := make(chan *sentry.Hub, benchClients)
	for range benchClients {
		c, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Transport: sentry.NewHTTPSyncTransport(), Environment: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		hubs <- sentry.NewHub(c, sentry.NewScope())
	}
	var next atomic.Int64
	next.Store(int64(b.N))
	errBench := errors.New("bench failure")
	cost := meterCost(b, "self")
	b.ResetTimer()
	var wg sync.WaitGroup
	for range benchClients {
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
	diskKB, cpuUs := cost()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	ingestSummary(b, "16 real sentry-go clients (synchronous transport) in the benchmark's process", rate, diskKB, cpuUs)
	if n := store.eventCount(b); n != int64(b.N) {
		b.Fatalf("stored %d events, sent %d", n, b.N)
	}
}

// benchSpan is how far back the events of the bench store go.
const benchSpan = 10 * 24 * time.Hour

// benchEvent builds a stored-size-realistic event directly (no JSON parsing), so that
// a million of them are generated quickly: 1,000 issues, event times spread evenly
// over benchSpan before now.
func benchEvent(i, total int, now time.Time) *event.Event {
	issue := i % 1000
	envs := []string{"production", "staging", "development"}
	levels := []string{"error", "error", "error", "warning", "fatal"}
	e := &event.Event{
		ID: hexID(i), Project: fmt.Sprint(40 + issue%5), Timestamp: now.Add(-benchSpan + time.Duration(i)*(benchSpan/time.Duration(total))),
		Level: levels[issue%len(levels)], Platform: "go", Environment: envs[i%3], Release: fmt.Sprintf("shop@1.%d.0", i%10),
		ServerName: fmt.Sprintf("web-%d", i%8), Transaction: fmt.Sprintf("POST /api/v1/resource%d", issue%50),
		User: &event.User{ID: fmt.Sprintf("u-%d", i%5000)},
		Tags: []event.Pair{{Key: "tenant", Value: fmt.Sprintf("t%d", i%40)}, {Key: "region", Value: []string{"eu", "us", "ap"}[i%3]}},
		Exceptions: []event.Exception{{
			Type: fmt.Sprintf("*pkg%d.Error%d", issue%20, issue), Value: fmt.Sprintf("operation %d failed for item %d", issue, i),
			Frames: []event.Frame{
				{Function: "main", Module: "main", Filename: "main.go", Line: 20, InApp: true},
				{Function: "(*Server).ServeHTTP", Module: "net/http", Filename: "server.go", Line: 3100},
				{Function: fmt.Sprintf("handler%d", issue), Module: "shop/api", Filename: "api.go", Line: 100 + issue%300, InApp: true,
					Context: []event.ContextLine{{Line: 99, Code: "func handler() error {"}, {Line: 100, Code: "\treturn doThing()"}, {Line: 101, Code: "}"}}},
			},
		}},
		Breadcrumbs: []event.Breadcrumb{{Category: "http", Message: "GET /api/v1/items"}, {Category: "query", Message: "SELECT * FROM items WHERE id = $1"}},
	}
	return e
}

// benchStoreEvents is the size of the shared bench store: 1,000,000 events, or
// ERRORS_BENCH_EVENTS.
func benchStoreEvents() int {
	if n, err := strconv.Atoi(os.Getenv("ERRORS_BENCH_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// The bench store is built once per test binary (the benchmarks that need it share
// it, read-only) and removed by TestMain.
var benchStore struct {
	once sync.Once
	dir  string
	err  error
}

func removeBenchStore() {
	if benchStore.dir != "" {
		os.RemoveAll(benchStore.dir)
	}
}

// benchStoreDir returns the data directory of the shared bench store, building it on
// first use: benchStoreEvents() benchEvents, in batches of 5,000 from two producers
// (the ingest path, with its group commit). Skipped under -short.
func benchStoreDir(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("the bench store of a million events is not built under -short")
	}
	if dir := os.Getenv("ERRORS_BENCH_STORE"); dir != "" {
		return dir // a bench store built before (and kept: TestMain removes only its own)
	}
	benchStore.once.Do(func() {
		dir, err := os.MkdirTemp("", "errors-bench-store-")
		if err != nil {
			benchStore.err = err
			return
		}
		benchStore.dir = dir
		store, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger, MaxTotalBytes: -1, MaxAge: -1})
		if err != nil {
			benchStore.err = err
			return
		}
		defer store.Close()
		total := benchStoreEvents()
		now := time.Now()
		start := time.Now()
		const batch = 5_000
		var next atomic.Int64
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					from := int(next.Add(batch)) - batch
					if from >= total {
						return
					}
					events := make([]*event.Event, min(batch, total-from))
					for j := range events {
						events[j] = benchEvent(from+j, total, now)
					}
					if err := store.Ingest(context.Background(), events); err != nil {
						mu.Lock()
						benchStore.err = err
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		used, _ := usedBytes(context.Background(), store.db)
		fmt.Fprintf(os.Stderr, "bench store: %d events in 1,000 issues over %s, built in %s, %d MiB\n", total, benchSpan, time.Since(start).Round(time.Millisecond), used>>20)
	})
	if benchStore.err != nil {
		b.Fatal(benchStore.err)
	}
	return benchStore.dir
}

// reportP50 runs op b.N times and reports the median duration in milliseconds.
func reportP50(b *testing.B, op func()) {
	b.Helper()
	var durs []time.Duration
	for b.Loop() {
		t0 := time.Now()
		op()
		durs = append(durs, time.Since(t0))
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50_ms")
}

var searchBenchCases = []struct {
	name string
	in   backend.SearchIssuesInput
}{
	{"default", backend.SearchIssuesInput{}},
	{"freq_level_env", backend.SearchIssuesInput{Query: "is:unresolved level:error environment:production", Sort: "freq"}},
	{"free_text", backend.SearchIssuesInput{Query: "operation 42"}},
	{"tag_negation_window", backend.SearchIssuesInput{Query: "!region:eu tenant:t7", StatsPeriod: "24h", Sort: "user"}},
	{"window_6h", backend.SearchIssuesInput{StatsPeriod: "6h", Sort: "freq"}},
	{"page_3", backend.SearchIssuesInput{Sort: "new", Limit: 100}},
	{"stack_function", backend.SearchIssuesInput{Query: "stack.function:handler4*", StatsPeriod: "24h"}},
}

// BenchmarkGetIssueTimeline measures get_issue, its tag summary and its timeline
// (hourly and daily counts), on the bench store's most frequent issue, opened to read
// as beside a collector.
func BenchmarkGetIssueTimeline(b *testing.B) {
	dir := benchStoreDir(b)
	store, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	top, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Sort: "freq", Limit: 1})
	if err != nil || len(top.Issues) != 1 {
		b.Fatalf("the most frequent issue: %+v, %v", top, err)
	}
	in := backend.GetIssueInput{IssueID: top.Issues[0].ID}
	d, err := store.GetIssue(ctx, in)
	if err != nil || d.Timeline == nil || d.Timeline.Hours == nil {
		b.Fatalf("get_issue: %+v, %v", d, err)
	}
	b.ReportAllocs()
	reportP50(b, func() {
		if _, err := store.GetIssue(ctx, in); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSearchIssues measures search_issues over the bench store (1,000,000
// events in 1,000 issues), opened to read as an MCP server beside a collector does.
func BenchmarkSearchIssues(b *testing.B) {
	dir := benchStoreDir(b)
	store, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for _, q := range searchBenchCases {
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
			if _, err := store.SearchIssues(context.Background(), in); err != nil {
				b.Fatalf("%+v: %v", in, err)
			}
			b.ReportAllocs()
			reportP50(b, func() {
				if _, err := store.SearchIssues(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkOpenStore measures opening the bench store in this process and answering
// the first search_issues (the store keeps its indexes on disk: nothing is replayed).
func BenchmarkOpenStore(b *testing.B) {
	dir := benchStoreDir(b)
	for b.Loop() {
		s, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger, MaxTotalBytes: -1, MaxAge: -1})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := s.SearchIssues(context.Background(), backend.SearchIssuesInput{}); err != nil || len(res.Issues) == 0 {
			b.Fatalf("first search: %v", err)
		}
		s.Close()
	}
}

// BenchmarkFirstAnswer measures the time from starting an MCP server process (the
// built binary, on stdio) on the bench store to its first search_issues answer: what
// a host waits for when it starts the server.
func BenchmarkFirstAnswer(b *testing.B) {
	dir := benchStoreDir(b)
	bin := serverBinary(b)
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
		search     = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_issues","arguments":{}}}` + "\n"
	)
	for b.Loop() {
		cmd := exec.Command(bin, "--data", dir, "--ingest", "127.0.0.1:0", "--max-bytes", "0", "--max-age", "0")
		cmd.Env = processEnv()
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(stdin, initialize)
		r := bufio.NewReaderSize(stdout, 1<<20)
		if line, err := r.ReadBytes('\n'); err != nil || !bytes.Contains(line, []byte(`"id":1,"result"`)) {
			b.Fatalf("initialize: %s %v", line, err)
		}
		io.WriteString(stdin, search)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				b.Fatalf("no answer: %v", err)
			}
			if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":2,`)) {
				if !bytes.Contains(line, []byte(`"issues":[{`)) {
					b.Fatalf("first answer: %s", line)
				}
				break
			}
		}
		stdin.Close()
		cmd.Wait()
	}
}
