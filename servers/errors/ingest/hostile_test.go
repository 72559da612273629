package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hostileShape builds an envelope of about size bytes whose shape costs a JSON
// decoder the most per byte: the shapes of issue 26 (deep arrays, deep objects,
// long keys, many small values, a deep envelope header).
type hostileShape struct {
	name  string
	build func(size int) []byte
}

// hexID and envelopeOf are the root package's test helpers of the same names.
func hexID(n int) string { return fmt.Sprintf("%032x", n) }

func envelopeOf(eventID string, items ...[2]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"event_id":%q,"sent_at":"2026-01-01T00:00:00Z"}`+"\n", eventID)
	for _, it := range items {
		fmt.Fprintf(&b, `{"type":%q,"length":%d}`+"\n%s\n", it[0], len(it[1]), it[1])
	}
	return b.Bytes()
}

// deepEvent is an event whose extra nests depth levels of open/close.
func deepEvent(open, close string, depth int) string {
	return `{"event_id":"` + hexID(7) + `","message":"deep","extra":{"x":` + strings.Repeat(open, depth) + `1` + strings.Repeat(close, depth) + `}}`
}

var hostileShapes = []hostileShape{
	{"deep arrays", func(size int) []byte {
		return envelopeOf(hexID(7), [2]string{"event", deepEvent("[", "]", size/2)})
	}},
	{"deep objects", func(size int) []byte {
		return envelopeOf(hexID(7), [2]string{"event", deepEvent(`{"a":`, "}", size/6)})
	}},
	{"long keys", func(size int) []byte {
		var b strings.Builder
		b.WriteString(`{"event_id":"` + hexID(7) + `","message":"keys","extra":{`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%06d%s":1`, i, strings.Repeat("k", 4000))
		}
		b.WriteString("}}")
		return envelopeOf(hexID(7), [2]string{"event", b.String()})
	}},
	{"many small values", func(size int) []byte {
		return envelopeOf(hexID(7), [2]string{"event", `{"event_id":"` + hexID(7) + `","message":"many","extra":{"x":[` + strings.Repeat("1,", size/2) + `1]}}`})
	}},
	{"many small items", func(size int) []byte {
		var items [][2]string
		for n := 0; n*40 < size && len(items) < maxEnvelopeItems; n++ {
			items = append(items, [2]string{"session", `{"sid":"1"}`})
		}
		return envelopeOf(hexID(7), items...)
	}},
	{"deep envelope header", func(size int) []byte {
		return []byte(`{"event_id":"` + hexID(7) + `","x":` + strings.Repeat("[", size/2) + strings.Repeat("]", size/2) + "}\n")
	}},
}

// ingestBody is what the envelope endpoint does with a decoded body before the
// store: the envelope's framing, then every event item's payload.
func ingestBody(body []byte) error {
	env, err := ParseEnvelope(body)
	if err != nil {
		return err
	}
	for _, it := range env.Items {
		if it.Type == "event" {
			if _, err := ParseEvent(it.Payload, "1", time.Now(), ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkHostilePayloads reports, per shape of 40 KB (the size of issue 26's
// 20,000-level event), the decoding cost per KB of body (ns/KB); the worst of the
// shapes is the figure to watch: a cost that grows faster than the size lets one
// request hold a core.
func BenchmarkHostilePayloads(b *testing.B) {
	const size = 40 << 10
	for _, sh := range hostileShapes {
		body := sh.build(size)
		b.Run(sh.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				ingestBody(body)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(len(body))/1024), "ns/KB")
		})
	}
}
