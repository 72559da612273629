package errorserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ingest's bounds on a JSON text (ingest/depth.go), which the answers below name.
const (
	ingestMaxNesting = 128
	ingestMaxValues  = 100_000
)

// deepEvent is an event whose extra nests depth levels of open/close.
func deepEvent(open, close string, depth int) string {
	return `{"event_id":"` + hexID(7) + `","message":"deep","extra":{"x":` + strings.Repeat(open, depth) + `1` + strings.Repeat(close, depth) + `}}`
}

// TestIngestRefusesDeepNesting posts payloads nested 1,000, 10,000 and 100,000 levels
// deep, in every place an envelope holds JSON, and asserts each is refused with 400
// naming the limit it crossed (the time it takes is BenchmarkHostilePayloads' and
// FuzzIngestCostIsLinear's to judge); the deepest nesting the store takes is stored.
func TestIngestRefusesDeepNesting(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	srv, _ := startIngest(t, store)
	envURL := srv.URL + "/api/42/envelope/"
	storeURL := srv.URL + "/api/42/store/"
	for _, depth := range []int{1_000, 10_000, 100_000} {
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		objects := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		cases := []struct {
			name, url string
			body      []byte
			want      string
		}{
			{"event extra, arrays", envURL, envelopeOf(hexID(1), [2]string{"event", deepEvent("[", "]", depth)}), "item 1 (event): the event payload nests deeper than 128 levels"},
			{"event extra, objects", envURL, envelopeOf(hexID(1), [2]string{"event", deepEvent(`{"a":`, "}", depth)}), "item 1 (event): the event payload nests deeper than 128 levels"},
			{"event, a field the store reads", envURL, envelopeOf(hexID(1), [2]string{"event", `{"user":{"id":` + objects + `}}`}), "the event payload nests deeper than 128 levels"},
			{"envelope header", envURL, []byte(`{"event_id":"` + hexID(1) + `","x":` + arrays + "}\n"), "the envelope header (first line) nests deeper than 128 levels"},
			{"item header", envURL, []byte("{}\n" + `{"type":"event","x":` + objects + "}\n{}\n"), "item 1 header nests deeper than 128 levels"},
			{"item that is skipped, header", envURL, []byte("{}\n" + `{"type":"session","x":` + arrays + "}\n{}\n"), "item 1 header nests deeper than 128 levels"},
			{"store endpoint", storeURL, []byte(deepEvent("[", "]", depth)), "the event payload nests deeper than 128 levels"},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%d levels, %s", depth, c.name), func(t *testing.T) {
				code, body := postEnvelope(t, c.url, c.body, nil)
				if code != http.StatusBadRequest || !strings.Contains(body, c.want) {
					t.Errorf("%d %.300s, want 400 with %q", code, body, c.want)
				}
			})
		}
	}
	t.Run("too many values", func(t *testing.T) {
		ev := `{"event_id":"` + hexID(2) + `","extra":{"x":[` + strings.Repeat("1,", ingestMaxValues) + `1]}}`
		code, body := postEnvelope(t, envURL, envelopeOf(hexID(2), [2]string{"event", ev}), nil)
		if want := "has more than 100000 values"; code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("%d %.300s, want 400 with %q", code, body, want)
		}
	})
	t.Run("the deepest nesting taken is stored", func(t *testing.T) {
		// event { extra { x: 126 arrays } }: 128 levels in all.
		ev := deepEvent("[", "]", ingestMaxNesting-2)
		code, body := postEnvelope(t, envURL, envelopeOf(hexID(7), [2]string{"event", ev}), nil)
		if code != http.StatusOK {
			t.Fatalf("%d levels: %d %s, want 200", ingestMaxNesting, code, body)
		}
		if code, body := postEnvelope(t, envURL, envelopeOf(hexID(8), [2]string{"event", deepEvent("[", "]", ingestMaxNesting-1)}), nil); code != http.StatusBadRequest {
			t.Errorf("%d levels: %d %s, want 400", ingestMaxNesting+1, code, body)
		}
		if !allEventIDs(t, store)[hexID(7)] || len(allEventIDs(t, store)) != 1 {
			t.Errorf("stored %v, want only %s", allEventIDs(t, store), hexID(7))
		}
	})
}
