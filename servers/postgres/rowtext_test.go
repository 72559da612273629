package postgres

import (
	"encoding/json"
	"testing"
)

// TestShowHiddenJSON: hidden characters in the strings of a JSON value (raw or as
// \uXXXX escapes, surrogate pairs included) become visible \u{…} text; escaped
// backslashes, visible escapes and everything outside strings stay byte for byte.
func TestShowHiddenJSON(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{`{"a": 1.50, "b": [true, null]}`, `{"a": 1.50, "b": [true, null]}`, 0},
		{"{\"k\u200bey\": \"v\"}", `{"k\\u{200B}ey": "v"}`, 1},
		{`["\u202e", "\u00e9", "\\u202e", "\n\t"]`, `["\\u{202E}", "\u00e9", "\\u202e", "\n\t"]`, 1},
		{`"\udb40\udc41"`, `"\\u{E0041}"`, 1}, // a tag character, as a surrogate pair
		{`"\ud83d\ude00 ok"`, `"\ud83d\ude00 ok"`, 0},
		{"\"Zürich \u2066x\u2069\"", `"Zürich \\u{2066}x\\u{2069}"`, 2},
	} {
		got, n := showHiddenJSON(json.RawMessage(tc.in))
		if string(got) != tc.want || n != tc.n {
			t.Errorf("%s: got %s (%d); want %s (%d)", tc.in, got, n, tc.want, tc.n)
		}
		if !json.Valid(got) {
			t.Errorf("%s: %s is not valid JSON", tc.in, got)
		}
	}
}

// BenchmarkShowHiddenRow is the cost rowtext.go adds to a row: six values of a typical
// row, all plain (the fast path), and the same with one accented word.
func BenchmarkShowHiddenRow(b *testing.B) {
	for _, bc := range []struct {
		name string
		row  []any
	}{
		{"ascii", []any{"10", "customer10@example.com", "paid", "94.99", "EUR", "2026-11-01T14:10:00Z"}},
		{"accented", []any{"10", "customer10@example.com", "payé", "94.99", "EUR", "2026-11-01T14:10:00Z"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				for _, v := range bc.row {
					showHiddenValue(v)
				}
			}
		})
	}
}
