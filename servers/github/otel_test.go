package github

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/jaegertest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// TestOpenTelemetryTraceInJaeger (issue 31): mcp-server-github on stdio with --otel,
// against the fake GitHub, exporting to a real Jaeger: a list_issues call from an
// agent that sent its traceparent in _meta leaves one trace with the agent's span,
// the server's span and, under it, the API call's client span (method, host, route
// template, status), without the token, the owner or the repository; and, as
// OTEL_MCP_PROPAGATE_UPSTREAM is not set, no traceparent reached GitHub.
func TestOpenTelemetryTraceInJaeger(t *testing.T) {
	j := jaegertest.Start(t) // skipped without jaeger, except in CI
	f := newFake(t)
	var mu sync.Mutex
	var upstreamTraceparent []string
	f.override("GET /api/v3/repos/octo/hello/issues", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		upstreamTraceparent = append(upstreamTraceparent, r.Header.Get("traceparent"))
		mu.Unlock()
		f.mux.ServeHTTP(w, r)
	})
	env := []string{"GITHUB_HOST=" + f.srv.URL, "GITHUB_TOKEN=" + testToken, "GITHUB_ALLOW_WRITES=", "GITHUB_REPOS=",
		"GITHUB_TOOLSETS=", "GITHUB_TOOLS=", "GITHUB_LOCKDOWN=", "OTEL_MCP_PROPAGATE_UPSTREAM=", "OTEL_METRICS_EXPORTER=none"}
	for _, name := range serve.StandardEnv() {
		env = append(env, name+"=")
	}
	cmd := exec.Command(serverBinary(t), "--otel")
	cmd.Env = append(os.Environ(), append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+j.OTLPEndpoint, "MCP_AUDIT=false")...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := mcpkittest.ConnectStream(t, stdout, stdin, mcpkit.Revision20260728, nil)
	traceparent, traceID, end := j.ClientSpan(t, "agent lists issues")
	params := c.WithMeta(map[string]any{"name": "list_issues", "arguments": map[string]any{"owner": "octo", "repo": "hello", "state": "all"}})
	params["_meta"].(map[string]any)["traceparent"] = traceparent
	c.Call("tools/call", params)
	end()
	realclient.EndStdio(cmd, stdin)

	const route = "GET /api/v3/repos/{owner}/{repo}/issues"
	spans, raw := j.Trace(t, traceID, func(s []jaegertest.Span) bool {
		_, ok := jaegertest.Named(s, route)
		return ok
	})
	server, ok := jaegertest.Named(spans, "tools/call list_issues")
	if !ok {
		t.Fatalf("no server span: %s", raw)
	}
	api, _ := jaegertest.Named(spans, route)
	if api.Parent() != server.SpanID {
		t.Errorf("the API call's span's parent is %q, want the server span %q", api.Parent(), server.SpanID)
	}
	for key, want := range map[string]string{"http.request.method": "GET", "server.address": "127.0.0.1",
		"url.template": "/api/v3/repos/{owner}/{repo}/issues", "http.response.status_code": "200", "span.kind": "client"} {
		if got, _ := api.Tag(key); got != want {
			t.Errorf("API span %s = %q, want %q", key, got, want)
		}
	}
	if bytes.Contains(raw, []byte(testToken)) || bytes.Contains(raw, []byte("octo")) {
		t.Errorf("the trace holds the token or the repository's name:\n%s", raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(upstreamTraceparent) == 0 {
		t.Fatal("the fake saw no list-issues request")
	}
	for _, tp := range upstreamTraceparent {
		if tp != "" {
			t.Errorf("GitHub was sent traceparent %q without OTEL_MCP_PROPAGATE_UPSTREAM", tp)
		}
	}
}
