package errorserver

import (
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/errors/internal/errorstest"
)

// BenchmarkParseEvent measures decoding and normalising one event as sentry-go sends
// it (a captured envelope's event item), and preparing it for the writer.
func BenchmarkParseEvent(b *testing.B) {
	bodies, _ := errorstest.CaptureEnvelopes(b)
	env, err := ingest.ParseEnvelope(bodies[0])
	if err != nil {
		b.Fatal(err)
	}
	payload := env.Items[0].Payload
	s := &LocalStore{cfg: LocalConfig{MaxAge: DefaultMaxAge}}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		e, err := ingest.ParseEvent(payload, "42", time.Now(), "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.prepare(e, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
