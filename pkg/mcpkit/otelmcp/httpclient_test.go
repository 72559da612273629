package otelmcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
)

// retryOnce sends a request a second time when the first answer is a 503, as the
// servers' retry layers do.
type retryOnce struct{ next http.RoundTripper }

func (r retryOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusServiceUnavailable {
		resp.Body.Close()
		return r.next.RoundTrip(req.Clone(req.Context()))
	}
	return resp, err
}

// TestHTTPClientSpans: one client span per call with its retries counted, named by
// the route template; traceparent goes upstream only when asked for.
func TestHTTPClientSpans(t *testing.T) {
	var calls atomic.Int32
	var sawTraceparent atomic.Value
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawTraceparent.Store(r.Header.Get("traceparent"))
		if calls.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer upstream.Close()
	for _, propagate := range []bool{false, true} {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		h := &otelmcp.HTTPClient{Route: func(string) string { return "/items/{id}" }, Propagate: propagate, TracerProvider: tp}
		client := &http.Client{Transport: h.Wrap(retryOnce{h.Attempts(http.DefaultTransport)})}
		ctx, parent := tp.Tracer("t").Start(context.Background(), "tools/call x")
		req, _ := http.NewRequestWithContext(ctx, "GET", upstream.URL+"/items/sk-live-PLANTED", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		parent.End()
		if req.Header.Get("traceparent") != "" {
			t.Errorf("the caller's request headers were changed")
		}
		s := find(t, exp.GetSpans(), "GET /items/{id}")
		a := attrs(s.Attributes)
		if a["http.request.resend_count"] != "1" || a["http.response.status_code"] != "404" || a["error.type"] != "404" || a["url.template"] != "/items/{id}" {
			t.Errorf("propagate=%v: attributes %v", propagate, a)
		}
		if s.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("the client span is not under the call's span")
		}
		if got := sawTraceparent.Load().(string); (got != "") != propagate {
			t.Errorf("propagate=%v: upstream saw traceparent %q", propagate, got)
		}
	}
}
