package otelmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Attribute keys of the MCP semantic conventions (and the general ones they use).
const (
	attrMethod          = "mcp.method.name"
	attrProtocolVersion = "mcp.protocol.version"
	attrSessionID       = "mcp.session.id"
	attrRequestID       = "jsonrpc.request.id"
	attrToolName        = "gen_ai.tool.name"
	attrPromptName      = "gen_ai.prompt.name"
	attrOperationName   = "gen_ai.operation.name"
	attrToolArguments   = "gen_ai.tool.call.arguments"
	attrStatusCode      = "rpc.response.status_code"
	attrErrorType       = "error.type"
	attrTransport       = "network.transport"
	attrProtocolName    = "network.protocol.name"
)

// maxArguments caps the opt-in gen_ai.tool.call.arguments attribute.
const maxArguments = 1024

// Instrument makes s report spans and metrics: a [mcpkit.Middleware] for requests
// and a [mcpkit.LifecycleObserver] for notifications and session ends. Install it
// before other middleware, so that the server span encloses them.
func (t *Telemetry) Instrument(s *mcpkit.Server) {
	s.Use(t.Middleware())
	s.ObserveLifecycle(mcpkit.LifecycleObserver{Notification: t.notification, SessionEnded: t.sessionEnded})
}

// Middleware makes the server span of each request, current in the context the
// handler (and so every backend call it makes, and a task's work) runs in, and
// records mcp.server.operation.duration.
func (t *Telemetry) Middleware() mcpkit.Middleware {
	return func(next mcpkit.MethodHandler) mcpkit.MethodHandler {
		return func(ctx context.Context, req *mcpkit.Request) (res any, err error) {
			start := time.Now()
			ctx = t.parent(ctx, req.Meta.Traceparent, req.Meta.Tracestate, req.Meta.Raw)
			common := t.commonAttrs(req.Method, req.Meta.ProtocolVersion, req.Transport())
			spanAttrs := append(common, attribute.String(attrRequestID, requestID(req.ID)))
			if id := req.SessionID(); id != "" {
				spanAttrs = append(spanAttrs, attribute.String(attrSessionID, id))
			}
			if t.opts.RecordToolArguments && req.Method == "tools/call" {
				if a := toolArguments(req.Params); a != "" {
					spanAttrs = append(spanAttrs, attribute.String(attrToolArguments, a))
				}
			}
			ctx, span := t.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithTimestamp(start), trace.WithAttributes(spanAttrs...))
			defer func() {
				if p := recover(); p != nil {
					t.end(ctx, span, req, start, common, nil, errors.New("panic"))
					panic(p)
				}
			}()
			res, err = next(ctx, req)
			t.end(ctx, span, req, start, common, res, err)
			return res, err
		}
	}
}

// end names the span after its target, sets its outcome, ends it and records the
// operation's duration.
func (t *Telemetry) end(ctx context.Context, span trace.Span, req *mcpkit.Request, start time.Time, common []attribute.KeyValue, res any, err error) {
	var out []attribute.KeyValue
	errType, code, failed := classify(ctx, res, err)
	// The target is the tool or prompt name the handler found in params; not when the
	// params were refused (an unknown name is whatever the caller sent).
	if req.Name != "" && code != mcpkit.CodeInvalidParams {
		switch req.Method {
		case "tools/call":
			out = append(out, attribute.String(attrToolName, req.Name), attribute.String(attrOperationName, "execute_tool"))
			span.SetName(req.Method + " " + req.Name)
		case "prompts/get":
			out = append(out, attribute.String(attrPromptName, req.Name))
			span.SetName(req.Method + " " + req.Name)
		}
	}
	if code != 0 {
		out = append(out, attribute.String(attrStatusCode, strconv.Itoa(code)))
	}
	if errType != "" {
		out = append(out, attribute.String(attrErrorType, errType))
	}
	span.SetAttributes(out...)
	if failed {
		// Not the error's message: it may quote what the caller sent.
		span.SetStatus(codes.Error, errType)
	}
	end := time.Now()
	span.End(trace.WithTimestamp(end))
	t.opDuration.Record(ctx, end.Sub(start).Seconds(), metric.WithAttributes(append(common, out...)...))
}

