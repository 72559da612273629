package realclient

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// InspectorToolResult decodes the tools/call result the Inspector CLI printed (what
// Inspector or InspectorStatus returned): its one text content, which must be the
// same JSON as its structuredContent, and isError. A result that is not exactly one
// text block, or whose text is not JSON, fails the test; text that differs from
// structuredContent is reported with a diff. An isError result's text is returned
// unchecked: errors carry no structuredContent.
func InspectorToolResult(t testing.TB, raw json.RawMessage) (text string, isError bool) {
	t.Helper()
	var res struct {
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	r := res.Result
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("content = %+v; want one text block", r.Content)
	}
	text = r.Content[0].Text
	if r.IsError {
		return text, true
	}
	var fromText, fromStructured any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("text is not JSON: %v: %s", err, text)
	}
	if err := json.Unmarshal(r.StructuredContent, &fromStructured); err != nil {
		t.Fatalf("structuredContent: %v: %s", err, r.StructuredContent)
	}
	if d := cmp.Diff(fromStructured, fromText); d != "" {
		t.Errorf("text and structuredContent differ (-structured +text):\n%s", d)
	}
	return text, false
}

// InspectorToolNames runs tools/list through the Inspector CLI and returns the tool
// names in the order the server listed them.
func InspectorToolNames(t testing.TB, target Target, era string) []string {
	t.Helper()
	raw := Inspector(t, target, era, "--method", "tools/list")
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("Inspector tools/list printed %s: %v", raw, err)
	}
	names := make([]string, 0, len(res.Result.Tools))
	for _, tl := range res.Result.Tools {
		names = append(names, tl.Name)
	}
	return names
}
