package mcpkit

// TextRenderer is implemented by a typed tool's output whose text block reads better
// as text of its own than as JSON: a file's lines, a diff, a log excerpt. [AddTool]
// then sends MCPText() as the text block and the output's JSON as structuredContent,
// so a model reads the text itself (no quotes, no \n or \" escapes) while a client
// that uses structuredContent gets the typed value the output schema describes.
// Without it the text block is the JSON of structuredContent ([JSONText]).
//
// MCPText should carry what a model needs from the JSON fields too (a range, a
// truncation hint), compactly. It is called on the value the handler returned, after
// that value is encoded; a nil pointer is never asked.
type TextRenderer interface {
	MCPText() string
}

// renderedText is the text block of a typed output: its MCPText when it has one,
// else the JSON (js) that also goes out as structuredContent.
func renderedText(out any, js string) string {
	if r, ok := out.(TextRenderer); ok && js != "null" {
		return r.MCPText()
	}
	return js
}
