package ingest

import "fmt"

// Bounds on the shape of every JSON text the ingest endpoint decodes (the envelope
// header, each item header, each event payload and the store endpoint's body),
// checked in one pass before any decoder sees the text.
//
// The reflective decoder the fast one hands unusual input to takes time that grows
// with the square of the nesting (a 40 KB event of 20,000 nested arrays held a core
// for seconds, issue 26), and the fast decoder itself recurses once per level. SDKs
// never nest deep: sentry-python cuts its data at depth 10, the JavaScript SDKs at
// normalizeDepth (3 by default), and Sentry's Relay parses with serde_json, whose
// default recursion limit is 128. The store keeps five levels of extra data anyway
// (ingestMaxDepth). So past 128 levels a text is refused with 400, in time linear
// in its size, before any decoding.
//
// The value count bounds what one text can make the decoders allocate: an event
// the store keeps is far smaller (100 keys or items per level, 5 levels), and
// 100,000 values is more than any SDK sends in the 1 MiB Sentry takes per event.
const (
	ingestMaxNesting = 128
	ingestMaxValues  = 100_000
)

// checkJSONBounds reports, for a JSON text of what (such as "event payload"), a
// nesting deeper than ingestMaxNesting or more than ingestMaxValues values (counted
// as containers plus the commas between members and elements: one per value but
// the first of each container), in one pass over b and without allocating. It does
// not check syntax: the decoders do, within the bounds.
func checkJSONBounds(what string, b []byte) error {
	depth, values := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipJSONString(b, i+1)
		case '{', '[':
			if depth++; depth > ingestMaxNesting {
				return fmt.Errorf("%s nests deeper than %d levels (at byte %d): the store takes at most %d levels of arrays and objects (SDKs send far fewer; send the data flatter)", what, ingestMaxNesting, i, ingestMaxNesting)
			}
			values++
		case '}', ']':
			depth--
		case ',':
			values++
		}
		if values > ingestMaxValues {
			return fmt.Errorf("%s has more than %d values (at byte %d): the store takes at most %d arrays, objects and elements in one JSON text (send fewer; it keeps at most 100 per level anyway)", what, ingestMaxValues, i, ingestMaxValues)
		}
	}
	return nil
}

// skipJSONString returns the index of the quote that closes the string starting at
// b[i] (after its opening quote), or len(b) when it is not closed.
func skipJSONString(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}
