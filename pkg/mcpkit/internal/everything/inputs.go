package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

var nameSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"name": map[string]any{"type": "string", "description": "Your name"}},
	"required":   []string{"name"},
}

// addInputRequiredTools registers the multi-round-trip fixtures. Each is written as
// straight-line code: mcpkit turns a missing answer into input_required and runs the
// handler again with the answers (2026-07-28), or asks over the session (2025).
func addInputRequiredTools(s *mcpkit.Server) {
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_elicitation", Description: "Asks the user's name through elicitation."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			res, err := req.Elicit(ctx, "user_name", mcpkit.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			name, _ := res.Content["name"].(string)
			if res.Action != "accept" || name == "" {
				return text("No name was provided (action: " + res.Action + ")."), nil
			}
			return text("Hello, " + name + "!"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_sampling", Description: "Asks the client's model a question."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			raw, err := req.Sample(ctx, "capital_question", map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "What is the capital of France?"}}},
				"maxTokens": 100,
			})
			if err != nil {
				return nil, err
			}
			return text("Sampling response: " + samplingText(raw)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_list_roots", Description: "Asks the client for its roots."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			roots, err := req.ListRoots(ctx, "client_roots")
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			return text(fmt.Sprintf("Client exposed %d root(s): %s", len(roots), strings.Join(uris, ", "))), nil
		})
	confirm := mcpkit.ElicitParams{Message: "Please confirm", RequestedSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean", "description": "Confirm"}},
		"required":   []string{"ok"},
	}}
	stateTool := func(name, state string) {
		mcpkit.AddTool(s, &mcpkit.Tool{Name: name, Description: "Confirms through elicitation, carrying request state between rounds."},
			func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
				if req.State() == nil {
					req.SetState([]byte(state))
				} else if string(req.State()) != state {
					return nil, mcpkit.InvalidParams("invalid requestState")
				}
				res, err := req.Elicit(ctx, "confirm", confirm)
				if err != nil {
					return nil, err
				}
				if res.Action != "accept" {
					return text("not confirmed (action: " + res.Action + ")"), nil
				}
				return text("state-ok: requestState received and confirmation accepted"), nil
			})
	}
	stateTool("test_input_required_result_request_state", "request_state")
	stateTool("test_input_required_result_tampered_state", "tampered_state")
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_multiple_inputs", Description: "Asks for elicitation, sampling and roots at once."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			req.SetState([]byte("multiple_inputs"))
			answers, err := req.Input(ctx, map[string]mcpkit.InputRequest{
				"user_name":    elicitRequest("What is your name?", nameSchema),
				"greeting":     samplingRequest("Generate a greeting", 50),
				"client_roots": {Method: "roots/list"},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Received %d inputs: user_name, greeting, client_roots", len(answers))), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_multi_round", Description: "Asks two questions in two rounds."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			first, err := req.Elicit(ctx, "step1", mcpkit.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			second, err := req.Elicit(ctx, "step2", mcpkit.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"color": map[string]any{"type": "string", "description": "Your favorite color"}},
				"required":   []string{"color"},
			}})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Multi-round complete: %v likes %v", first.Content["name"], second.Content["color"])), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only for inputs the client declared it can give."},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			caps := &req.Meta.ClientCapabilities
			want := map[string]mcpkit.InputRequest{}
			if caps.HasElicitation("form") {
				want["user_name"] = elicitRequest("What is your name?", nameSchema)
			}
			if caps.HasSampling() {
				want["greeting"] = samplingRequest("Generate a short greeting", 50)
			}
			if caps.HasRoots() {
				want["client_roots"] = mcpkit.InputRequest{Method: "roots/list"}
			}
			if len(want) == 0 {
				return text("The client declared no capability to ask through."), nil
			}
			answers, err := req.Input(ctx, want)
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Received %d inputs for the declared capabilities", len(answers))), nil
		})
}

func elicitRequest(message string, schema map[string]any) mcpkit.InputRequest {
	return mcpkit.InputRequest{Method: "elicitation/create", Params: mcpkit.ElicitParams{Message: message, RequestedSchema: schema}}
}

