package mcpkit

// TextRenderer is implemented by a typed tool's output whose text block reads better
// as text of its own than as JSON: a file's lines, a diff, a log excerpt. [AddTool]
// then sends MCPText() as the text block, so a model reads the text itself (no
// quotes, no \n or \" escapes). Under the default output policy
// ([ServerOptions].OutputSchemas off) that text is the whole result: no
// structuredContent goes along, since VS Code and Claude Code would show the model its
// JSON instead of the text. With OutputSchemas on, structuredContent is the output's
// JSON as the published output schema describes it, for clients that use it.
//
// MCPText should carry what a model needs from the JSON fields too (a range, a
// truncation hint), compactly. A nil pointer is never asked.
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
