package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// Tool describes a tool. [AddTool] fills InputSchema and OutputSchema from the handler's
// Go types; set them yourself only for [Server.AddRawTool]. An OutputSchema is
// published only when [ServerOptions].OutputSchemas is set.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
	// Scopes are the OAuth scopes a caller needs for this tool over authorized HTTP,
	// besides the scopes every request needs: a call without one of them is refused
	// with 403 insufficient_scope naming them, and Protected Resource Metadata lists
	// them in scopes_supported. Every tool that changes something carries its
	// server's write scope ([WriteScope]), which [ServerOptions].WriteScope adds to
	// every tool not marked read-only.
	Scopes []string `json:"-"`
	// TaskSupport says whether calls may run as tasks of the Tasks extension
	// ([ExtensionTasks]): [TaskOptional] for work that may take long (a call from a
	// client that declared the extension becomes a task once it outlasts
	// ServerOptions.TaskBudget), [TaskRequired] for a tool served only as a task.
	// The handler is the same either way (see tasks.go). The extension defines no
	// tool-level field for this, so it is not sent in tools/list.
	TaskSupport TaskSupport `json:"-"`
}

// WriteScope is the scope of the tools that change something on a server, by the
// naming scheme of the servers here: "<name>:write", where name is the short name
// of what the server serves ("files:write", "db:write", "github:write",
// "errors:write"). A token with only the scopes every request needs can then read
// but not write.
func WriteScope(name string) string { return name + ":write" }

// ToolAnnotations are hints about a tool's behaviour. mcpkit always sends all four
// hints, so a tool says what it does instead of leaving clients to assume defaults.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// ReadOnly is the annotation set of a tool that only reads its (closed) world.
func ReadOnly() *ToolAnnotations {
	return &ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
}

// ToolHandlerFor handles a typed tool call. Returning a Go error makes the result
// isError with the error's message; returning *[Error] (or [ErrInputRequired]) answers
// with that protocol error (or an input_required result) instead.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

// RawToolHandler handles a tool call with raw JSON arguments and builds the result itself.
type RawToolHandler func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error)

type registeredTool struct {
	tool      Tool
	handler   RawToolHandler
	headers   map[string]string // argument name -> Mcp-Param header suffix (x-mcp-header)
	objectOut bool              // structuredContent is a JSON object (legacy-safe)
	// generate is the input schema generated from the handler's Go input type, for a
	// typed tool whose schema mcpkit supplies (nil otherwise): what
	// [Server.GeneratedInputSchemas] reports, and what ServerOptions.InputSchemas is
	// checked against.
	generate func() json.RawMessage

	// The argument validator is compiled on the tool's first call for a schema mcpkit
	// generated (or took from ServerOptions.InputSchemas), at registration for one the
	// server wrote itself (see addTool).
	compileOnce sync.Once
	validate    ArgumentValidator
	compileErr  error

	// required holds the input schema's top-level required names, read once: the
	// optional arguments a call sends as null are dropped before validation (see
	// dropNullOptionals).
	requiredOnce sync.Once
	required     []string
}

// validator returns the tool's argument validator, compiling it on first use.
func (rt *registeredTool) validator(s *Server) (ArgumentValidator, error) {
	rt.compileOnce.Do(func() {
		v, err := s.compileArguments(rt.tool.InputSchema)
		if err != nil {
			rt.compileErr = fmt.Errorf("mcpkit: tool %q has an invalid input schema: %v", rt.tool.Name, err)
			return
		}
		rt.validate = v
	})
	return rt.validate, rt.compileErr
}

var (
	callToolResultType = reflect.TypeFor[*CallToolResult]()
	anyType            = reflect.TypeFor[any]()
)

