package schemafull_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/schemafull"
)

func TestCompileHandlesWhatMcpkitDoesNot(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","$defs":{"a":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
		"properties":{"address":{"$ref":"#/$defs/a"},"kind":{"type":"string"}},
		"if":{"properties":{"kind":{"const":"home"}},"required":["kind"]},"then":{"required":["address"]}}`)
	v, err := schemafull.Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, wantErr string }{
		{`{"kind":"work"}`, ""},
		{`{"kind":"home","address":{"city":"Oslo"}}`, ""},
		{`{"kind":"home"}`, "missing property 'address'"},
		{`{"address":{"city":7}}`, `field "address.city"`},
	}
	for _, tt := range tests {
		got := v(json.RawMessage(tt.args))
		if (tt.wantErr == "") != (got == "") || !strings.Contains(got, tt.wantErr) {
			t.Errorf("%s: got %q, want %q", tt.args, got, tt.wantErr)
		}
	}
}

func TestCompileRefusesRemoteReferences(t *testing.T) {
	_, err := schemafull.Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`))
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("got %v, want a refusal of the remote $ref", err)
	}
}
