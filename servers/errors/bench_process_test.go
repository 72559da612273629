//go:build linux

package errorserver

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkCollectorEnvelopes is BenchmarkIngestEnvelopes against the collector as it
// runs in production: the built binary with --ingest-only in its own process, the 16
// senders in this one. One op = one event acknowledged after its fsynced commit.
func BenchmarkCollectorEnvelopes(b *testing.B) {
	bodies, ids := captureEnvelopes(b)
	dir := b.TempDir()
	p := startProcess(b, []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "off"}, dsnInLog, "")
	u, err := url.Parse(p.dsn)
	if err != nil {
		b.Fatal(err)
	}
	key, addr := u.User.Username(), u.Host
	requests := make([][]byte, len(bodies))
	for i, body := range bodies {
		requests[i] = append(fmt.Appendf(nil, "POST /api/1/envelope/ HTTP/1.1\r\nHost: %s\r\nX-Sentry-Auth: Sentry sentry_version=7, sentry_key=%s\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: %d\r\n\r\n", addr, key, len(body)), body...)
	}
	var seq, next atomic.Int64
	seq.Store(int64(b.N) * 1000) // ids unlike those of other benchmarks
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
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
