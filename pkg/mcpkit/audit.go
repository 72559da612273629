package mcpkit

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Outcomes of a request as the audit line reports them.
const (
	OutcomeOK            = "ok"             // a result
	OutcomeToolError     = "isError"        // a tool result with isError: the tool failed, the protocol did not
	OutcomeError         = "error"          // a JSON-RPC error
	OutcomeCancelled     = "cancelled"      // the client went away or cancelled; nothing was sent
	OutcomeInputRequired = "input_required" // the server asked the client for input (multi round trip)
)

// AuditMiddleware logs one line per request after its response is sent: method, the
// tool or prompt name or resource URI (Request.Name), the caller's subject when
// authenticated, duration, outcome, response size, error code, and the client's
// trace context (trace_id, span_id) when _meta carried a traceparent. It never logs
// arguments, results or tokens. Install it with Server.Use, or let serve.Serve do it.
func AuditMiddleware(logger *slog.Logger) Middleware {
	return func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, req *Request) (any, error) {
			start := time.Now()
			res, err := next(ctx, req)
			outcome := auditOutcome(ctx, res, err)
			req.onResponse = func(bytes, code int) {
				attrs := make([]slog.Attr, 0, 10)
				attrs = append(attrs, slog.String("method", req.Method))
				if req.Name != "" {
					attrs = append(attrs, slog.String("name", clip(req.Name)))
				}
				if req.Subject != "" {
					attrs = append(attrs, slog.String("subject", clip(req.Subject)))
				}
				attrs = append(attrs,
					slog.String("outcome", outcome),
					slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
					slog.Int("bytes", bytes))
				if code != 0 {
					attrs = append(attrs, slog.Int("code", code))
				}
				attrs = append(attrs, req.traceAttrs()...)
				logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "mcp request", attrs...)
			}
			return res, err
		}
	}
}

// auditOutcome classifies what a handler returned.
func auditOutcome(ctx context.Context, res any, err error) string {
	switch {
	case err == nil:
		if r, ok := res.(*CallToolResult); ok && r.IsError {
			return OutcomeToolError
		}
		return OutcomeOK
	case errors.Is(err, ErrInputRequired):
		return OutcomeInputRequired
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return OutcomeCancelled
	}
	return OutcomeError
}
