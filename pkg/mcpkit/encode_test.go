package mcpkit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// appendJSONString must write exactly what encoding/json writes without HTML
// escaping, for every byte value and the characters it treats specially.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `quote " and \ backslash`, "\n\r\t\b\f", "\x00\x01\x1f\x7f", "<html> & 'apos'",
		"ünïcödé ✓ 😀", "\u2028 line sep \u2029 para sep", "bad \xff utf8 \xc3", "\xe2\x80", strings.Repeat("ab\"\n", 1000)}
	for b := range 256 {
		cases = append(cases, "x"+string([]byte{byte(b)})+"y")
	}
	for _, s := range cases {
		want, err := marshalNoEscape(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// The direct encoding of a tool result must be the JSON encoding/json produces.
func TestAppendCallToolResultMatchesEncodingJSON(t *testing.T) {
	ttl := int64(0)
	size := int64(3)
	structured, _ := marshalNoEscape(map[string]any{"a": "<b>", "n": 1})
	results := []*CallToolResult{
		{Content: []Content{}},
		{Content: nil},
		{Content: []Content{TextContent("")}},
		{Content: []Content{TextContent("hello \"world\"\n")}, IsError: true},
		{Content: []Content{TextContent(string(structured))}, StructuredContent: encodedJSON(string(structured))},
		{Content: []Content{TextContent("x")}, StructuredContent: map[string]any{"k": []int{1, 2}}},
		{Content: []Content{TextContent("x")}, StructuredContent: json.RawMessage(`{"raw": true}`)},
		{Content: []Content{ImageContent([]byte{1, 2, 3}, "image/png"), {Type: "text", Text: "annotated", Annotations: &Annotations{Audience: []string{"user"}}},
			ResourceLinkContent("file:///a", "a", "text/plain"), {Type: "resource_link", URI: "file:///b", Name: "b", Size: &size}}},
		{resultBase: resultBase{ResultType: "complete", Meta: map[string]any{metaServerInfo: json.RawMessage(`{"name":"s","version":"1"}`)}, TTLMs: &ttl, CacheScope: "public"},
			Content: []Content{TextContent("t")}},
	}
	for i, r := range results {
		want, err := marshalNoEscape(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendCallToolResult(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("result %d: direct encoding is not JSON: %v\n%s", i, err, got)
		}
		_ = json.Unmarshal(want, &w)
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("result %d differs from encoding/json (-want +got):\n%s", i, diff)
		}
	}
}
