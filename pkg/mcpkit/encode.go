package mcpkit

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A tool result is most of what a server sends, and often large (a file's text, a
// query's rows). encoding/json validates and re-compacts the output of every
// json.Marshaler and json.RawMessage it meets, so a result whose structuredContent is
// already-encoded JSON and whose text block repeats it was scanned three times more
// than written. appendCallToolResult writes the common shapes directly; anything
// unusual falls back to encoding/json, so the output is the same JSON either way.

// encodedJSON is JSON that mcpkit itself produced with encoding/json, so it is known
// to be valid and compact and is written as is. It is a string so that a result's
// structuredContent and its text block share one immutable copy. It stays a
// json.Marshaler for every other encoder (a middleware that marshals a result, the
// in-memory client).
type encodedJSON string

// MarshalJSON returns the JSON unchanged.
func (e encodedJSON) MarshalJSON() ([]byte, error) {
	if e == "" {
		return []byte("null"), nil
	}
	return []byte(e), nil
}

// appendCallToolResult appends r as a JSON object.
func appendCallToolResult(dst []byte, r *CallToolResult) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	field := func(name string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
	}
	if r.ResultType != "" {
		field("resultType")
		dst = appendJSONString(dst, r.ResultType)
	}
	if len(r.Meta) > 0 {
		b, err := marshalNoEscape(r.Meta)
		if err != nil {
			return nil, err
		}
		field("_meta")
		dst = append(dst, b...)
	}
	if r.TTLMs != nil {
		field("ttlMs")
		dst = strconv.AppendInt(dst, *r.TTLMs, 10)
	}
	if r.CacheScope != "" {
		field("cacheScope")
		dst = appendJSONString(dst, r.CacheScope)
	}
	field("content")
	if r.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, c := range r.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			if isPlainText(c) {
				dst = append(dst, `{"type":"text","text":`...)
				dst = appendJSONString(dst, c.Text)
				dst = append(dst, '}')
				continue
			}
			b, err := marshalNoEscape(c)
			if err != nil {
				return nil, err
			}
			dst = append(dst, b...)
		}
		dst = append(dst, ']')
	}
	if r.StructuredContent != nil {
		field("structuredContent")
		if e, ok := r.StructuredContent.(encodedJSON); ok && len(e) > 0 {
			dst = append(dst, e...)
		} else {
			b, err := marshalNoEscape(r.StructuredContent)
			if err != nil {
				return nil, err
			}
			dst = append(dst, b...)
		}
	}
	if r.IsError {
		field("isError")
		dst = append(dst, "true"...)
	}
	return append(dst, '}'), nil
}

// encodedSizeHint estimates the encoded size of r, a little high, so that one
// allocation holds it: text grows by its escapes (a tenth is generous for text that
// is mostly JSON or prose).
func (r *CallToolResult) encodedSizeHint() int {
	n := 256
	for _, c := range r.Content {
		n += len(c.Text) + len(c.Text)/8 + len(c.Data) + 64
	}
	if e, ok := r.StructuredContent.(encodedJSON); ok {
		n += len(e)
	}
	return n
}

// isPlainText reports a text block with nothing but its text.
func isPlainText(c Content) bool {
	return c.Type == "text" && c.Data == "" && c.MIMEType == "" && c.Resource == nil && c.URI == "" &&
		c.Name == "" && c.Title == "" && c.Description == "" && c.Size == nil && c.Annotations == nil && len(c.Meta) == 0
}

// appendJSONString appends s as a JSON string, escaped as encoding/json does without
// HTML escaping: quotes, backslashes and control characters escaped, invalid UTF-8
// replaced by U+FFFD, and U+2028/U+2029 escaped for JavaScript readers.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

var _ json.Marshaler = encodedJSON("")
