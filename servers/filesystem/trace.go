package filesystem

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Walks and searches are child spans of the tool call's server span (package
// otelmcp, when the server opts in) with their counts, and never a path, a pattern
// or file contents. Without a span in the context (telemetry off, or the watcher's
// own walks) nothing is traced and nothing is spent.

var tracer = otel.Tracer("github.com/mcpkit/reference/servers/filesystem")

// traceOp starts span name under the call's span, or does nothing when there is
// none. end records the counts (attribute name, value pairs) and the outcome.
func traceOp(ctx context.Context, name string) (context.Context, func(err error, counts ...attribute.KeyValue)) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, func(error, ...attribute.KeyValue) {}
	}
	ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	return ctx, func(err error, counts ...attribute.KeyValue) {
		span.SetAttributes(counts...)
		if err != nil && !errors.Is(err, errStopWalk) {
			errType := "error"
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				errType = "cancelled"
			}
			span.SetAttributes(attribute.String("error.type", errType))
			span.SetStatus(codes.Error, errType)
		}
		span.End()
	}
}
