package event

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"
)

// The Sentry event protocol has grown over a decade of SDKs: the same field arrives as
// a string from one SDK and a number, an object or a list of pairs from another. These
// lenient types accept every shape seen in the protocol documentation instead of
// rejecting a whole event for one oddly typed field.

// FlexString accepts a string, number, boolean or null; an object or array becomes its
// compact JSON text.
type FlexString string

func (s *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
	case b[0] == '"' && len(b) >= 2 && b[len(b)-1] == '"' && plainJSONString(b[1:len(b)-1]):
		*s = FlexString(b[1 : len(b)-1]) // nothing to unescape: skip the decoder
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = FlexString(v)
	case b[0] == '{' || b[0] == '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*s = FlexString(buf.String())
	default:
		*s = FlexString(b)
	}
	return nil
}

// plainJSONString reports whether b, the inside of a JSON string, needs no decoding:
// no escapes, no control characters, valid UTF-8.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

// FlexInt accepts a number or a numeric string; anything else is 0.
type FlexInt int

func (n *FlexInt) UnmarshalJSON(b []byte) error {
	*n = FlexIntOf(string(b))
	return nil
}

// FlexIntOf is flexInt's rule on a value's raw JSON text (the fast decoder's way in).
func FlexIntOf(raw string) FlexInt {
	s := strings.Trim(strings.TrimSpace(raw), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < 1<<31 {
		return FlexInt(f)
	}
	return 0
}

// FlexBool accepts true/false, 1/0 and their string forms; nil when absent or unknown.
type FlexBool struct{ V *bool }

func (f *FlexBool) UnmarshalJSON(b []byte) error {
	*f = FlexBoolOf(string(b))
	return nil
}

// FlexBoolOf is flexBool's rule on a value's raw JSON text.
func FlexBoolOf(raw string) FlexBool {
	switch strings.Trim(strings.ToLower(strings.TrimSpace(raw)), `"`) {
	case "true", "1", "yes":
		t := true
		return FlexBool{&t}
	case "false", "0", "no":
		t := false
		return FlexBool{&t}
	}
	return FlexBool{}
}

// FlexTime accepts RFC 3339 (with or without zone) or Unix seconds as a number or string.
type FlexTime struct{ T time.Time }

func (f *FlexTime) UnmarshalJSON(b []byte) error {
	*f = FlexTimeOf(string(b))
	return nil
}

// FlexTimeOf is flexTime's rule on a value's raw JSON text.
func FlexTimeOf(raw string) FlexTime {
	s := strings.Trim(strings.TrimSpace(raw), `"`)
	if s == "" || s == "null" {
		return FlexTime{}
	}
	// A date has colons, which no number has: skip ParseFloat's error for it.
	if sec, err := parseFloatNoColon(s); err == nil {
		if sec > 0 && sec < 1e11 {
			whole, frac := math.Modf(sec)
			return FlexTime{time.Unix(int64(whole), int64(frac*1e9)).UTC()}
		}
		return FlexTime{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return FlexTime{t.UTC()}
		}
	}
	return FlexTime{}
}

// errHasColon stands for ParseFloat's error on text it cannot parse.
var errHasColon = errors.New("has a colon: not a number")

func parseFloatNoColon(s string) (float64, error) {
	if strings.IndexByte(s, ':') >= 0 {
		return 0, errHasColon
	}
	return strconv.ParseFloat(s, 64)
}

// FlexPairs accepts an object of string-ish values or a list of [key, value] pairs and
// keeps the order of a list (objects come out sorted by key).
type FlexPairs []Pair

func (p *FlexPairs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*p = nil
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		for _, raw := range list {
			var pair []FlexString
			if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
				*p = append(*p, Pair{Key: string(pair[0]), Value: string(pair[1])})
			}
		}
		return nil
	}
	var m map[string]FlexString
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range m {
		*p = append(*p, Pair{Key: k, Value: string(v)})
	}
	SortPairs(*p)
	return nil
}

// FlexValues accepts Sentry's two list encodings: {"values": [...]} and a bare [...].
type FlexValues[T any] []T

func (v *FlexValues[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*v = nil
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '[' {
		var list []T
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		*v = list
		return nil
	}
	var wrapped struct {
		Values []T `json:"values"`
	}
	if err := json.Unmarshal(b, &wrapped); err != nil {
		return err
	}
	*v = wrapped.Values
	return nil
}

type SDKBreadcrumb struct {
	Timestamp FlexTime       `json:"timestamp"`
	Type      FlexString     `json:"type"`
	Category  FlexString     `json:"category"`
	Level     FlexString     `json:"level"`
	Message   FlexString     `json:"message"`
	Data      map[string]any `json:"data"`
}
