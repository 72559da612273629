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

// The full validator computes numbers exactly; numbers it would spend seconds on are
// refused before it sees them.
func TestCompileRefusesHugeExponents(t *testing.T) {
	v, err := schemafull.Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","maximum":10}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"n":1e999999}`, `{"n":[1,{"k":-2E+1001}]}`, `{"n":1e99999999999999999999}`} {
		if got := v(json.RawMessage(args)); !strings.Contains(got, "out of range") {
			t.Errorf("%s: got %q, want it refused as out of range", args, got)
		}
	}
	for _, args := range []string{`{"n":1e3}`, `{"n":-2.5E-1000}`, `{"n":5}`, `{"n":0e00}`, `{"n":1E+000}`} {
		if got := v(json.RawMessage(args)); strings.Contains(got, "out of range") {
			t.Errorf("%s: refused as out of range: %q", args, got)
		}
	}
}
