package mcpkit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// The fast path of decodeMessage and envelope: a message is checked for validity once
// (json.Valid), then split into its members by a plain byte walk, instead of being
// decoded by reflection and its params scanned and decoded a second and third time.
// On a stdio tools/call that was a fifth of the server's CPU. It takes only what it can
// decode exactly as encoding/json would, and hands everything else (escaped or
// differently-cased keys, an "error" member, a null or invalid id, values of the wrong
// type) back to the slow path, which produces the same result or the same error.

// messageKeys are the members of message, by their exact json names.
var messageKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// decodeMessageFast decodes data (a JSON object, trimmed) like json.Unmarshal into a
// message; ok is false when the slow path must decide.
func decodeMessageFast(data []byte, m *message) (ok bool) {
	if !json.Valid(data) {
		return false
	}
	return splitObject(data, func(key, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			s, ok := plainString(value)
			m.JSONRPC = s
			return ok
		case "method":
			s, ok := plainString(value)
			m.Method = s
			return ok
		case "id":
			return value[0] != 'n' && m.ID.UnmarshalJSON(value) == nil
		case "params":
			m.Params = append(json.RawMessage(nil), value...)
		case "result":
			m.Result = append(json.RawMessage(nil), value...)
		case "error":
			return false
		default:
			return !foldsTo(key, messageKeys)
		}
		return true
	})
}

// envelopeFields maps paramsEnvelope's json names to field indexes; nil when a field
// is not a json.RawMessage (then envelope always takes the slow path).
var envelopeFields = func() map[string]int {
	t := reflect.TypeFor[paramsEnvelope]()
	raw := reflect.TypeFor[json.RawMessage]()
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type != raw || name == "" || name == "-" {
			return nil
		}
		fields[name] = i
	}
	return fields
}()

var envelopeKeys = func() []string {
	var keys []string
	for k := range envelopeFields {
		keys = append(keys, k)
	}
	return keys
}()

// envelopeFast splits m's params into a paramsEnvelope like json.Unmarshal would; ok is
// false when the slow path must decide.
func (m *message) envelopeFast() (e *paramsEnvelope, ok bool) {
	params := m.Params
	if !m.paramsValid || envelopeFields == nil || len(params) == 0 || params[0] != '{' {
		return nil, false
	}
	e = &paramsEnvelope{}
	v := reflect.ValueOf(e).Elem()
	ok = splitObject(params, func(key, value []byte) bool {
		i, known := envelopeFields[string(key)]
		if !known {
			return !foldsTo(key, envelopeKeys)
		}
		v.Field(i).SetBytes(value[:len(value):len(value)]) // shares params, which no one changes
		return true
	})
	return e, ok
}

// foldsTo reports whether key matches one of names only case-insensitively, which
// encoding/json would accept and this fast path does not decide.
func foldsTo(key []byte, names []string) bool {
	for _, n := range names {
		if len(key) == len(n) && strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}

// splitObject calls fn with each member of the JSON object data, which must be valid
// JSON: the key without its quotes and the value's bytes. It stops, returning false,
// when fn does or when a key holds an escape (or data is not an object).
func splitObject(data []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := skipString(data, i)
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend := skipValue(data, i)
		if vend <= i || !fn(key, data[i:vend]) {
			return false
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i] (a quote).
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	default: // number, true, false, null
		for ; i < len(data); i++ {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
		}
		return len(data)
	}
}
