//go:build linux

package errorserver

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"
)

// BenchmarkCollectorEnvelopes is BenchmarkIngestEnvelopes against the collector as it
// runs in production: the built binary with --ingest-only in its own process, the 16
// senders in this one. One op = one event acknowledged after its fsynced commit.
func BenchmarkCollectorEnvelopes(b *testing.B) {
	bodies, ids := errorstest.CaptureEnvelopes(b)
	dir := b.TempDir()
	p := startProcess(b, []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "off"}, dsnInLog, "")
	u, err := url.Parse(p.dsn)
	if err != nil {
		b.Fatal(err)
	}
	cost := meterCost(b, strconv.Itoa(p.cmd.Process.Pid))
	postEnvelopes(b, u.Host, "1", u.User.Username(), bodies, ids, int64(b.N)*1000) // ids unlike those of other benchmarks
	b.StopTimer()
	diskKB, cpuUs := cost()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	ingestSummary(b, "the collector process (mcp-server-errors --ingest-only), 16 HTTP clients posting sentry-go's envelopes", rate, diskKB, cpuUs)
}
