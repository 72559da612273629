package ingest

import (
	"bytes"
	"fmt"

	"github.com/mcpkit/reference/servers/errors/event"
	json "github.com/segmentio/encoding/json"
)

// The envelope format (what SDKs POST to /api/<project>/envelope/):
//
//	{"event_id":"...","dsn":"...","sent_at":"..."}\n     envelope header
//	{"type":"event","length":1234}\n                     item header
//	<1234 bytes of payload>\n                            payload
//	{"type":"attachment","length":5,"filename":"a"}\n
//	hello\n
//	{"type":"session"}\n                                 no length: the payload
//	{"sid":"...","status":"ok"}\n                        runs to the next newline
//
// A length, when present, is authoritative (the payload may contain newlines); the
// newline after a payload is optional at the end.

const maxEnvelopeItems = 1000

type envelopeHeader struct {
	EventID event.FlexString `json:"event_id"`
	DSN     event.FlexString `json:"dsn"`
}

type envelopeItem struct {
	Type    string
	Payload []byte
}

type envelope struct {
	Header envelopeHeader
	Items  []envelopeItem
}

// ParseEnvelope splits body into its header and items. It checks framing only; item
// payloads are parsed by their consumers.
func ParseEnvelope(body []byte) (*envelope, error) {
	line, rest := cutLine(body)
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, fmt.Errorf("envelope is empty: expected a JSON header line then items")
	}
	env := &envelope{}
	if err := checkJSONBounds("the envelope header (first line)", line); err != nil {
		return nil, err
	}
	if err := decodeObject(line, &env.Header); err != nil {
		return nil, fmt.Errorf("envelope header (first line) is not a JSON object: %v", err)
	}
	for n := 1; ; n++ {
		for len(rest) > 0 && (rest[0] == '\n' || rest[0] == '\r') {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return env, nil
		}
		if n > maxEnvelopeItems {
			return nil, fmt.Errorf("envelope has more than %d items", maxEnvelopeItems)
		}
		line, rest = cutLine(rest)
		var h struct {
			Type   *string `json:"type"`
			Length *int64  `json:"length"`
		}
		if err := checkJSONBounds("header", line); err != nil {
			return nil, fmt.Errorf("item %d %v", n, err)
		}
		if err := decodeObject(line, &h); err != nil {
			return nil, fmt.Errorf("item %d header is not a JSON object: %v", n, err)
		}
		if h.Type == nil || *h.Type == "" {
			return nil, fmt.Errorf("item %d header has no type", n)
		}
		var payload []byte
		if h.Length != nil {
			if *h.Length < 0 || *h.Length > int64(len(rest)) {
				return nil, fmt.Errorf("item %d (%s) declares a length of %d bytes but %d bytes follow: the envelope is truncated", n, *h.Type, *h.Length, len(rest))
			}
			payload, rest = rest[:*h.Length], rest[*h.Length:]
			if len(rest) > 0 && rest[0] == '\r' {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				if rest[0] != '\n' {
					return nil, fmt.Errorf("item %d (%s): no newline after its %d-byte payload", n, *h.Type, *h.Length)
				}
				rest = rest[1:]
			}
		} else {
			payload, rest = cutLine(rest)
		}
		env.Items = append(env.Items, envelopeItem{Type: *h.Type, Payload: payload})
	}
}

// cutLine returns b up to the first newline (without it, and without a trailing \r)
// and what follows the newline.
func cutLine(b []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(b, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}

func decodeObject(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return fmt.Errorf("expected '{'")
	}
	return json.Unmarshal(b, v)
}
