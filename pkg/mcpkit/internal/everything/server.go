package main

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/schemafull"
)

// Fixture media: a 1x1 red PNG and a silent WAV.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

var (
	pngBytes = mustDecode(pngBase64)
	wavBytes = mustDecode(wavBase64)
)

func text(s string) *mcpkit.CallToolResult {
	return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent(s)}}
}

// none is the input of a tool without arguments.
type none struct{}

// inputSchemas are the tools' input schemas generated ahead of time from their Go
// types, so a start does not generate them by reflection. TestInputSchemas fails when
// they differ from what the types give; `go generate` rewrites the file.
//
//go:generate go test -run ^TestInputSchemas$ -update .
//go:embed input_schemas.json
var inputSchemas []byte

// newServer builds the conformance fixture: every tool, resource and prompt the
// official suite calls, with the behaviour its scenarios check.
func newServer(logger *slog.Logger) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "mcpkit-everything", Version: mcpkit.Version},
		&mcpkit.ServerOptions{Logger: logger, Instructions: "Conformance fixture for the official MCP test suite.",
			// json_schema_2020_12_tool uses $ref, if/then/else and allOf.
			SchemaCompiler: schemafull.Compile,
			InputSchemas:   inputSchemas})
	s.EnableLogging()
	addContentTools(s)
	addInteractionTools(s)
	addProtocolTools(s)
	addInputRequiredTools(s)
	addTaskTools(s)
	addResources(s)
	addPrompts(s)
	s.SetCompletionHandler(func(ctx context.Context, req *mcpkit.Request, c *mcpkit.CompleteRequest) (*mcpkit.Completion, error) {
		var values []string
		for _, v := range []string{"paris", "park", "party"} {
			if strings.HasPrefix(v, strings.ToLower(c.Argument.Value)) {
				values = append(values, v)
			}
		}
		return &mcpkit.Completion{Values: values, Total: len(values)}, nil
	})
	return s
}

func addContentTools(s *mcpkit.Server) {
	ro := mcpkit.ReadOnly()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_simple_text", Description: "Returns a simple text response.", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return text("This is a simple text response for testing."), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_image_content", Description: "Returns an image (a 1x1 PNG).", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.ImageContent(pngBytes, "image/png")}}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_audio_content", Description: "Returns audio (a silent WAV).", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.AudioContent(wavBytes, "audio/wav")}}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_embedded_resource", Description: "Returns an embedded text resource.", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.EmbeddedResource(
				mcpkit.TextContents("test://embedded-resource", "text/plain", "This is an embedded resource content."))}}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource.", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{
				mcpkit.TextContent("Multiple content types test:"),
				mcpkit.ImageContent(pngBytes, "image/png"),
				mcpkit.EmbeddedResource(mcpkit.TextContents("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)),
			}}, nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_error_handling", Description: "Always fails, as a tool error.", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return mcpkit.ToolError("This tool intentionally returns an error for testing"), nil
		})
}

type samplingIn struct {
	Prompt string `json:"prompt" jsonschema_description:"The prompt to send to the client's model"`
}

type elicitationIn struct {
	Message string `json:"message" jsonschema_description:"The message to show the user"`
}

