package realclient

import (
	"encoding/json"
	"testing"
)

// InspectorToolResult decodes the tools/call result the Inspector CLI printed (what
// Inspector or InspectorStatus returned): its one text content, which must be the
// same JSON object as its structuredContent (see [CheckJSONResult]), and isError. A
// result that is not exactly one text block fails the test, as does text that is not
// its structuredContent. An isError result's text is returned unchecked: errors carry
// no structuredContent.
func InspectorToolResult(t testing.TB, raw json.RawMessage) (text string, isError bool) {
	t.Helper()
	r := DecodeInspectorResult(t, raw)
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("content = %+v; want one text block", r.Content)
	}
	text = r.Content[0].Text
	if r.IsError {
		return text, true
	}
	if CheckJSONResult(t, "Inspector tools/call", text, false, r.StructuredContent) == nil {
		t.FailNow()
	}
	return text, false
}

// InspectorToolNames runs tools/list through the Inspector CLI and returns the tool
// names in the order the server listed them.
func InspectorToolNames(t testing.TB, target Target, era string) []string {
	t.Helper()
	names, _ := inspectorTools(t, target, era)
	return names
}

// InspectorStrictToolNames is [InspectorToolNames] with the CLI's --strict check that
// every tool schema is portable across hosts: a finding, warnings included, fails the
// test.
func InspectorStrictToolNames(t testing.TB, target Target, era string) []string {
	t.Helper()
	names, findings := inspectorTools(t, target, era, "--strict")
	if len(findings) > 0 {
		t.Errorf("the Inspector finds schema portability problems (warnings included): %s", findings)
	}
	return names
}

func inspectorTools(t testing.TB, target Target, era string, extra ...string) (names []string, findings []json.RawMessage) {
	t.Helper()
	raw := Inspector(t, target, era, append([]string{"--method", "tools/list"}, extra...)...)
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
		SchemaFindings []json.RawMessage `json:"schemaFindings"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("Inspector tools/list printed %s: %v", raw, err)
	}
	names = make([]string, 0, len(res.Result.Tools))
	for _, tl := range res.Result.Tools {
		names = append(names, tl.Name)
	}
	return names, res.SchemaFindings
}

// InspectorCallTool calls tool with args (marshalled to --tool-args-json) through the
// Inspector CLI and returns the result's text, checked as [InspectorToolResult] checks
// it; an isError result fails the test.
func InspectorCallTool(t testing.TB, target Target, era, tool string, args any) string {
	t.Helper()
	text, isError := InspectorToolResult(t, Inspector(t, target, era, toolCallFlags(t, tool, args)...))
	if isError {
		t.Fatalf("Inspector CLI: %s answered isError: %s", tool, text)
	}
	return text
}

// InspectorCallToolError is [InspectorCallTool] for a call that must answer isError
// (the CLI then exits with status 5): it returns the error's text.
func InspectorCallToolError(t testing.TB, target Target, era, tool string, args any) string {
	t.Helper()
	raw, status, stderr := InspectorStatus(t, target, era, toolCallFlags(t, tool, args)...)
	if status != 5 {
		t.Fatalf("Inspector CLI: %s: exit status %d; want 5 (the tool answered isError)\nstdout: %s\nstderr: %s", tool, status, raw, stderr)
	}
	text, isError := InspectorToolResult(t, raw)
	if !isError {
		t.Fatalf("Inspector CLI: %s succeeded; want isError: %s", tool, text)
	}
	return text
}

// toolCallFlags are the Inspector CLI's flags for a tools/call.
func toolCallFlags(t testing.TB, tool string, args any) []string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("Inspector CLI: arguments of %s: %v", tool, err)
	}
	return []string{"--method", "tools/call", "--tool-name", tool, "--tool-args-json", string(b)}
}

// InspectorResult is a tools/call result as the Inspector CLI printed it.
type InspectorResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// DecodeInspectorResult decodes the tools/call result that [Inspector] or
// [InspectorStatus] returned; output that is not one fails the test.
func DecodeInspectorResult(t testing.TB, raw json.RawMessage) *InspectorResult {
	t.Helper()
	var out struct {
		Result InspectorResult `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("Inspector tools/call printed %s: %v", raw, err)
	}
	return &out.Result
}
