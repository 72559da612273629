package mcpkit

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMetaFieldsSplitFast: the fast split of _meta gives what json.Unmarshal gives,
// or declines.
func TestMetaFieldsSplitFast(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`,
		`{"progressToken":7,"traceparent":"00-x","tracestate":"a=b","other":[1,{"x":null}],"io.modelcontextprotocol/logLevel":"info"}`,
		`{"progressToken":null}`,
		`{"progressToken":"a","progressToken":"b"}`,
		` { "traceparent" : "t" , "x" : { } } `,
		`{"ProgressToken":1}`,
		`{"progress\u0054oken":1}`,
		`{"io.modelcontextprotocol/protocolVersion":}`,
		`[]`,
		`{"a":1,}`,
	} {
		var want metaFields
		wantErr := json.Unmarshal([]byte(raw), &want)
		var got metaFields
		if !got.splitFast([]byte(raw)) {
			continue // the slow path decides
		}
		if wantErr != nil {
			t.Errorf("%s: fast path accepted what json.Unmarshal refuses (%v)", raw, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n fast %+v\n json %+v", raw, got, want)
		}
	}
}

func FuzzMetaFieldsSplitFast(f *testing.F) {
	f.Add(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1}`)
	f.Add(`{"Traceparent":"x"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var got metaFields
		if !got.splitFast([]byte(raw)) {
			return
		}
		var want metaFields
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: fast path accepted what json.Unmarshal refuses (%v)", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n fast %+v\n json %+v", raw, got, want)
		}
	})
}