func addInteractionTools(s *mcpkit.Server) {
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					sleep(ctx, 50*time.Millisecond)
				}
				req.Log("info", "everything", msg)
			}
			return text("Tool with logging executed successfully"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_tool_with_progress", Description: "Reports progress three times.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			for _, p := range []float64{0, 50, 100} {
				req.Progress(p, 100, fmt.Sprintf("Completed step %.0f of %.0f", p, 100.0))
				sleep(ctx, 50*time.Millisecond)
			}
			var token any
			_ = json.Unmarshal(req.Meta.ProgressToken, &token)
			return text(fmt.Sprint(token)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_sampling", Description: "Asks the client's model to answer a prompt."},
		func(ctx context.Context, req *mcpkit.Request, in samplingIn) (*mcpkit.CallToolResult, error) {
			raw, err := req.Sample(ctx, "sample", map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": in.Prompt}}},
				"maxTokens": 100,
			})
			if err != nil {
				return nil, err
			}
			return text("LLM response: " + samplingText(raw)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_elicitation", Description: "Asks the user for a username and email."},
		func(ctx context.Context, req *mcpkit.Request, in elicitationIn) (*mcpkit.CallToolResult, error) {
			res, err := req.Elicit(ctx, "user_info", mcpkit.ElicitParams{Message: in.Message, RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"username": map[string]any{"type": "string", "description": "User's response"},
					"email":    map[string]any{"type": "string", "description": "User's email address"},
				},
				"required": []string{"username", "email"},
			}})
			if err != nil {
				return nil, err
			}
			content, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits primitives with default values (SEP-1034)."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			res, err := req.Elicit(ctx, "defaults", mcpkit.ElicitParams{Message: "Test defaults for primitives", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
					"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
					"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
					"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
					"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
				},
			}})
			if err != nil {
				return nil, err
			}
			content, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, content)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits every enum schema form (SEP-1330)."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			titled := []any{
				map[string]any{"const": "value1", "title": "First Option"},
				map[string]any{"const": "value2", "title": "Second Option"},
				map[string]any{"const": "value3", "title": "Third Option"},
			}
			res, err := req.Elicit(ctx, "enums", mcpkit.ElicitParams{Message: "Test enum schemas", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"untitledSingle": map[string]any{"type": "string", "description": "Untitled single-select", "enum": []string{"option1", "option2", "option3"}},
					"titledSingle":   map[string]any{"type": "string", "description": "Titled single-select", "oneOf": titled},
					"legacyEnum": map[string]any{"type": "string", "description": "Legacy titled enum", "enum": []string{"opt1", "opt2", "opt3"},
						"enumNames": []string{"Option One", "Option Two", "Option Three"}},
					"untitledMulti": map[string]any{"type": "array", "description": "Untitled multi-select", "minItems": 1, "maxItems": 3,
						"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
					"titledMulti": map[string]any{"type": "array", "description": "Titled multi-select", "minItems": 1, "maxItems": 3,
						"items": map[string]any{"anyOf": titled}},
				},
			}})
			if err != nil {
				return nil, err
			}
			content, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, content)), nil
		})
}

// jsonSchema202012 is the suite's SEP-1613/SEP-2106 schema, served verbatim.
const jsonSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

type regionIn struct {
	Region string `json:"region,omitempty"`
	Level  int    `json:"level,omitempty"`
}

func addProtocolTools(s *mcpkit.Server) {
	s.AddRawTool(&mcpkit.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features.",
		InputSchema: json.RawMessage(jsonSchema202012), Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, args json.RawMessage) (*mcpkit.CallToolResult, error) {
			return text("JSON Schema 2020-12 tool called with: " + string(args)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_reconnection", Description: "Completes after a short pause.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			sleep(ctx, 100*time.Millisecond)
			return text("Reconnection test completed successfully."), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_x_mcp_header", Description: "Echoes an argument mirrored into the Mcp-Param-Region header.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"mirrored into Mcp-Param-Region","x-mcp-header":"Region"},"level":{"type":"integer","description":"non-mirrored argument"}}}`),
		Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in regionIn) (*mcpkit.CallToolResult, error) {
			return text("region=" + in.Region), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			if !req.Meta.ClientCapabilities.HasSampling() {
				return nil, &mcpkit.Error{Code: mcpkit.CodeMissingClientCapability,
					Message: "sampling capability required but not declared by client",
					Data:    map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
			}
			return text("Client declared the sampling capability; tool executed."), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_streaming_elicitation", Description: "Answers with result frames only, never a request.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			return text("stream observed: result frames only, no top-level requests"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_logging_tool", Description: "Logs only when the request asks for a log level.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			req.Log("info", "everything", "test_logging_tool executed")
			return text("Log attempted; sent only when the request's _meta names a log level."), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_trigger_tool_change", Description: "Re-registers a transient tool so tools/list changes."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			mcpkit.AddTool(s, &mcpkit.Tool{Name: "__transient_tool_for_list_changed", Description: "Appears after test_trigger_tool_change.", Annotations: mcpkit.ReadOnly()},
				func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
					return text("transient"), nil
				})
			return text("tools_list_changed published"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_trigger_prompt_change", Description: "Re-registers a transient prompt so prompts/list changes."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			s.AddPrompt(&mcpkit.Prompt{Name: "__transient_prompt_for_list_changed", Description: "Appears after test_trigger_prompt_change."},
				func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
					return &mcpkit.GetPromptResult{Messages: []mcpkit.PromptMessage{{Role: "user", Content: mcpkit.TextContent("transient")}}}, nil
				})
			return text("prompts_list_changed published"), nil
		})
}

// sleep waits d, or returns the context's error if it ends first. The tools that
// only pace their output ignore the error: the call is over anyway.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// samplingText extracts the text of a CreateMessageResult.
func samplingText(raw json.RawMessage) string {
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	var one struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(r.Content, &one) == nil && one.Text != "" {
		return one.Text
	}
	var many []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(r.Content, &many)
	var parts []string
	for _, m := range many {
		parts = append(parts, m.Text)
	}
	return strings.Join(parts, "")
}
