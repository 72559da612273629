package mcpkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// JSONText encodes v the way mcpkit encodes every JSON tool result: compact, with no
// trailing newline, and without HTML escaping (<, > and & stay as they are: the reader
// is a model or a program, not a browser). Use it for JSON a server hands out as text
// itself (a resource's contents, a result it assembles by hand), so that it reads the
// same as a typed tool's structuredContent.
func JSONText(v any) (string, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// structuredResult renders a typed output as structuredContent and text: one encoding,
// one copy, shared by both (the text block is the JSON itself), unless the output is a
// [TextRenderer], whose MCPText is the text block.
func structuredResult(out any) (*CallToolResult, error) {
	text, err := JSONText(out)
	if err != nil {
		return nil, fmt.Errorf("encoding tool output: %w", err)
	}
	return &CallToolResult{Content: []Content{TextContent(renderedText(out, text))}, StructuredContent: encodedJSON(text)}, nil
}

// untypedResult renders the output of a tool that publishes no output schema (the
// default policy, [ServerOptions].OutputSchemas off, or Out any): a [TextRenderer] is
// its MCPText only (hosts that see structuredContent show the model its JSON instead
// of the text blocks); a value that encodes as a JSON object becomes structuredContent
// and text, as a typed output does; any other value is text only (the legacy revisions
// take only an object as structuredContent, and no schema tells a client to expect
// another); nil (or a nil pointer) is an empty result.
func untypedResult(out any) (*CallToolResult, error) {
	if out == nil {
		return &CallToolResult{}, nil
	}
	if r, ok := out.(TextRenderer); ok {
		if v := reflect.ValueOf(out); v.Kind() == reflect.Pointer && v.IsNil() {
			return &CallToolResult{}, nil
		}
		return &CallToolResult{Content: []Content{TextContent(r.MCPText())}}, nil
	}
	text, err := JSONText(out)
	if err != nil {
		return nil, fmt.Errorf("encoding tool output: %w", err)
	}
	switch {
	case text == "null":
		return &CallToolResult{}, nil
	case text[0] == '{':
		return &CallToolResult{Content: []Content{TextContent(text)}, StructuredContent: encodedJSON(text)}, nil
	}
	return &CallToolResult{Content: []Content{TextContent(text)}}, nil
}
