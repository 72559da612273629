package ingest

import (
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
	json "github.com/segmentio/encoding/json"
)

// boundAnyReference is boundAny as it was before it returned unchanged maps and lists
// as they are: a copy of everything. The oracle of TestBoundAnyMatchesReference.
func boundAnyReference(key string, v any, depth int) any {
	if event.IsSecretKey(key) && v != nil {
		return event.Redacted
	}
	switch x := v.(type) {
	case string:
		return event.Capped(event.RedactText(x), ingestMaxString/4)
	case map[string]any:
		if depth > ingestMaxDepth {
			return "{...}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > ingestMaxKeys {
			keys = keys[:ingestMaxKeys]
		}
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			out[event.Capped(k, 256)] = boundAnyReference(k, x[k], depth+1)
		}
		return out
	case []any:
		if depth > ingestMaxDepth {
			return "[...]"
		}
		if len(x) > ingestMaxList {
			x = x[:ingestMaxList]
		}
		out := make([]any, len(x))
		for i, e := range x {
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				if k, ok := pair[0].(string); ok {
					out[i] = []any{k, boundAnyReference(k, pair[1], depth+1)}
					continue
				}
			}
			out[i] = boundAnyReference(key, e, depth+1)
		}
		return out
	default:
		return v
	}
}

// normalizeContextsReference is normalizeContexts before it kept unchanged contexts.
func normalizeContextsReference(in map[string]any) map[string]event.Context {
	if len(in) == 0 {
		return nil
	}
	out := map[string]event.Context{}
	for name, v := range in {
		m, ok := v.(map[string]any)
		if !ok || len(out) >= 32 {
			continue
		}
		c := event.Context{}
		for k, val := range m {
			if len(c) >= 32 {
				break
			}
			switch val.(type) {
			case string, float64, bool:
				c[event.Capped(k, 128)] = boundAnyReference(k, val, ingestMaxDepth)
			}
		}
		if event.IsSecretKey(name) {
			continue
		}
		out[event.Capped(name, 128)] = c
	}
	return out
}

// mayHoldSecretReference is mayHoldSecret before its ASCII path.
func mayHoldSecretReference(s string) bool {
	if s == "" {
		return false
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		return true
	}
	lower := strings.ToLower(s)
	for _, h := range event.SecretHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// checkBoundMatches compares boundAny, normalizeContexts (for contexts small enough
// that normalizeContexts is deterministic) and mayHoldSecret with their references on
// the JSON value v.
func checkBoundMatches(t testing.TB, v any) {
	t.Helper()
	for _, key := range []string{"", "data", "password"} {
		for _, depth := range []int{1, ingestMaxDepth, ingestMaxDepth + 1} {
			want := boundAnyReference(key, v, depth)
			if diff := cmp.Diff(want, boundAny(key, v, depth)); diff != "" {
				t.Fatalf("boundAny(%q, %v, %d) (-reference +got):\n%s", key, v, depth, diff)
			}
		}
	}
	if m, ok := v.(map[string]any); ok && len(m) <= 32 {
		small := true
		for _, c := range m {
			if c, ok := c.(map[string]any); ok && len(c) > 32 {
				small = false
			}
		}
		if small {
			if diff := cmp.Diff(normalizeContextsReference(m), normalizeContexts(m)); diff != "" {
				t.Fatalf("normalizeContexts(%v) (-reference +got):\n%s", m, diff)
			}
		}
	}
	if s, ok := v.(string); ok && event.MayHoldSecret(s) != mayHoldSecretReference(s) {
		t.Fatalf("mayHoldSecret(%q) = %v, want %v", s, !mayHoldSecretReference(s), mayHoldSecretReference(s))
	}
}

var boundSeeds = []string{
	`null`, `"text"`, `"Bearer abcdefgh12345"`, `"x=1&TOKEN=abc"`, `"https://u:p@h/"`, `"\u212Aey=1"`, `"İ PASSWORD: x"`, `1`, `true`,
	`{}`, `[]`, `{"a": 1, "password": "p", "n": null, "token": null, "s": "[redacted]"}`, `{"os": {"name": "Linux", "version": "6"}, "trace": {"span_id": "1"}}`,
	`{"c": {"api_key": "k", "n": 1}, "d": {"deep": {"x": {"y": {"z": {"w": 1}}}}}, "l": [1, [2]]}`, `{"c": {"list": [1], "s": "x"}, "password": {"a": 1}}`,
	`[["Authorization", "Bearer x"], ["a", "b"], ["a", "b", "c"], [1, 2]]`, `[["k", {"password": "p"}], {"x": [[]]}]`,
	`{"` + strings.Repeat("k", 300) + `": 1}`, `{"` + strings.Repeat("c", 200) + `": {"a": "b"}}`, `{"c": {"` + strings.Repeat("k", 200) + `": "v"}}`,
	`"` + strings.Repeat("long text ", 500) + `"`, `{"a": "` + strings.Repeat("x", 5000) + `"}`,
	`[` + strings.Repeat(`1,`, 150) + `1]`, `{"a": [` + strings.Repeat(`{"b": 1},`, 120) + `{}]}`,
}

func TestBoundAnyMatchesReference(t *testing.T) {
	for _, seed := range boundSeeds {
		var v any
		if err := json.Unmarshal([]byte(seed), &v); err != nil {
			t.Fatalf("%s: %v", seed, err)
		}
		checkBoundMatches(t, v)
	}
	big := map[string]any{}
	for i := range 150 {
		big[strings.Repeat("k", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26))] = float64(i)
	}
	checkBoundMatches(t, big)
}

// FuzzBoundAny compares boundAny and its kin with their references on any JSON value.
func FuzzBoundAny(f *testing.F) {
	for _, seed := range boundSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) == nil {
			checkBoundMatches(t, v)
		}
	})
}