// AddTool registers a typed tool. The input schema is generated from In (a struct) and
// every call's arguments are validated against it before h runs. What the result
// carries follows [ServerOptions].OutputSchemas, the one output policy:
//
//   - Off (the default): no output schema is published. An output whose JSON is an
//     object comes as structuredContent plus that JSON as text ([JSONText]); an output
//     that is a [TextRenderer] comes as its MCPText only; any other value as its JSON
//     text only; nil (or a nil pointer) as an empty result.
//   - On: the output schema is generated from Out (unless t sets one) and published,
//     and the result carries structuredContent plus its JSON as text (the output's
//     MCPText instead when Out is a [TextRenderer]). If Out is any and t sets no
//     OutputSchema, the tool publishes none and answers as when the option is off, as
//     in the Go SDK.
//
// If Out is *CallToolResult, h builds the result itself either way.
func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) {
	tool := *t
	var generate func() json.RawMessage
	if len(tool.InputSchema) == 0 {
		// The schema generated from In: taken from the server's pre-generated table when
		// it has the tool (no reflection at start; tests hold the table to what
		// reflection gives, see ServerOptions.InputSchemas), else generated now.
		generate = SchemaFor[In]
		if sc, ok := s.inputSchemas[tool.Name]; ok {
			tool.InputSchema = sc
		} else {
			tool.InputSchema = generate()
		}
	}
	raw := reflect.TypeFor[Out]() == callToolResultType
	untyped := reflect.TypeFor[Out]() == anyType && len(tool.OutputSchema) == 0
	if !raw && !untyped && len(tool.OutputSchema) == 0 && s.opts.OutputSchemas {
		// Generated only to be published: with OutputSchemas off a typed tool's
		// structuredContent is always an object (see untypedResult), so nothing else
		// needs it.
		tool.OutputSchema = SchemaFor[Out]()
	}
	typed := !raw && !untyped && s.opts.OutputSchemas
	s.addToolGenerated(tool, generate, func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return ToolError("invalid arguments: " + describeJSONError(err)), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		switch {
		case raw:
			return any(out).(*CallToolResult), nil
		case typed:
			return structuredResult(out)
		}
		return untypedResult(out)
	})
}

// AddRawTool registers a tool whose handler works on raw arguments. t.InputSchema must
// be set (a JSON Schema object); arguments are still validated against it.
func (s *Server) AddRawTool(t *Tool, h RawToolHandler) {
	tool := *t
	if len(tool.InputSchema) == 0 {
		tool.InputSchema = json.RawMessage(`{"type":"object","additionalProperties":false}`)
	}
	s.addTool(tool, h)
}

func (s *Server) addTool(tool Tool, h RawToolHandler) { s.addToolGenerated(tool, nil, h) }

// addToolGenerated registers a tool; generate is set when mcpkit supplies the input
// schema from the handler's Go type (see AddTool).
func (s *Server) addToolGenerated(tool Tool, generate func() json.RawMessage, h RawToolHandler) {
	readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	if s.opts.ReadOnly && !readOnly {
		s.logger.Debug("read-only server: not registering tool", "tool", tool.Name)
		s.withheld.Store(tool.Name, true)
		return
	}
	if w := s.opts.WriteScope; w != "" && !readOnly && !slices.Contains(tool.Scopes, w) {
		tool.Scopes = append(slices.Clip(tool.Scopes), w) // the caller's slice stays as it was
	}
	rt := &registeredTool{tool: tool, handler: h, generate: generate}
	rt.objectOut = len(tool.OutputSchema) == 0 || schemaRootIsObject(tool.OutputSchema)
	if !s.opts.OutputSchemas {
		rt.tool.OutputSchema = nil // the one output policy: see ServerOptions.OutputSchemas
	}
	if generate == nil {
		// A schema the server wrote itself is checked now, so a keyword nothing
		// validates panics at registration. A generated one compiles on the tool's
		// first call (most of a start's work otherwise); Server.CheckTools compiles
		// every one, and mcpkittest does so for every server it connects to.
		if _, err := rt.validator(s); err != nil {
			panic(err.Error())
		}
	}
	rt.headers = xMCPHeaders(tool.InputSchema)
	switch tool.TaskSupport {
	case TaskForbidden:
	case TaskOptional, TaskRequired:
		s.tasks.capable.Store(true)
	default:
		panic(fmt.Sprintf("mcpkit: tool %q has an unknown TaskSupport %q", tool.Name, tool.TaskSupport))
	}
	s.tools.put(tool.Name, rt)
}

// RemoveTools unregisters tools by name; listening clients hear of it when any was
// registered.
func (s *Server) RemoveTools(names ...string) { s.tools.remove(names...) }

// Tools returns the registered tools in registration order (what tools/list shows).
func (s *Server) Tools() []Tool {
	all := s.tools.all()
	out := make([]Tool, len(all))
	for i, rt := range all {
		out[i] = rt.tool
	}
	return out
}

func (s *Server) tool(name string) *registeredTool {
	rt, _ := s.tools.get(name)
	return rt
}

type listToolsResult struct {
	resultBase
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
}

