package postgres

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Values arrive in PostgreSQL's text format (see pipeline.bind) and are turned into
// JSON-safe Go values here. The rules, per type:
//
//   - bool: true/false
//   - int2, int4, oid: JSON numbers
//   - int8: a JSON number when |v| <= 2^53-1, otherwise a decimal string, so that no
//     JSON parser (JavaScript's included) silently rounds it
//   - float4, float8: JSON numbers; NaN, Infinity and -Infinity as strings
//   - numeric, money: strings, exactly as PostgreSQL prints them (no precision loss)
//   - json, jsonb: embedded as JSON
//   - bytea: base64 (a []byte, which encoding/json writes as base64)
//   - timestamptz: RFC 3339 with offset ("2024-01-02T03:04:05.5+01:00", "…Z" for UTC)
//   - timestamp: RFC 3339 without offset ("2024-01-02T03:04:05"): the value has no time zone
//   - date: YYYY-MM-DD; time, timetz, interval, uuid, inet, cidr, macaddr: PostgreSQL's text
//   - infinity, -infinity and BC dates: PostgreSQL's text, since RFC 3339 cannot say them
//   - arrays: JSON arrays (nested for several dimensions) of the element type's values
//   - everything else (text, enums, ranges, composites, extension types): strings
//
// Output formats are pinned per call with SET LOCAL (DateStyle ISO, bytea_output hex,
// extra_float_digits 1). A value that does not look as expected is returned as its raw
// text rather than guessed at.

// maxSafeInt is the largest integer a float64 (and so JavaScript) holds exactly.
const maxSafeInt = 1<<53 - 1

// decoder turns one non-NULL text value into a JSON-safe value.
type decoder func(raw []byte) any

// typeInfo is what the server needs to know about a result column's type.
type typeInfo struct {
	name    string
	decode  decoder
	isArray bool
}

// builtinTypes covers the types pgx knows, keyed by OID: names, and decoders for
// arrays of them. Built on the first result decoded, not at start: pgx's type map and
// its walk over ten thousand OIDs were most of the server's package initialisation.
var builtinTypes = sync.OnceValue(func() map[uint32]typeInfo {
	m := pgtype.NewMap()
	out := make(map[uint32]typeInfo)
	for oid := uint32(1); oid < 10000; oid++ {
		t, ok := m.TypeForOID(oid)
		if !ok {
			continue
		}
		if ac, ok := t.Codec.(*pgtype.ArrayCodec); ok && ac.ElementType != nil {
			delim := ac.Delimiter
			if delim == 0 {
				delim = ','
			}
			out[oid] = typeInfo{name: ac.ElementType.Name + "[]", decode: arrayDecoder(scalarDecoder(ac.ElementType.OID), delim), isArray: true}
			continue
		}
		out[oid] = typeInfo{name: t.Name, decode: scalarDecoder(oid)}
	}
	return out
})

// scalarDecoder picks the decoder for a non-array type.
func scalarDecoder(oid uint32) decoder {
	switch oid {
	case pgtype.BoolOID:
		return decodeBool
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.OIDOID, pgtype.XIDOID, pgtype.CIDOID:
		return decodeNumber
	case pgtype.Int8OID, pgtype.XID8OID:
		return decodeInt8
	case pgtype.Float4OID, pgtype.Float8OID:
		return decodeFloat
	case pgtype.JSONOID, pgtype.JSONBOID:
		return decodeJSON
	case pgtype.ByteaOID:
		return decodeBytea
	case pgtype.TimestampOID:
		return decodeTimestamp
	case pgtype.TimestamptzOID:
		return decodeTimestamptz
	default:
		return decodeString
	}
}

func decodeString(raw []byte) any { return string(raw) }

func decodeBool(raw []byte) any {
	switch string(raw) {
	case "t":
		return true
	case "f":
		return false
	}
	return string(raw)
}

func decodeNumber(raw []byte) any {
	if !isInteger(raw) {
		return string(raw)
	}
	return json.Number(raw)
}

func decodeInt8(raw []byte) any {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return string(raw)
	}
	if n > maxSafeInt || n < -maxSafeInt {
		return string(raw)
	}
	return json.Number(raw)
}

func decodeFloat(raw []byte) any {
	s := string(raw)
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return s
	}
	return json.Number(s)
}

