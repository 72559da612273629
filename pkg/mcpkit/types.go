package mcpkit

import (
	"encoding/base64"
	"encoding/json"
)

// Content is one content block of a tool result or prompt message. Build it with
// TextContent, ImageContent, AudioContent, ResourceLinkContent or EmbeddedResource.
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

// MarshalJSON keeps "text" present on text blocks even when it is empty (the schema
// requires it) while omitting it from every other kind.
func (c Content) MarshalJSON() ([]byte, error) {
	type plain Content
	if c.Type == "text" && c.Text == "" {
		return json.Marshal(struct {
			plain
			Text string `json:"text"`
		}{plain(c), ""})
	}
	return json.Marshal(plain(c))
}

// Annotations tell a client how to use a content block or resource.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// TextContent is a text block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// ImageContent is an image block; data is raw bytes, encoded here.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// AudioContent is an audio block; data is raw bytes, encoded here.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: "audio", Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// EmbeddedResource embeds a resource's contents in a result.
func EmbeddedResource(rc ResourceContents) Content {
	return Content{Type: "resource", Resource: &rc}
}

// ResourceLinkContent points at a resource the client may read.
func ResourceLinkContent(uri, name, mimeType string) Content {
	return Content{Type: "resource_link", URI: uri, Name: name, MIMEType: mimeType}
}

// ResourceContents is the text or blob of a resource. Exactly one of Text or Blob is
// set; Blob is base64 (use BlobContents to build it from bytes).
type ResourceContents struct {
	URI      string         `json:"uri"`
	MIMEType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     string         `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// TextContents makes text resource contents.
func TextContents(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MIMEType: mimeType, Text: &text}
}

// BlobContents makes binary resource contents.
func BlobContents(uri, mimeType string, data []byte) ResourceContents {
	return ResourceContents{URI: uri, MIMEType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// resultBase holds the fields mcpkit adds to every result according to the revision
// of the request: resultType and the serverInfo _meta for 2026-07-28, caching hints on
// cacheable results. Handlers never set them.
type resultBase struct {
	ResultType string         `json:"resultType,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
	TTLMs      *int64         `json:"ttlMs,omitempty"`
	CacheScope string         `json:"cacheScope,omitempty"`
}

func (b *resultBase) base() *resultBase { return b }

// result is implemented by every result type mcpkit sends.
type result interface{ base() *resultBase }

// emptyResult is the result of ping, logging/setLevel and the like.
type emptyResult struct{ resultBase }

// CallToolResult is the result of tools/call. Typed handlers never build one; raw
// handlers ([Server.AddRawTool]) do.
type CallToolResult struct {
	resultBase
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// ToolError is the result a tool returns when it failed in a way the model can act on.
func ToolError(msg string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(msg)}, IsError: true}
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	resultBase
	Contents []ResourceContents `json:"contents"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	resultBase
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// inputRequiredResult is the 2026-07-28 multi-round-trip answer.
type inputRequiredResult struct {
	resultBase
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// InputRequest is one thing a handler asks the client for: an elicitation, a sampling
// request or a roots listing. Method is "elicitation/create", "sampling/createMessage"
// or "roots/list".
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// MarshalJSON always writes params, as {} when there are none: clients decode it
// unconditionally (roots/list has no parameters of its own).
func (r InputRequest) MarshalJSON() ([]byte, error) {
	params := r.Params
	if params == nil {
		params = struct{}{}
	}
	return json.Marshal(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{r.Method, params})
}
