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

// logRefused logs one line for a request refused before any handler ran (a parse
// error, a missing _meta, an unknown session, a header that disagrees with the body,
// an HTTP 4xx): what was wrong (the error's own message, clipped), never the payload.
// Without it such a request left no trace, though every other request logs one.
func (s *Server) logRefused(transport, method string, status int, e *Error) {
	attrs := make([]slog.Attr, 0, 5)
	attrs = append(attrs, slog.String("transport", transport))
	if method != "" {
		attrs = append(attrs, slog.String("method", clip(method)))
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	attrs = append(attrs, slog.Int("code", e.Code), slog.String("reason", clipReason(e.Message)))
	s.logger.LogAttrs(context.Background(), slog.LevelInfo, "mcp request refused", attrs...)
}

// clipReason bounds a refusal's message in a log line.
func clipReason(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