// classify reads the outcome the conventions record: error.type, the JSON-RPC error
// code (0 for a result) and whether the span's status is an error.
func classify(ctx context.Context, res any, err error) (errType string, code int, failed bool) {
	switch {
	case err == nil:
		if r, ok := res.(*mcpkit.CallToolResult); ok && r.IsError {
			return "tool_error", 0, true
		}
		return "", 0, false
	case errors.Is(err, mcpkit.ErrInputRequired):
		return "", 0, false // the server asked the client for input: a normal answer
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return "cancelled", 0, false // the client went away or cancelled: not the server's failure
	}
	code = mcpkit.CodeInternalError
	var rpcErr *mcpkit.Error
	if errors.As(err, &rpcErr) {
		code = rpcErr.Code
	}
	switch code {
	case mcpkit.CodeParseError, mcpkit.CodeInvalidRequest, mcpkit.CodeMethodNotFound, mcpkit.CodeInvalidParams, mcpkit.CodeResourceNotFoundLegacy:
		// The caller sent a request the server could not serve: not an error of the server.
		return "", code, false
	}
	return strconv.Itoa(code), code, true
}

// commonAttrs are the attributes spans and the operation metric share.
func (t *Telemetry) commonAttrs(method, version, transport string) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 10)
	a = append(a, attribute.String(attrMethod, method))
	if version != "" {
		a = append(a, attribute.String(attrProtocolVersion, version))
	}
	if transport == "http" {
		a = append(a, attribute.String(attrTransport, "tcp"), attribute.String(attrProtocolName, "http"))
	} else {
		a = append(a, attribute.String(attrTransport, "pipe"))
	}
	return a
}

// parent returns ctx with the trace context of _meta as the remote parent (and its
// baggage), when _meta has a valid traceparent; otherwise ctx as it is, which holds
// the HTTP header's trace context when [Telemetry.Handler] found one.
func (t *Telemetry) parent(ctx context.Context, traceparent, tracestate string, raw json.RawMessage) context.Context {
	if traceparent == "" {
		return ctx
	}
	c := metaCarrier{traceparent: traceparent, tracestate: tracestate}
	if bytes.Contains(raw, []byte(`"baggage"`)) {
		var m struct {
			Baggage string `json:"baggage"`
		}
		if json.Unmarshal(raw, &m) == nil {
			c.baggage = m.Baggage
		}
	}
	out := t.prop.Extract(ctx, c)
	if !trace.SpanContextFromContext(out).IsValid() {
		return ctx // an invalid traceparent is ignored, as W3C says
	}
	return out
}

// metaCarrier reads the W3C trace context keys of a request's _meta.
type metaCarrier struct{ traceparent, tracestate, baggage string }

func (c metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.traceparent
	case "tracestate":
		return c.tracestate
	case "baggage":
		return c.baggage
	}
	return ""
}
func (c metaCarrier) Set(string, string) {}
func (c metaCarrier) Keys() []string     { return []string{"traceparent", "tracestate", "baggage"} }

// requestID is the JSON-RPC id as the conventions record it: a string id without
// its quotes, a number as written.
func requestID(id mcpkit.ID) string {
	s := id.String()
	if len(s) >= 2 && s[0] == '"' {
		var v string
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
	}
	return s
}

// toolArguments is a tools/call's arguments as JSON, cut at maxArguments (opt-in only).
func toolArguments(params json.RawMessage) string {
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Arguments) == 0 {
		return ""
	}
	if len(p.Arguments) > maxArguments {
		return string(p.Arguments[:maxArguments]) + "…"
	}
	return string(p.Arguments)
}

// notification makes the server span of a client notification and records its
// duration.
func (t *Telemetry) notification(n mcpkit.Notification) {
	var meta struct {
		Meta struct {
			Traceparent string `json:"traceparent"`
			Tracestate  string `json:"tracestate"`
		} `json:"_meta"`
	}
	var raw struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if bytes.Contains(n.Params, []byte(`"_meta"`)) {
		_ = json.Unmarshal(n.Params, &meta)
		_ = json.Unmarshal(n.Params, &raw)
	}
	ctx := t.parent(context.Background(), meta.Meta.Traceparent, meta.Meta.Tracestate, raw.Meta)
	common := t.commonAttrs(n.Method, n.ProtocolVersion, n.Transport)
	attrs := common
	if n.SessionID != "" {
		attrs = append(attrs, attribute.String(attrSessionID, n.SessionID))
	}
	_, span := t.tracer.Start(ctx, n.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(n.Start), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(n.Start.Add(n.Duration)))
	t.opDuration.Record(ctx, n.Duration.Seconds(), metric.WithAttributes(common...))
}

// sessionEnded records mcp.server.session.duration.
func (t *Telemetry) sessionEnded(e mcpkit.SessionEnd) {
	a := make([]attribute.KeyValue, 0, 3)
	if e.ProtocolVersion != "" {
		a = append(a, attribute.String(attrProtocolVersion, e.ProtocolVersion))
	}
	if e.Transport == "http" {
		a = append(a, attribute.String(attrProtocolName, "http"))
	}
	t.sessionDuration.Record(context.Background(), e.Duration.Seconds(), metric.WithAttributes(a...))
}
