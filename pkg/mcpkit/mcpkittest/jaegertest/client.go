package jaegertest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ClientSpan plays the agent: it starts a client span named name, exported to j
// under service.name "test-agent", and returns the traceparent to send in _meta,
// the trace id, and end, which ends the span and exports it.
func (j *Jaeger) ClientSpan(t testing.TB, name string) (traceparent, traceID string, end func()) {
	t.Helper()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(j.OTLPEndpoint+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "test-agent"))))
	ctx, span := tp.Tracer("jaegertest").Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier["traceparent"], span.SpanContext().TraceID().String(), func() {
		span.End()
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Errorf("exporting the client span: %v", err)
		}
	}
}
