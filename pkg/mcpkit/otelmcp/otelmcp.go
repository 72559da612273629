// Package otelmcp makes OpenTelemetry traces and metrics of an mcpkit server,
// following OpenTelemetry's semantic conventions for MCP: a server span per request
// and per client notification (`{mcp.method.name} {target}`, kind server, with
// mcp.method.name, mcp.protocol.version, mcp.session.id, jsonrpc.request.id,
// gen_ai.tool.name, rpc.response.status_code and error.type), parented on the trace
// context the client sent in _meta (traceparent, tracestate, baggage) or, without
// one, on the HTTP request's traceparent header; and the histograms
// mcp.server.operation.duration and mcp.server.session.duration. It is the only
// package of mcpkit that links the OpenTelemetry SDK and the OTLP exporters, so a
// server that does not import it carries none of them.
//
// A server's main turns it on for the standard flags of package serve (exporting
// starts with --otel, or when OTEL_EXPORTER_OTLP_ENDPOINT is set) with:
//
//	sf := serve.RegisterFlags(fs)
//	sf.Telemetry = otelmcp.FromEnv
//
// Everything else is the standard OTEL_* environment: OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or grpc),
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER,
// OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER (otlp or none),
// OTEL_BSP_MAX_QUEUE_SIZE.
//
// Privacy: no tool argument, result, prompt argument, resource URI, SQL parameter,
// file content or token becomes an attribute, and a JSON-RPC error's message (which
// may quote what the caller sent) is not the span status description. The tool
// arguments attribute the conventions allow (gen_ai.tool.call.arguments) is opt-in
// ([Options.RecordToolArguments], OTEL_MCP_RECORD_TOOL_ARGUMENTS=true).
//
// An unreachable collector never slows or fails a call: finished spans go into a
// bounded queue that one goroutine exports; a span that finds the queue full is
// dropped and counted, and the counts appear in a log line (at most one a minute).
package otelmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// Environment variables this package reads besides the exporters' own OTEL_EXPORTER_OTLP_*.
const (
	EnvEndpoint            = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint      = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol            = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol      = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvMetricsProtocol     = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	EnvSDKDisabled         = "OTEL_SDK_DISABLED"
	EnvTracesExporter      = "OTEL_TRACES_EXPORTER"
	EnvMetricsExporter     = "OTEL_METRICS_EXPORTER"
	EnvQueueSize           = "OTEL_BSP_MAX_QUEUE_SIZE"
	EnvRecordToolArguments = "OTEL_MCP_RECORD_TOOL_ARGUMENTS"
)

// Options configure [New]. Tests pass an in-memory exporter and a manual reader;
// [FromEnv] builds OTLP exporters from the environment.
type Options struct {
	// SpanExporter receives finished spans through a bounded queue (nil: no traces).
	SpanExporter sdktrace.SpanExporter
	// MetricReader collects the metrics (nil: no metrics).
	MetricReader sdkmetric.Reader
	// Resource describes this process (nil: service.name from the server's name,
	// then OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES).
	Resource *resource.Resource
	// Sampler (nil: the SDK's default, which reads OTEL_TRACES_SAMPLER).
	Sampler sdktrace.Sampler
	// QueueSize bounds the spans waiting for export (default 2048).
	QueueSize int
	// BatchSize is the most spans one export sends (default 512); ExportInterval how
	// long a span may wait for a batch to fill (default 2 s).
	BatchSize      int
	ExportInterval time.Duration
	// RecordToolArguments adds a tools/call's arguments as gen_ai.tool.call.arguments
	// (at most 1 KiB). Off by default: arguments may carry personal data or secrets.
	RecordToolArguments bool
	// Logger receives the dropped-spans line and exporter errors (default: slog's default).
	Logger *slog.Logger
	// SetGlobal installs the providers and the W3C propagators as OpenTelemetry's
	// globals, so that backend instrumentation using otel.Tracer (pgx, HTTP clients)
	// joins the same traces. FromEnv sets it.
	SetGlobal bool
}

// Telemetry is a configured trace and meter provider and the instrumentation of
// mcpkit servers with them.
type Telemetry struct {
	opts   Options
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	queue  *queueProcessor

	opDuration, sessionDuration metric.Float64Histogram
}

// durationBuckets are the conventions' advice for MCP operation and session durations, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

