package otelmcp

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestFromEnv: nothing is made (and no goroutine started) unless --otel or an OTLP
// endpoint asks for it and OTEL_SDK_DISABLED does not forbid it; bad values are
// refused with what is expected.
func TestFromEnv(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, tc := range []struct {
		name    string
		enabled bool
		env     map[string]string
		on      bool
		err     string
	}{
		{"nothing configured", false, nil, false, ""},
		{"disabled wins over the flag", true, map[string]string{EnvSDKDisabled: "true"}, false, ""},
		{"disabled wins over the endpoint", false, map[string]string{EnvEndpoint: "http://127.0.0.1:1", EnvSDKDisabled: "true"}, false, ""},
		{"bad protocol", true, map[string]string{EnvProtocol: "http/json"}, false, `OTEL_EXPORTER_OTLP_PROTOCOL="http/json": supported are http/protobuf (the default) and grpc`},
		{"bad exporter", true, map[string]string{EnvTracesExporter: "zipkin"}, false, `OTEL_TRACES_EXPORTER="zipkin"`},
		{"bad queue size", true, map[string]string{EnvQueueSize: "-1"}, false, "want a positive number of spans"},
		{"bad resource attributes", true, map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "team"}, false, `"team" is not key=value`},
		{"bad arguments switch", true, map[string]string{EnvRecordToolArguments: "maybe"}, false, "want true or false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel, err := fromEnv(context.Background(), func(k string) string { return tc.env[k] }, tc.enabled, "svc", "1", nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tel != nil) != tc.on {
				t.Fatalf("telemetry made: %v, want %v", tel != nil, tc.on)
			}
		})
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after: telemetry that is off started work", before, after)
	}

	// Configured: service.name from the server, overridden by OTEL_SERVICE_NAME.
	env := map[string]string{EnvEndpoint: "http://127.0.0.1:1", "OTEL_SERVICE_NAME": "from-env", EnvMetricsExporter: "none"}
	tel, err := fromEnv(context.Background(), func(k string) string { return env[k] }, false, "mcp-server-x", "1.2.3", nil)
	if err != nil || tel == nil {
		t.Fatalf("configured by the endpoint alone: %v, %v", tel, err)
	}
	defer tel.Shutdown(context.Background())
	if v, _ := tel.opts.Resource.Set().Value("service.name"); v.AsString() != "from-env" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", v.AsString())
	}
	if v, _ := tel.opts.Resource.Set().Value("service.version"); v.AsString() != "1.2.3" {
		t.Errorf("service.version %q", v.AsString())
	}
}
