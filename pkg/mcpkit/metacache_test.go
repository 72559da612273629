package mcpkit

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMetaCacheGivesTheSameParse: a _meta seen before parses to the same RequestMeta
// as the first time (Raw being the request's own bytes), a caller changing what it got
// changes nothing for the next request, and a _meta that fails to parse fails every
// time.
func TestMetaCacheGivesTheSameParse(t *testing.T) {
	params := func(meta string) *message {
		return &message{Method: "tools/call", Params: json.RawMessage(`{"_meta":` + meta + `,"name":"x"}`)}
	}
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"experimental":{"a":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info"}`
	first, err := parseMeta(params(meta))
	if err != nil {
		t.Fatal(err)
	}
	first.ClientInfo.Name = "changed by a handler"
	first.ClientCapabilities.Experimental["b"] = nil
	for range 3 {
		got, err := parseMeta(params(meta))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := parseMetaObject(json.RawMessage(meta))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cached parse\n%+v\nwant\n%+v", got, want)
		}
	}
	const bad = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"loud"}`
	for range 3 {
		if _, err := parseMeta(params(bad)); err == nil {
			t.Fatal("an invalid logLevel was accepted")
		}
	}
}