func (s *Server) listTools(_ context.Context, req *Request) (any, error) {
	cursor, err := cursorParam(req)
	if err != nil {
		return nil, err
	}
	tools := s.Tools()
	if visible := s.opts.ToolVisible; visible != nil {
		tools = slices.DeleteFunc(tools, func(t Tool) bool { return !visible(req, t.Name) })
	}
	if !req.Modern() {
		// Legacy revisions require an object output schema: leave others out.
		for i := range tools {
			if len(tools[i].OutputSchema) > 0 && !schemaRootIsObject(tools[i].OutputSchema) {
				tools[i].OutputSchema = nil
			}
		}
	}
	page, next, err := paginate(tools, cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &listToolsResult{Tools: page, NextCursor: next}, nil
}

// callParams are the params of tools/call, resources/read and prompts/get, including
// the multi-round-trip fields.
type callParams struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
	TaskID         string                     `json:"taskId"` // tasks/get, tasks/update, tasks/cancel
}

func (s *Server) callTool(ctx context.Context, req *Request) (any, error) {
	p, err := req.call()
	if err != nil {
		return nil, InvalidParams("invalid tools/call params: %s", describeJSONError(err))
	}
	if p.Name == "" {
		return nil, InvalidParams(`tools/call needs "name": one of the names tools/list returns`)
	}
	req.Name = p.Name
	rt := s.tool(p.Name)
	if rt != nil && s.opts.ToolVisible != nil && !s.opts.ToolVisible(req, p.Name) {
		rt = nil // hidden from this request: as unknown as a tool never registered
	}
	if rt == nil {
		if _, ok := s.withheld.Load(p.Name); ok {
			hint := s.opts.WritesHint
			if hint == "" {
				hint = "restart the server with --allow-writes"
			}
			return nil, InvalidParams("tool %q changes things, and this server runs read-only: %s", p.Name, hint)
		}
		return nil, InvalidParams("unknown tool %q: call tools/list for the available tools", p.Name)
	}
	withTasks := req.Modern() && req.Meta.ClientCapabilities.HasExtension(ExtensionTasks)
	if rt.tool.TaskSupport == TaskRequired && !withTasks {
		return nil, missingTasksExtension("tool %q runs only as a task, which needs the %s extension: the client did not declare it in this request's capabilities", p.Name, ExtensionTasks)
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' {
		return nil, InvalidParams(`tools/call "arguments" must be an object`)
	}
	args = dropNullOptionals(args, rt.requiredNames())
	if err := s.resume(ctx, req, p, args); err != nil {
		return nil, err
	}
	validate, err := rt.validator(s)
	if err != nil {
		return nil, err
	}
	if msg := validate(args); msg != "" {
		return ToolError(fmt.Sprintf("invalid arguments for tool %s: %s", p.Name, msg)), nil
	}
	if withTasks && rt.tool.TaskSupport != TaskForbidden {
		return s.tasks.call(ctx, req, rt, args)
	}
	res, err := s.runTool(ctx, req, rt, args)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// runTool runs a tool's handler on validated arguments and makes its result one
// tools/call answers with: a Go error becomes an isError result, an *Error,
// ErrInputRequired or the end of ctx is returned as an error.
func (s *Server) runTool(ctx context.Context, req *Request, rt *registeredTool, args json.RawMessage) (*CallToolResult, error) {
	res, err := rt.handler(ctx, req, args)
	if err != nil {
		var rpcErr *Error
		if errors.As(err, &rpcErr) || errors.Is(err, ErrInputRequired) || ctx.Err() != nil {
			return nil, err
		}
		return ToolError(err.Error()), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	if !req.Modern() && res.StructuredContent != nil && !rt.objectOut {
		out := *res
		out.StructuredContent = nil
		res = &out
	}
	return res, nil
}

// ToolHeaders returns the x-mcp-header mapping of a tool (argument name to header
// name suffix), for the HTTP transport's header validation.
func (s *Server) toolHeaders(name string) map[string]string {
	if rt := s.tool(name); rt != nil {
		return rt.headers
	}
	return nil
}

// xMCPHeaders finds top-level properties marked with x-mcp-header.
func xMCPHeaders(schema json.RawMessage) map[string]string {
	if !bytes.Contains(bytes.ToLower(schema), []byte(`"x-mcp-header"`)) {
		return nil // most schemas: no decoding at registration
	}
	var sc struct {
		Properties map[string]struct {
			Header string `json:"x-mcp-header"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &sc) != nil {
		return nil
	}
	var out map[string]string
	for name, p := range sc.Properties {
		if p.Header != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = p.Header
		}
	}
	return out
}

func schemaRootIsObject(schema json.RawMessage) bool {
	var sc struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(schema, &sc) != nil {
		return false
	}
	return sc.Type == "object"
}