func samplingRequest(prompt string, maxTokens int) mcpkit.InputRequest {
	return mcpkit.InputRequest{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": maxTokens,
	}}
}

func addResources(s *mcpkit.Server) {
	static := func(uri, name, desc, mime string, contents mcpkit.ResourceContents) {
		s.AddResource(&mcpkit.Resource{URI: uri, Name: name, Description: desc, MIMEType: mime},
			func(ctx context.Context, req *mcpkit.Request, uri string, _ map[string]string) (*mcpkit.ReadResourceResult, error) {
				return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{contents}}, nil
			})
	}
	static("test://static-text", "static-text", "A static text resource.", "text/plain",
		mcpkit.TextContents("test://static-text", "text/plain", "This is the content of the static text resource."))
	static("test://static-binary", "static-binary", "A static binary resource (a PNG).", "image/png",
		mcpkit.BlobContents("test://static-binary", "image/png", pngBytes))
	static("test://watched-resource", "watched-resource", "A resource clients can subscribe to.", "text/plain",
		mcpkit.TextContents("test://watched-resource", "text/plain", "Watched resource content"))
	s.AddResourceTemplate(&mcpkit.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
		Description: "A resource for any id.", MIMEType: "application/json"},
		func(ctx context.Context, req *mcpkit.Request, uri string, vars map[string]string) (*mcpkit.ReadResourceResult, error) {
			b, _ := json.Marshal(map[string]any{"id": vars["id"], "templateTest": true, "data": "Data for ID: " + vars["id"]})
			return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{mcpkit.TextContents(uri, "application/json", string(b))}}, nil
		})
}

func userText(s string) mcpkit.PromptMessage {
	return mcpkit.PromptMessage{Role: "user", Content: mcpkit.TextContent(s)}
}

func addPrompts(s *mcpkit.Server) {
	s.AddPrompt(&mcpkit.Prompt{Name: "test_simple_prompt", Title: "Simple prompt", Description: "A prompt without arguments."},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			return &mcpkit.GetPromptResult{Messages: []mcpkit.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
		})
	s.AddPrompt(&mcpkit.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt with arguments", Description: "A prompt with two required arguments.",
		Arguments: []mcpkit.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			return &mcpkit.GetPromptResult{Messages: []mcpkit.PromptMessage{
				userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]))}}, nil
		})
	s.AddPrompt(&mcpkit.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt with an embedded resource", Description: "A prompt that embeds a resource.",
		Arguments: []mcpkit.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			return &mcpkit.GetPromptResult{Messages: []mcpkit.PromptMessage{
				{Role: "user", Content: mcpkit.EmbeddedResource(mcpkit.TextContents(args["resourceUri"], "text/plain", "Embedded resource content for testing."))},
				userText("Please process the embedded resource above."),
			}}, nil
		})
	s.AddPrompt(&mcpkit.Prompt{Name: "test_prompt_with_image", Title: "Prompt with an image", Description: "A prompt that includes an image."},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			return &mcpkit.GetPromptResult{Messages: []mcpkit.PromptMessage{
				{Role: "user", Content: mcpkit.ImageContent(pngBytes, "image/png")},
				userText("Please analyze the image above."),
			}}, nil
		})
	s.AddPrompt(&mcpkit.Prompt{Name: "test_input_required_result_prompt", Title: "Prompt that asks for context", Description: "A prompt that elicits context first."},
		func(ctx context.Context, req *mcpkit.Request, args map[string]string) (*mcpkit.GetPromptResult, error) {
			res, err := req.Elicit(ctx, "user_context", mcpkit.ElicitParams{Message: "Please provide context for the prompt", RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"context": map[string]any{"type": "string", "description": "Context for the prompt"}},
				"required":   []string{"context"},
			}})
			if err != nil {
				return nil, err
			}
			return &mcpkit.GetPromptResult{Description: "A prompt with elicited context",
				Messages: []mcpkit.PromptMessage{userText(fmt.Sprintf("Context: %v", res.Content["context"]))}}, nil
		})
}
