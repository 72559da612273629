package mcpkit

import (
	"context"
	"log/slog"
)

// Audit returns an [Observer] that logs one line per request once its response is
// encoded: method, the tool or prompt name or resource URI ([Request].Name), the
// caller's subject and issuer ("static" for static tokens) when authenticated,
// outcome, duration, response size, error code, and the client's trace context
// (trace_id, span_id) when _meta carried a traceparent. It never logs arguments, results or tokens. Install it with
// [Server.Observe], or let the serve package do it.
func Audit(logger *slog.Logger) Observer {
	return func(ctx context.Context, req *Request, resp Response) {
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs, slog.String("method", req.Method))
		if req.Name != "" {
			attrs = append(attrs, slog.String("name", clip(req.Name)))
		}
		if req.Subject != "" {
			attrs = append(attrs, slog.String("subject", clip(req.Subject)))
		}
		if req.Issuer != "" {
			attrs = append(attrs, slog.String("issuer", clip(req.Issuer)))
		}
		attrs = append(attrs,
			slog.String("outcome", resp.Outcome),
			slog.Float64("duration_ms", float64(resp.Duration.Microseconds())/1000),
			slog.Int("bytes", resp.Bytes))
		if resp.Code != 0 {
			attrs = append(attrs, slog.Int("code", resp.Code))
		}
		attrs = append(attrs, req.traceAttrs()...)
		logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "mcp request", attrs...)
	}
}
