package benchcmp

import (
	"encoding/json"
	"strconv"
)

// Revisions the benchmarks speak.
const (
	Modern = "2026-07-28"
	Legacy = "2025-11-25"
)

// modernMeta is the per-request _meta every 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-bench","version":"1.0.0"}}`

// ToolCall is one tools/call request, pre-rendered so building it costs the
// benchmark nothing but the id.
type ToolCall struct {
	Revision  string
	Name      string
	Arguments json.RawMessage // a JSON object; nil for {}

	prefix, suffix []byte // the line around the id
}

// NewToolCall renders a tools/call of tool name with arguments at revision (Modern
// with its _meta, or Legacy without).
func NewToolCall(revision, name string, arguments json.RawMessage) *ToolCall {
	if arguments == nil {
		arguments = json.RawMessage(`{}`)
	}
	nameJSON, _ := json.Marshal(name)
	params := `{"name":` + string(nameJSON) + `,"arguments":` + string(arguments) + `}`
	if revision == Modern {
		params = `{` + modernMeta + `,"name":` + string(nameJSON) + `,"arguments":` + string(arguments) + `}`
	}
	return &ToolCall{
		Revision:  revision,
		Name:      name,
		Arguments: arguments,
		prefix:    []byte(`{"jsonrpc":"2.0","id":`),
		suffix:    []byte(`,"method":"tools/call","params":` + params + "}\n"),
	}
}

// Line is the request with the given id, newline-terminated.
func (c *ToolCall) Line(id int64) []byte {
	b := make([]byte, 0, len(c.prefix)+len(c.suffix)+20)
	b = append(b, c.prefix...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, c.suffix...)
}

// Body is the request with the given id as an HTTP body (no newline needed, none
// harmful).
func (c *ToolCall) Body(id int64) []byte { return c.Line(id) }

// InitializeLine is a legacy initialize request (id 0) and InitializedLine the
// notification that completes the handshake.
func InitializeLine(revision string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + revision +
		`","capabilities":{},"clientInfo":{"name":"mcpkit-bench","version":"1.0.0"}}}` + "\n")
}

// InitializedLine completes the legacy handshake.
var InitializedLine = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")

// EchoLine returns a builder of size-byte lines shaped like a response (so a
// LineConn matches them by id), for a bare echo server: the baseline of what the
// pipes alone cost.
func EchoLine(size int) func(id int64) []byte {
	return func(id int64) []byte {
		b := make([]byte, 0, size+32)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"result":{"pad":"`...)
		for len(b) < size-3 {
			b = append(b, 'x')
		}
		return append(b, "\"}}\n"...)
	}
}
