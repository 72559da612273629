package mcpkit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCleanFieldMarksTruncation(t *testing.T) {
	var tr Truncation
	if got := tr.CleanField("the body", "short\u202e", 100); got != "short" || tr.Truncated {
		t.Errorf("uncut field: %q, truncated=%v; want the text sanitized and nothing marked", got, tr.Truncated)
	}
	if got := tr.CleanField("the body", "héllo wörld", 2); got != "h" || !tr.Truncated || tr.Hint != "the body was cut at 2 bytes" {
		t.Errorf("cut field: %q, %+v; want a UTF-8-safe cut and a hint naming the field", got, tr)
	}
}

func TestSchemaForUntypedValuesIsPortable(t *testing.T) {
	type in struct {
		V any             `json:"v"`
		R json.RawMessage `json:"r,omitempty"`
	}
	var sc struct {
		Properties map[string]struct {
			AnyOf []struct {
				Type string `json:"type"`
			} `json:"anyOf"`
		} `json:"properties"`
	}
	raw := SchemaFor[in]()
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"v", "r"} {
		var types []string
		for _, a := range sc.Properties[name].AnyOf {
			types = append(types, a.Type)
		}
		if got := strings.Join(types, ","); got != "string,number,boolean,null,array,object" {
			t.Errorf("property %s: anyOf types %q in %s; want all six JSON types spelled out", name, got, raw)
		}
	}
}