func decodeJSON(raw []byte) any {
	if !json.Valid(raw) {
		return string(raw)
	}
	return json.RawMessage(bytes.Clone(raw))
}

func decodeBytea(raw []byte) any {
	if len(raw) < 2 || raw[0] != '\\' || raw[1] != 'x' {
		return string(raw) // not hex output: leave it as PostgreSQL printed it
	}
	b := make([]byte, hex.DecodedLen(len(raw)-2))
	if _, err := hex.Decode(b, raw[2:]); err != nil {
		return string(raw)
	}
	return b
}

// decodeTimestamp turns "2024-01-02 03:04:05.123456" into "2024-01-02T03:04:05.123456".
func decodeTimestamp(raw []byte) any {
	s := string(raw)
	if !isISODateTime(s) {
		return s
	}
	return s[:10] + "T" + s[11:]
}

// decodeTimestamptz turns "2024-01-02 03:04:05.5+01" into "2024-01-02T03:04:05.5+01:00",
// and a UTC offset into "Z".
func decodeTimestamptz(raw []byte) any {
	s := string(raw)
	if !isISODateTime(s) {
		return s
	}
	i := 19
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i >= len(s) || (s[i] != '+' && s[i] != '-') {
		return s
	}
	clock, off := s[11:i], s[i:]
	switch len(off) {
	case 3: // +HH
		off += ":00"
	case 6: // +HH:MM
	case 9: // +HH:MM:SS, a historical local mean time: RFC 3339 has no seconds, use UTC
		t, err := time.Parse("2006-01-02 15:04:05.999999999-07:00:00", s)
		if err != nil {
			return s
		}
		return t.UTC().Format("2006-01-02T15:04:05.999999999Z")
	default:
		return s
	}
	if off == "+00:00" || off == "-00:00" {
		off = "Z"
	}
	return s[:10] + "T" + clock + off
}

// isISODateTime checks the "YYYY-MM-DD HH:MM:SS" prefix of ISO DateStyle output, for
// a four-digit AD year.
func isISODateTime(s string) bool {
	if len(s) < 19 || strings.HasSuffix(s, " BC") {
		return false
	}
	for i := 0; i < 19; i++ {
		c := s[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != ' ' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

func isInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// arrayDecoder decodes PostgreSQL array text ("{1,2,NULL}", "{{1,2},{3,4}}",
// "[0:1]={1,2}") into nested []any, decoding each element with elem.
func arrayDecoder(elem decoder, delim byte) decoder {
	return func(raw []byte) any {
		v, ok := parseArray(raw, elem, delim)
		if !ok {
			return string(raw)
		}
		return v
	}
}

func parseArray(raw []byte, elem decoder, delim byte) (any, bool) {
	s := raw
	if len(s) > 0 && s[0] == '[' { // explicit bounds: "[0:1]={...}"
		eq := bytes.IndexByte(s, '=')
		if eq < 0 {
			return nil, false
		}
		s = s[eq+1:]
	}
	p := arrayParser{s: s, elem: elem, delim: delim}
	v, ok := p.level()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return v, true
}

type arrayParser struct {
	s     []byte
	i     int
	elem  decoder
	delim byte
}

func (p *arrayParser) level() ([]any, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	out := []any{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, true
	}
	for {
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case '{':
			sub, ok := p.level()
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		case '"':
			str, ok := p.quoted()
			if !ok {
				return nil, false
			}
			out = append(out, p.elem(str))
		default:
			start := p.i
			for p.i < len(p.s) && p.s[p.i] != p.delim && p.s[p.i] != '}' {
				p.i++
			}
			tok := bytes.TrimSpace(p.s[start:p.i])
			if strings.EqualFold(string(tok), "NULL") {
				out = append(out, nil)
			} else {
				out = append(out, p.elem(tok))
			}
		}
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case p.delim:
			p.i++
		case '}':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
}

// quoted reads a double-quoted array element with backslash escapes.
func (p *arrayParser) quoted() ([]byte, bool) {
	p.i++ // opening quote
	var b []byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '\\':
			if p.i+1 >= len(p.s) {
				return nil, false
			}
			b = append(b, p.s[p.i+1])
			p.i += 2
		case '"':
			p.i++
			if b == nil {
				b = []byte{}
			}
			return b, true
		default:
			b = append(b, c)
			p.i++
		}
	}
	return nil, false
}