const scope = "github.com/mcpkit/reference/pkg/mcpkit/otelmcp"

// New makes the providers. Nothing runs in the background unless a SpanExporter or
// a MetricReader is given.
func New(o Options) (*Telemetry, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	t := &Telemetry{opts: o, prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	res := o.Resource
	if res == nil {
		res = resource.Default()
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if o.Sampler != nil {
		topts = append(topts, sdktrace.WithSampler(o.Sampler))
	}
	if o.SpanExporter != nil {
		t.queue = newQueueProcessor(o.SpanExporter, o.QueueSize, o.BatchSize, o.ExportInterval, o.Logger)
		topts = append(topts, sdktrace.WithSpanProcessor(t.queue))
	}
	t.tp = sdktrace.NewTracerProvider(topts...)
	t.tracer = t.tp.Tracer(scope, trace.WithInstrumentationVersion(mcpkit.Version))
	var meter metric.Meter = metricnoop.Meter{}
	if o.MetricReader != nil {
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(o.MetricReader))
		meter = t.mp.Meter(scope, metric.WithInstrumentationVersion(mcpkit.Version))
	}
	var err error
	if t.opDuration, err = meter.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	if t.sessionDuration, err = meter.Float64Histogram("mcp.server.session.duration", metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP server."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	if o.SetGlobal {
		otel.SetTracerProvider(t.tp)
		if t.mp != nil {
			otel.SetMeterProvider(t.mp)
		}
		otel.SetTextMapPropagator(t.prop)
		otel.SetErrorHandler(rateLimitedErrors(o.Logger))
	}
	return t, nil
}

// TracerProvider returns the provider the server spans come from, for backend
// instrumentation that is not given the global one.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tp }

// Shutdown exports what is queued (within ctx) and stops the background work.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	err := t.tp.Shutdown(ctx)
	if t.mp != nil {
		err = errors.Join(err, t.mp.Shutdown(ctx))
	}
	return err
}

// ForceFlush exports every finished span and the metrics now.
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	err := t.tp.ForceFlush(ctx)
	if t.mp != nil {
		err = errors.Join(err, t.mp.ForceFlush(ctx))
	}
	return err
}

// Dropped reports how many finished spans were dropped because the queue was full,
// and how many were lost because their export failed.
func (t *Telemetry) Dropped() (queueFull, exportFailed int64) {
	if t.queue == nil {
		return 0, 0
	}
	return t.queue.dropped.Load(), t.queue.failed.Load()
}

// FromEnv is [serve.Flags.Telemetry] for a server that exports to an OTLP
// collector: it returns nil (nothing configured, nothing running) unless enabled
// (--otel) or OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ form) is set, and
// OTEL_SDK_DISABLED is not true. The exporters take the endpoint, headers, timeout
// and TLS settings from the OTEL_EXPORTER_OTLP_* variables themselves; without an
// endpoint they send to localhost (4318 for http/protobuf, 4317 for grpc).
func FromEnv(enabled bool, service, version string) (serve.Telemetry, error) {
	t, err := Load(enabled, service, version, nil)
	if t == nil || err != nil {
		return nil, err // no typed nil in the interface
	}
	return t, nil
}

// Load is [FromEnv] returning the *Telemetry, for a main that wants the provider
// (a nil logger logs to slog's default).
func Load(enabled bool, service, version string, logger *slog.Logger) (*Telemetry, error) {
	return fromEnv(context.Background(), os.Getenv, enabled, service, version, logger)
}

