package postgres

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/jaegertest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/remoteclient"
)

// planted is a secret a caller might send: in the statement's text, in its
// parameters and in the bearer token. It must reach no exported span.
const planted = "sk-live-PLANTED-5e1f0c"

// TestOpenTelemetryTraceInJaeger (issue 31): mcp-server-postgres serves HTTP with
// --otel, exporting to a real Jaeger; an agent's span (exported by the test) sends
// its traceparent in _meta with a query; Jaeger's query API then holds one trace
// with the agent's span, the server's `tools/call query` span under it with the MCP
// conventions' attributes, and the statement's span under that, and nowhere the
// statement's text, its parameters or the caller's token.
func TestOpenTelemetryTraceInJaeger(t *testing.T) {
	j := jaegertest.Start(t) // skipped without jaeger, except in CI
	d, _ := shopDB(t, Options{})
	_, addr := startHTTPInstance(t, []string{"DATABASE_URL=" + readerURL(t, d), "OTEL_EXPORTER_OTLP_ENDPOINT=" + j.OTLPEndpoint,
		"OTEL_SERVICE_NAME=pg-under-test", "MCP_AUTH_STATIC_TOKENS=" + auth.HashStaticToken(planted) + " agent"},
		"--otel", "--auth-resource", "http://127.0.0.1/mcp")
	traceparent, traceID, end := j.ClientSpan(t, "agent calls query")
	c := remoteclient.NewClient(t, "http://"+addr+"/mcp")
	c.Token = planted
	r := c.Do("tools/call", map[string]any{"name": "query", "_meta": map[string]any{"traceparent": traceparent},
		"arguments": map[string]any{"sql": "SELECT /* " + planted + " */ name FROM shop.customers WHERE name <> $1", "params": []any{planted}}})
	end()
	if r.Status != http.StatusOK || r.Err != nil || r.Tool(t).IsError {
		t.Fatalf("query failed: %d %s", r.Status, r.Body)
	}

	spans, raw := j.Trace(t, traceID, func(s []jaegertest.Span) bool {
		server, ok := jaegertest.Named(s, "tools/call query")
		for _, x := range s {
			if ok && x.OperationName == "SELECT "+d.Name && x.Parent() == server.SpanID {
				return true
			}
		}
		return false
	})
	agent, _ := jaegertest.Named(spans, "agent calls query")
	server, ok := jaegertest.Named(spans, "tools/call query")
	if !ok {
		t.Fatalf("no tools/call query span in the trace: %s", raw)
	}
	if server.Parent() != agent.SpanID || agent.SpanID == "" {
		t.Errorf("the server span's parent is %q, want the agent's span %q", server.Parent(), agent.SpanID)
	}
	for key, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "query",
		"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": mcpkit.Revision20260728,
		"network.transport": "tcp", "network.protocol.name": "http", "span.kind": "server"} {
		if got, _ := server.Tag(key); got != want {
			t.Errorf("server span %s = %q, want %q", key, got, want)
		}
	}
	if id, ok := server.Tag("jsonrpc.request.id"); !ok || id == "" {
		t.Errorf("server span has no jsonrpc.request.id")
	}
	// The tool's statement is the SELECT directly under the server span (the pool's
	// own queries, a new connection's setup, are spans too, under it).
	var stmt jaegertest.Span
	for _, s := range spans {
		if s.OperationName == "SELECT "+d.Name && s.Parent() == server.SpanID {
			stmt = s
		}
	}
	if stmt.SpanID == "" {
		t.Fatalf("no SELECT span under the server span %s: %s", server.SpanID, raw)
	}
	for key, want := range map[string]string{"db.system.name": "postgresql", "db.namespace": d.Name,
		"db.operation.name": "SELECT", "db.response.returned_rows": "2", "span.kind": "client"} {
		if got, _ := stmt.Tag(key); got != want {
			t.Errorf("statement span %s = %q, want %q", key, got, want)
		}
	}
	if bytes.Contains(raw, []byte(planted)) || bytes.Contains(raw, []byte("shop.customers")) {
		t.Errorf("the trace in Jaeger holds the statement's text, a parameter or the token:\n%s", raw)
	}
}
