package realclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCheckJSONResult: the structured content comes back when the text is the same
// JSON object (however either is spelled or decoded); otherwise the failure is
// reported and nil returned.
func TestCheckJSONResult(t *testing.T) {
	for _, tc := range []struct {
		name       string
		text       string
		isError    bool
		structured any
		wantErr    string // substring of the one reported failure; "" for none
	}{
		{"raw", `{"a":1,"b":"<x>"}`, false, json.RawMessage(`{"b":"<x>", "a":1}`), ""},
		{"decoded", `{"a":[1,2]}`, false, map[string]any{"a": []any{1.0, 2.0}}, ""},
		{"error", `no such issue`, true, nil, "isError: no such issue"},
		{"text not JSON", `hello`, false, json.RawMessage(`{"a":1}`), "text is not a JSON object"},
		{"text not an object", `[1]`, false, json.RawMessage(`[1]`), "text is not a JSON object"},
		{"no structured", `{"a":1}`, false, json.RawMessage(nil), "structuredContent is not a JSON object"},
		{"differ", `{"a":1}`, false, json.RawMessage(`{"a":2}`), "text and structuredContent differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			got := CheckJSONResult(r, "call", tc.text, tc.isError, tc.structured)
			switch {
			case tc.wantErr == "" && (len(r.errs) != 0 || got == nil):
				t.Errorf("got %v, reported %q; want the structured content, nothing reported", got, r.errs)
			case tc.wantErr != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], tc.wantErr) || !strings.HasPrefix(r.errs[0], "call: ") || got != nil):
				t.Errorf("got %v, reported %q; want nil and one failure with %q", got, r.errs, tc.wantErr)
			}
		})
	}
}