func fromEnv(ctx context.Context, getenv func(string) string, enabled bool, name, version string, logger *slog.Logger) (*Telemetry, error) {
	if disabled, _ := strconv.ParseBool(getenv(EnvSDKDisabled)); disabled {
		return nil, nil
	}
	if !enabled && getenv(EnvEndpoint) == "" && getenv(EnvTracesEndpoint) == "" {
		return nil, nil
	}
	o := Options{Logger: logger, SetGlobal: true}
	var err error
	if o.RecordToolArguments, err = envBool(getenv, EnvRecordToolArguments); err != nil {
		return nil, err
	}
	if q := getenv(EnvQueueSize); q != "" {
		if o.QueueSize, err = strconv.Atoi(q); err != nil || o.QueueSize < 1 {
			return nil, fmt.Errorf("%s=%q: want a positive number of spans, e.g. 2048", EnvQueueSize, q)
		}
	}
	// service.name defaults to the server's name; OTEL_RESOURCE_ATTRIBUTES and then
	// OTEL_SERVICE_NAME win over it (later sources win in resource.Merge).
	attrs := []attribute.KeyValue{attribute.String("service.name", name), attribute.String("service.version", version)}
	fromVars, err := resourceAttrs(getenv)
	if err != nil {
		return nil, err
	}
	sdk, err := resource.New(ctx, resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	if o.Resource, err = resource.Merge(sdk, resource.NewSchemaless(append(attrs, fromVars...)...)); err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	tracesOn, err := exporterOn(getenv, EnvTracesExporter)
	if err != nil {
		return nil, err
	}
	metricsOn, err := exporterOn(getenv, EnvMetricsExporter)
	if err != nil {
		return nil, err
	}
	tracesProto, err := protocol(getenv, EnvTracesProtocol)
	if err != nil {
		return nil, err
	}
	metricsProto, err := protocol(getenv, EnvMetricsProtocol)
	if err != nil {
		return nil, err
	}
	// The exporters last, once every setting has been read: none is left running
	// after an error.
	if tracesOn {
		if tracesProto == "grpc" {
			o.SpanExporter, err = otlptracegrpc.New(ctx)
		} else {
			o.SpanExporter, err = otlptracehttp.New(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry trace exporter: %w", err)
		}
	}
	if metricsOn {
		var exp sdkmetric.Exporter
		if metricsProto == "grpc" {
			exp, err = otlpmetricgrpc.New(ctx)
		} else {
			exp, err = otlpmetrichttp.New(ctx)
		}
		if err != nil {
			if o.SpanExporter != nil {
				_ = o.SpanExporter.Shutdown(ctx)
			}
			return nil, fmt.Errorf("OpenTelemetry metric exporter: %w", err)
		}
		o.MetricReader = sdkmetric.NewPeriodicReader(exp) // OTEL_METRIC_EXPORT_INTERVAL, default 60 s
	}
	return New(o)
}

// resourceAttrs reads OTEL_RESOURCE_ATTRIBUTES (key=value pairs, comma-separated,
// values percent-encoded) and then OTEL_SERVICE_NAME, as the specification says.
func resourceAttrs(getenv func(string) string) ([]attribute.KeyValue, error) {
	var out []attribute.KeyValue
	if v := strings.TrimSpace(getenv("OTEL_RESOURCE_ATTRIBUTES")); v != "" {
		for _, pair := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %q is not key=value (pairs are comma-separated)", strings.TrimSpace(pair))
			}
			dec, err := url.PathUnescape(strings.TrimSpace(val))
			if err != nil {
				return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: the value of %s is not percent-encoded correctly", k)
			}
			out = append(out, attribute.String(k, dec))
		}
	}
	if n := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); n != "" {
		out = append(out, attribute.String("service.name", n))
	}
	return out, nil
}

// exporterOn reads OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: otlp (the default) or none.
func exporterOn(getenv func(string) string, name string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); v {
	case "", "otlp":
		return true, nil
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("%s=%q: this server exports otlp (or none)", name, v)
	}
}

// protocol reads the signal's OTEL_EXPORTER_OTLP_*_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL.
func protocol(getenv func(string) string, signal string) (string, error) {
	name, v := signal, getenv(signal)
	if v == "" {
		name, v = EnvProtocol, getenv(EnvProtocol)
	}
	switch v {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("%s=%q: supported are http/protobuf (the default) and grpc", name, v)
}

func envBool(getenv func(string) string, name string) (bool, error) {
	v := getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

// rateLimitedErrors logs the SDK's errors (an exporter that cannot reach its
// collector, say) at most once a minute, with how many were not logged.
func rateLimitedErrors(logger *slog.Logger) otel.ErrorHandler {
	var lim limiter
	return otel.ErrorHandlerFunc(func(err error) {
		if n, ok := lim.allow(time.Minute); ok {
			logger.Warn("OpenTelemetry error", "error", err, "suppressed", n)
		}
	})
}

// Handler wraps an MCP HTTP endpoint so that a request whose _meta has no
// traceparent is parented on the HTTP request's traceparent header (and carries
// its baggage).
func (t *Telemetry) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("traceparent") != "" || r.Header.Get("baggage") != "" {
			r = r.WithContext(t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		}
		next.ServeHTTP(w, r)
	})
}
