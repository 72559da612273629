package ingest

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpkit/reference/servers/errors/event"
)

// The JSON reader of the fast event decoder (ingest_decode.go): strict JSON, but
// anything unusual makes it give up (bail) rather than decide, so that the reflective
// decoder, the reference for what a payload means, handles it.

// sdkDecoder reads one JSON text. Its methods panic with decodeBail on anything
// the fast path does not take; decodeSDKEvent recovers.
//
// Every string it returns points into one of two allocations: a copy of the payload
// (s), of which a string without escapes is a substring, and, made at the first
// escape, an arena the unescaped strings are written to. An unescaped string is never
// longer than its escaped text, so an arena as long as the rest of the payload does
// not fill (were it to, a string would get an array of its own). Bytes there are
// written once, before the string that views them is made, and never again: the
// strings are as immutable as any.
type sdkDecoder struct {
	s     string
	arena []byte
	i     int
	depth int
}

func newSDKDecoder(payload []byte) sdkDecoder {
	return sdkDecoder{s: string(payload)}
}

type decodeBail struct{}

// maxDecodeDepth bounds nesting; deeper payloads take the reflective decoder.
const maxDecodeDepth = 200

func (d *sdkDecoder) bail() { panic(decodeBail{}) }

// ws skips JSON whitespace.
func (d *sdkDecoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips whitespace and returns the next byte without consuming it.
func (d *sdkDecoder) next() byte {
	d.ws()
	if d.i >= len(d.s) {
		d.bail()
	}
	return d.s[d.i]
}

// enter consumes an object's or array's opening byte.
func (d *sdkDecoder) enter(open byte) {
	if d.next() != open {
		d.bail()
	}
	d.i++
	if d.depth++; d.depth > maxDecodeDepth {
		d.bail()
	}
}

// more reports whether the object or array has an n-th element (counting from 0),
// consuming the comma before it or the closing byte after the last.
func (d *sdkDecoder) more(close byte, n int) bool {
	c := d.next()
	if c == close {
		d.i++
		d.depth--
		return false
	}
	if n == 0 {
		return true
	}
	if c != ',' {
		d.bail()
	}
	d.i++
	return true
}

// key reads an object key and the colon after it.
func (d *sdkDecoder) key() string {
	if d.next() != '"' {
		d.bail()
	}
	k := d.str()
	if d.next() != ':' {
		d.bail()
	}
	d.i++
	return k
}

// unknown skips the value of a key that names no field of a struct whose (lower-case)
// json names fields gives. A key that matches one only case-insensitively would fill
// the field in the reflective decoder: bail.
func (d *sdkDecoder) unknown(k string, fields func() []string) {
	for j := 0; j < len(k); j++ {
		if c := k[j]; c >= 0x80 {
			d.bail()
		} else if 'A' <= c && c <= 'Z' {
			if slices.Contains(fields(), strings.ToLower(k)) {
				d.bail()
			}
			break
		}
	}
	d.skip()
}

// jsonFieldNames returns, computed at its first call, the json names of T's fields:
// the names unknown compares a key with.
func jsonFieldNames[T any]() func() []string {
	return sync.OnceValue(func() []string {
		t := reflect.TypeFor[T]()
		names := make([]string, t.NumField())
		for i := range names {
			names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
		}
		return names
	})
}

// valuesFields names flexValues' wrapper object's one field.
var valuesFields = func() []string { return []string{"values"} }

// once bails when a struct's field comes a second time (the reflective decoder
// merges some repeated fields; the fast path does not imitate that).
func (d *sdkDecoder) once(seen *uint32, field uint) {
	if *seen&(1<<field) != 0 {
		d.bail()
	}
	*seen |= 1 << field
}

// lit consumes the literal w (true, false, null).
func (d *sdkDecoder) lit(w string) {
	if !strings.HasPrefix(d.s[d.i:], w) {
		d.bail()
	}
	d.i += len(w)
}

// null consumes a null if one comes next.
func (d *sdkDecoder) null() bool {
	if d.next() == 'n' {
		d.lit("null")
		return true
	}
	return false
}

// str reads a string value (at its opening quote). A string without escapes is a
// substring of the payload copy; one with escapes is unescaped into a new string.
func (d *sdkDecoder) str() string {
	start := d.i + 1
	for i := event.PlainRun(d.s, start); i < len(d.s); {
		switch c := d.s[i]; {
		case c == '"':
			d.i = i + 1
			return d.s[start:i]
		case c == '\\':
			return d.strEscaped(start, i)
		case c < 0x20:
			d.bail()
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(d.s[i:])
			if r == utf8.RuneError && size == 1 {
				d.bail()
			}
			i = event.PlainRun(d.s, i+size)
		default:
			i++
		}
	}
	d.bail()
	return ""
}

// strEscaped finishes a string whose first escape is at i, unescaping it into the
// arena.
func (d *sdkDecoder) strEscaped(start, i int) string {
	if d.arena == nil {
		d.arena = make([]byte, 0, len(d.s)-start)
	}
	from := len(d.arena)
	buf := append(d.arena, d.s[start:i]...)
	for i < len(d.s) {
		if k := event.PlainRun(d.s, i); k > i {
			buf = append(buf, d.s[i:k]...)
			i = k
			continue
		}
		c := d.s[i]
		switch {
		case c == '"':
			d.i = i + 1
			if cap(buf) == cap(d.arena) {
				d.arena = buf
			} // else append moved buf to an array of its own (see sdkDecoder: it does not)
			return unsafe.String(&buf[from], len(buf)-from)
		case c == '\\':
			if i+1 >= len(d.s) {
				d.bail()
			}
			switch e := d.s[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r := d.hex4(i + 2)
				i += 6
				if utf16.IsSurrogate(r) {
					// Only a well-formed pair; anything else takes the reflective way.
					if r >= 0xDC00 || i+1 >= len(d.s) || d.s[i] != '\\' || d.s[i+1] != 'u' {
						d.bail()
					}
					r = utf16.DecodeRune(r, d.hex4(i+2))
					if r == utf8.RuneError {
						d.bail()
					}
					i += 6
				}
				buf = utf8.AppendRune(buf, r)
				continue
			default:
				d.bail()
			}
			i += 2
		case c < 0x20:
			d.bail()
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(d.s[i:])
			if r == utf8.RuneError && size == 1 {
				d.bail()
			}
			buf = append(buf, d.s[i:i+size]...)
			i += size
		default:
			buf = append(buf, c)
			i++
		}
	}
	d.bail()
	return ""
}

// hex4 reads the four hex digits of a \u escape at i.
func (d *sdkDecoder) hex4(i int) rune {
	if i+4 > len(d.s) {
		d.bail()
	}
	var r rune
	for _, c := range []byte(d.s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			d.bail()
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a number, strictly by the JSON grammar, and returns its text.
func (d *sdkDecoder) number() string {
	start := d.i
	i := d.i
	if i < len(d.s) && d.s[i] == '-' {
		i++
	}
	digits := func() {
		j := i
		for i < len(d.s) && '0' <= d.s[i] && d.s[i] <= '9' {
			i++
		}
		if i == j {
			d.bail()
		}
	}
	if i < len(d.s) && d.s[i] == '0' {
		i++
	} else {
		digits()
	}
	if i < len(d.s) && d.s[i] == '.' {
		i++
		digits()
	}
	if i < len(d.s) && (d.s[i] == 'e' || d.s[i] == 'E') {
		i++
		if i < len(d.s) && (d.s[i] == '+' || d.s[i] == '-') {
			i++
		}
		digits()
	}
	d.i = i
	return d.s[start:i]
}

// scalar reads a number, true, false or null and returns its text.
func (d *sdkDecoder) scalar() string {
	start := d.i
	switch c := d.next(); {
	case c == 't':
		d.lit("true")
	case c == 'f':
		d.lit("false")
	case c == 'n':
		d.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	default:
		d.bail()
	}
	return d.s[start:d.i]
}

// skip reads and validates any value.
func (d *sdkDecoder) skip() {
	switch d.next() {
	case '{':
		d.enter('{')
		for n := 0; d.more('}', n); n++ {
			d.key()
			d.skip()
		}
	case '[':
		d.enter('[')
		for n := 0; d.more(']', n); n++ {
			d.skip()
		}
	case '"':
		d.str()
	default:
		d.scalar()
	}
}

// raw reads any value and returns its text.
func (d *sdkDecoder) raw() string {
	d.ws()
	start := d.i
	d.skip()
	return d.s[start:d.i]
}

// value reads any value as the reflective decoder does into an any: objects as
// map[string]any, arrays as []any, numbers as float64.
func (d *sdkDecoder) value() any {
	switch d.next() {
	case '{':
		return d.object()
	case '[':
		d.enter('[')
		a := []any{}
		for n := 0; d.more(']', n); n++ {
			a = append(a, d.value())
		}
		return a
	case '"':
		return d.str()
	case 't':
		d.lit("true")
		return true
	case 'f':
		d.lit("false")
		return false
	case 'n':
		d.lit("null")
		return nil
	}
	f, err := strconv.ParseFloat(d.number(), 64)
	if err != nil {
		d.bail()
	}
	return f
}

// object reads an object (or null) as a map[string]any.
func (d *sdkDecoder) object() map[string]any {
	if d.null() {
		return nil
	}
	d.enter('{')
	m := map[string]any{}
	for n := 0; d.more('}', n); n++ {
		k := d.key()
		m[k] = d.value()
	}
	return m
}

// flexString reads a value by flexString's rule.
func (d *sdkDecoder) flexString() event.FlexString {
	switch d.next() {
	case '"':
		return event.FlexString(d.str())
	case '{', '[':
		var s event.FlexString
		if s.UnmarshalJSON([]byte(d.raw())) != nil {
			d.bail()
		}
		return s
	case 'n':
		d.lit("null")
		return ""
	}
	return event.FlexString(d.scalar())
}

// flexStrings reads a list of flexStrings (or null).
func (d *sdkDecoder) flexStrings() []event.FlexString {
	if d.null() {
		return nil
	}
	d.enter('[')
	var out []event.FlexString
	for n := 0; d.more(']', n); n++ {
		if out == nil {
			out = make([]event.FlexString, 0, 8) // source context: usually 5 lines
		}
		out = append(out, d.flexString())
	}
	return out
}

// pairs reads a value by flexPairs' rule.
func (d *sdkDecoder) pairs() event.FlexPairs {
	switch d.next() {
	case 'n':
		d.lit("null")
		return nil
	case '[':
		d.enter('[')
		var out event.FlexPairs
		for n := 0; d.more(']', n); n++ {
			if d.next() != '[' {
				d.skip() // not a pair: ignored
				continue
			}
			d.enter('[')
			var kv [2]event.FlexString
			k := 0
			for ; d.more(']', k); k++ {
				s := d.flexString()
				if k < 2 {
					kv[k] = s
				}
			}
			if k == 2 {
				out = append(out, event.Pair{Key: string(kv[0]), Value: string(kv[1])})
			}
		}
		return out
	case '{':
		d.enter('{')
		var out event.FlexPairs
		for n := 0; d.more('}', n); n++ {
			k := d.key()
			out = append(out, event.Pair{Key: k, Value: string(d.flexString())})
		}
		event.SortPairs(out)
		for i := 1; i < len(out); i++ {
			if out[i].Key == out[i-1].Key {
				d.bail() // a repeated key: the reflective decoder keeps the last
			}
		}
		return out
	}
	d.bail()
	return nil
}

// values reads a value by flexValues' rule: {"values": [...]}, [...] or null.
func values[T any](d *sdkDecoder, elem func(*sdkDecoder, *T)) []T {
	switch d.next() {
	case 'n':
		d.lit("null")
		return nil
	case '[':
		return list(d, elem)
	case '{':
		d.enter('{')
		var out []T
		var seen uint32
		for n := 0; d.more('}', n); n++ {
			if k := d.key(); k == "values" {
				d.once(&seen, 0)
				out = list(d, elem)
			} else {
				d.unknown(k, valuesFields)
			}
		}
		return out
	}
	d.bail()
	return nil
}

// list reads an array of objects (or null); a null element is a zero element.
func list[T any](d *sdkDecoder, elem func(*sdkDecoder, *T)) []T {
	if d.null() {
		return nil
	}
	d.enter('[')
	var out []T
	for n := 0; d.more(']', n); n++ {
		if out == nil {
			out = make([]T, 0, 4)
		}
		var v T
		if !d.null() {
			elem(d, &v)
		}
		out = append(out, v)
	}
	return out
}

// ptr reads an object into a new T, or null as nil.
func ptr[T any](d *sdkDecoder, elem func(*sdkDecoder, *T)) *T {
	if d.null() {
		return nil
	}
	v := new(T)
	elem(d, v)
	return v
}
