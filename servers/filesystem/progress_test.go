package filesystem

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// bigTree writes n small files in directories of 1000; the last one holds needle.
func bigTree(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		body := "nothing to see here\n"
		if i == n-1 {
			body = "the needle is here\n"
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// progressRecorder collects the progress a Go SDK client receives.
type progressRecorder struct {
	mu     sync.Mutex
	values []float64
	totals []float64
	first  chan struct{}
	once   sync.Once
}

func (p *progressRecorder) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.values = append(p.values, req.Params.Progress)
	p.totals = append(p.totals, req.Params.Total)
	p.mu.Unlock()
	p.once.Do(func() { close(p.first) })
}

// TestProgressAndCancelOverALargeTree (issue 14): the Go SDK client (v1.8.0) asks
// search_file_contents over 50,000 files with a progress token and receives
// monotonically increasing progress (entries searched of entries found so far) at a
// bounded rate; cancelling mid-way stops the walk. The time from the client's
// cancellation to the handler's return is measured and logged; it is asserted only
// against a generous bound, since the machine may be loaded.
func TestProgressAndCancelOverALargeTree(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,000 files")
	}
	const files = 50_000
	dir := bigTree(t, files)
	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125} {
		t.Run(rev, func(t *testing.T) {
			s := newServerOn(t, Config{}, dir)
			var mu sync.Mutex
			var ended time.Time
			s.Observe(func(ctx context.Context, req *mcpkit.Request, resp mcpkit.Response) {
				if req.Method == "tools/call" {
					mu.Lock()
					ended = time.Now()
					mu.Unlock()
				}
			})
			srv := httptest.NewServer(s.HTTPHandler(nil))
			defer srv.Close()
			rec := &progressRecorder{first: make(chan struct{})}
			client := mcp.NewClient(&mcp.Implementation{Name: "fs-progress-test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: rec.handler})
			cs := realclient.GoSDKConnect(t, client, realclient.Target{URL: srv.URL}, rev)

			// The whole search, with progress.
			params := &mcp.CallToolParams{Name: "search_file_contents", Arguments: map[string]any{"pattern": "needle"}}
			params.SetProgressToken("search-1")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("search_file_contents: %v %+v", err, res)
			}
			took := time.Since(start)
			// The client hands notifications to its handler on its own goroutine: the
			// last ones may still be on their way when the result is returned.
			for wait := time.Now().Add(2 * time.Second); time.Now().Before(wait); time.Sleep(5 * time.Millisecond) {
				rec.mu.Lock()
				n := len(rec.values)
				last := 0.0
				if n > 0 {
					last = rec.values[n-1]
				}
				rec.mu.Unlock()
				if last == files+files/1000 {
					break
				}
			}
			if txt := realclient.GoSDKText(res); !strings.Contains(txt, `"filesSearched":50000`) || !strings.Contains(txt, "the needle is here") {
				t.Fatalf("search result: %.300s", txt)
			}
			rec.mu.Lock()
			values, totals := append([]float64(nil), rec.values...), append([]float64(nil), rec.totals...)
			rec.mu.Unlock()
			if len(values) < 2 {
				t.Fatalf("only %d progress notifications in %v", len(values), took)
			}
			for i := 1; i < len(values); i++ {
				if values[i] <= values[i-1] {
					t.Fatalf("progress not increasing at %d: %v", i, values)
				}
			}
			for i, v := range values {
				if totals[i] < v {
					t.Fatalf("progress %v above its total %v", v, totals[i])
				}
			}
			if last := values[len(values)-1]; last != files+files/1000 {
				t.Errorf("last progress %v, want every entry (%d)", last, files+files/1000)
			}
			if rate := float64(len(values)) / took.Seconds(); rate > 15 {
				t.Errorf("%d progress notifications in %v: more than the bounded rate (10/s)", len(values), took)
			}
			t.Logf("%s: search of %d files took %v with %d progress notifications, from %v/%v to %v/%v",
				rev, files, took.Round(time.Millisecond), len(values), values[0], totals[0], values[len(values)-1], totals[len(totals)-1])

			// Cancelled mid-way: the walk stops.
			rec2 := &progressRecorder{first: make(chan struct{})}
			client2 := mcp.NewClient(&mcp.Implementation{Name: "fs-cancel-test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: rec2.handler})
			cs2 := realclient.GoSDKConnect(t, client2, realclient.Target{URL: srv.URL}, rev)
			cctx, ccancel := context.WithCancel(context.Background())
			params = &mcp.CallToolParams{Name: "search_file_contents", Arguments: map[string]any{"pattern": "needle"}}
			params.SetProgressToken("search-2")
			errc := make(chan error, 1)
			go func() {
				_, err := cs2.CallTool(cctx, params)
				errc <- err
			}()
			select {
			case <-rec2.first:
			case <-time.After(30 * time.Second):
				t.Fatal("no progress before cancelling")
			}
			mu.Lock()
			ended = time.Time{}
			mu.Unlock()
			cancelled := time.Now()
			ccancel()
			if err := <-errc; err == nil {
				t.Fatal("the cancelled call returned a result")
			}
			deadline := time.Now().Add(5 * time.Second)
			var stopped time.Time
			for time.Now().Before(deadline) {
				mu.Lock()
				stopped = ended
				mu.Unlock()
				if !stopped.IsZero() {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if stopped.IsZero() {
				t.Fatal("the search did not stop within 5 s of the cancellation")
			}
			lag := stopped.Sub(cancelled)
			t.Logf("%s: cancelled after %d progress notifications; the walk stopped %v after the client cancelled (goal: 100 ms)", rev, len(rec2.values), lag.Round(time.Microsecond))
			if lag > time.Second {
				t.Errorf("the walk stopped %v after the cancellation; want well under a second", lag)
			}
		})
	}
}
