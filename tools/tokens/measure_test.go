package tokens

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// approxTokens is the one token estimate: bytes / 4, rounded up.
func approxTokens(bytes int) int { return (bytes + 3) / 4 }

// compactJSON encodes v as hosts pass JSON on: compact, no HTML escaping.
func compactJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// reencode decodes raw JSON and encodes it again compactly, as JSON.stringify of the
// parsed value would (numbers kept as written).
func reencode(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return compactJSON(v)
}

// defs is what one server's definitions cost.
type defs struct {
	tools        int
	model        int            // Σ compact {"name","description","inputSchema"}
	list         int            // compact {"tools":[...]}
	instructions int            // the server's instructions
	perTool      map[string]int // model-visible bytes per tool
	names        []string
}

// modelView is what a host passes the model of one tool.
type modelView struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// measureDefs measures a tools/list (its tools, as received) and the instructions.
func measureDefs(tools []json.RawMessage, instructions string) defs {
	d := defs{tools: len(tools), instructions: len(instructions), perTool: map[string]int{}}
	for _, raw := range tools {
		var mv modelView
		if err := json.Unmarshal(raw, &mv); err != nil {
			panic(err)
		}
		n := len(compactJSON(mv))
		d.model += n
		d.perTool[mv.Name] = n
		d.names = append(d.names, mv.Name)
	}
	d.list = len(compactJSON(map[string]any{"tools": tools}))
	return d
}

// result is what one tool result costs, in the two views hosts have.
type result struct {
	text int // the text blocks: what hosts that read content pass the model
	host int // what VS Code and Claude Code pass: compact structuredContent if present, else text
	raw  int // for a file read: the raw bytes of the lines returned (0 otherwise)
}

// measureResult measures a tools/call result as received.
func measureResult(t testing.TB, raw json.RawMessage) result {
	t.Helper()
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("decoding a tools/call result: %v", err)
	}
	if r.IsError {
		t.Fatalf("a measured call failed: %.600s", raw)
	}
	var text strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	res := result{text: text.Len(), host: text.Len()}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		res.host = len(reencode(r.StructuredContent))
	}
	return res
}

// mcpClient is what the measurement needs of a connection to a server.
type mcpClient interface {
	tools(t testing.TB) []json.RawMessage
	instructions(t testing.TB) string
	call(t testing.TB, name string, args map[string]any) json.RawMessage
}

// inProcess is an mcpkit server driven by mcpkittest's client at 2026-07-28.
type inProcess struct{ c *mcpkittest.Client }

func connectInProcess(t testing.TB, s *mcpkit.Server) inProcess {
	return inProcess{mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil)}
}

func (p inProcess) tools(t testing.TB) []json.RawMessage {
	return mcpkittest.AllTools(t, p.c.Call)
}

func (p inProcess) instructions(t testing.TB) string {
	var d struct {
		Instructions string `json:"instructions"`
	}
	if err := json.Unmarshal(p.c.Call("server/discover", map[string]any{}), &d); err != nil {
		t.Fatal(err)
	}
	return d.Instructions
}

func (p inProcess) call(t testing.TB, name string, args map[string]any) json.RawMessage {
	return p.c.Call("tools/call", map[string]any{"name": name, "arguments": args})
}
