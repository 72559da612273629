package otelmcp

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// EnvPropagateUpstream, when true, sends the trace context on to the upstream APIs
// a server calls (GitHub, Sentry) as a traceparent header. Off by default: it tells
// a third party when and how long this server worked on a call.
const EnvPropagateUpstream = "OTEL_MCP_PROPAGATE_UPSTREAM"

// HTTPClient makes client spans of a backend's HTTP calls: one span per call
// (retries included), named `{method} {route}` with http.request.method,
// server.address, url.template, http.response.status_code, http.request.resend_count
// and error.type; never the URL's path values, query, headers or bodies.
type HTTPClient struct {
	// Route maps a request path to its template (/repos/{owner}/{repo}/issues), so
	// that no owner, repository or number becomes part of a span name. Nil, or an
	// empty answer, names the span by the method alone.
	Route func(path string) string
	// Propagate sends traceparent (and tracestate, baggage) on to the upstream.
	Propagate bool
	// TracerProvider (nil: OpenTelemetry's global one, which otelmcp.FromEnv sets).
	TracerProvider trace.TracerProvider
}

// HTTPClientFromEnv is an HTTPClient with Propagate read from OTEL_MCP_PROPAGATE_UPSTREAM.
func HTTPClientFromEnv(getenv func(string) string, route func(string) string) (*HTTPClient, error) {
	p, err := envBool(getenv, EnvPropagateUpstream)
	if err != nil {
		return nil, err
	}
	return &HTTPClient{Route: route, Propagate: p}, nil
}

type attemptsKey struct{}

// Wrap makes the call's span around next, the whole client stack (retries
// included). Attempts, innermost, counts what reached the network.
func (h *HTTPClient) Wrap(next http.RoundTripper) http.RoundTripper {
	tp := h.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &clientSpans{h: h, next: next, tr: tp.Tracer(scope + "/http")}
}

// Attempts counts each attempt that reaches next (the network transport), for
// http.request.resend_count on the span Wrap made.
func (h *HTTPClient) Attempts(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return attempts{next}
}

type attempts struct{ next http.RoundTripper }

func (a attempts) RoundTrip(req *http.Request) (*http.Response, error) {
	if n, ok := req.Context().Value(attemptsKey{}).(*atomic.Int32); ok {
		n.Add(1)
	}
	return a.next.RoundTrip(req)
}

type clientSpans struct {
	h    *HTTPClient
	next http.RoundTripper
	tr   trace.Tracer
}

func (c *clientSpans) RoundTrip(req *http.Request) (*http.Response, error) {
	name := req.Method
	route := ""
	if c.h.Route != nil {
		route = c.h.Route(req.URL.Path)
	}
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", req.Method),
		attribute.String("server.address", req.URL.Hostname()),
	}
	if route != "" {
		name += " " + route
		attrs = append(attrs, attribute.String("url.template", route))
	}
	if p := req.URL.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			attrs = append(attrs, attribute.Int("server.port", n))
		}
	}
	var n atomic.Int32
	ctx := context.WithValue(req.Context(), attemptsKey{}, &n)
	ctx, span := c.tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	out := req.WithContext(ctx)
	if c.h.Propagate {
		out = out.Clone(ctx) // never change the caller's headers
		propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}).Inject(ctx, propagation.HeaderCarrier(out.Header))
	}
	resp, err := c.next.RoundTrip(out)
	if k := n.Load(); k > 1 {
		span.SetAttributes(attribute.Int("http.request.resend_count", int(k-1)))
	}
	switch {
	case err != nil:
		errType := "error"
		if ctx.Err() != nil {
			errType = "timeout"
		}
		span.SetAttributes(attribute.String("error.type", errType))
		span.SetStatus(codes.Error, errType)
	default:
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetAttributes(attribute.String("error.type", strconv.Itoa(resp.StatusCode)))
			span.SetStatus(codes.Error, "")
		}
	}
	return resp, err
}
