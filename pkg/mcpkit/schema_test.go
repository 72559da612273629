package mcpkit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A tool whose input schema uses a keyword mcpkit does not check itself is refused at
// registration when the server has no SchemaCompiler, with a panic naming it.
func TestToolSchemaNeedsSchemaCompiler(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "SchemaCompiler") {
			t.Errorf("registering a tool with $ref and no SchemaCompiler: got panic %v, want one naming SchemaCompiler", r)
		}
	}()
	s.AddRawTool(&Tool{Name: "ref", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{}}}`)},
		func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
			return nil, nil
		})
}
