package mcpkit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sync"
)

// A message over the size limit is not decoded, but its caller still deserves an
// answer under its own id, or its call would wait forever. Clients write "id" either
// before the params (the Go SDK: {"jsonrpc","id","method","params"}) or after them (the
// TypeScript SDK: {"method","params","jsonrpc","id"}), so the id is looked for in the
// first and in the last bytes of the message, never by decoding the whole of it.

// oversizedKeep is how many bytes of each end of an oversized message are kept.
const oversizedKeep = 4 << 10

// oversizedID finds the top-level id of a message from its first bytes (head) and, on
// stdio, its last bytes (tail). It reports the zero ID when neither shows one for sure.
func oversizedID(head, tail []byte) ID {
	if id, ok := idFromHead(head); ok {
		return id
	}
	if id, ok := idFromTail(tail); ok {
		return id
	}
	return ID{}
}

// idFromHead reads the message's top-level members in order until "id" or the end of
// what was kept: a member whose value runs past the kept bytes ends the search.
func idFromHead(head []byte) (ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ID{}, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ID{}, false
		}
		if key == "id" {
			var id ID
			if id.UnmarshalJSON(raw) != nil {
				return ID{}, false
			}
			return id, true
		}
	}
	return ID{}, false
}

// tailID matches an id that is the last member of the top-level object: its value is
// followed by the object's one closing brace and nothing else, so an "id" inside the
// params (followed by at least two braces) or inside a string (escaped quotes) cannot
// match. Compiled on first use (an oversized message), not at every start.
var tailID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[{,]\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)
})

func idFromTail(tail []byte) (ID, bool) {
	m := tailID().FindSubmatch(tail)
	if m == nil {
		return ID{}, false
	}
	var id ID
	if id.UnmarshalJSON(m[1]) != nil {
		return ID{}, false
	}
	return id, true
}

// tooLarge is the error for a message over the size limit.
func tooLarge(limit int) *Error {
	return Errorf(CodeInvalidRequest, "message too large: the limit is %d bytes (a tool argument, such as a file's content, must fit in it JSON-escaped)", limit)
}
