package filesystem

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/jaegertest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestOpenTelemetryTraceInJaegerOverStdio (issue 31): a host runs
// mcp-server-filesystem on stdio with OTEL_EXPORTER_OTLP_ENDPOINT in its
// environment (no flag: the environment alone turns it on) and calls
// search_file_contents with its traceparent in _meta; Jaeger then holds one trace
// with the host's span, the server's span under it (transport pipe), and the search
// and its walk under that with their counts, and neither the pattern, the file's
// contents nor its name.
func TestOpenTelemetryTraceInJaegerOverStdio(t *testing.T) {
	j := jaegertest.Start(t) // skipped without jaeger, except in CI
	const planted = "sk-live-PLANTED-91ab2d"
	dir := t.TempDir()
	for name, body := range map[string]string{"a.txt": "nothing here\n", "secret-" + planted + ".txt": "token=" + planted + "\n", "sub/b.txt": "nor here\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(serverBinary(t), dir)
	cmd.Env = append(os.Environ(), cleanEnv("OTEL_EXPORTER_OTLP_ENDPOINT="+j.OTLPEndpoint, "OTEL_METRICS_EXPORTER=none")...)
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
	traceparent, traceID, end := j.ClientSpan(t, "host calls search")
	params := c.WithMeta(map[string]any{"name": "search_file_contents", "arguments": map[string]any{"pattern": planted, "literal": true}})
	params["_meta"].(map[string]any)["traceparent"] = traceparent
	res := c.Call("tools/call", params)
	end()
	if !bytes.Contains(res, []byte("secret-")) {
		t.Fatalf("the search did not find the planted file: %s", res)
	}
	realclient.EndStdio(cmd, stdin) // the server exports what it holds as it exits

	spans, raw := j.Trace(t, traceID, func(s []jaegertest.Span) bool {
		_, ok := jaegertest.Named(s, "filesystem.walk")
		return ok
	})
	host, _ := jaegertest.Named(spans, "host calls search")
	server, ok := jaegertest.Named(spans, "tools/call search_file_contents")
	if !ok || server.Parent() != host.SpanID {
		t.Fatalf("no server span under the host's span %s: %s", host.SpanID, raw)
	}
	if got, _ := server.Tag("network.transport"); got != "pipe" {
		t.Errorf("server span network.transport = %q, want pipe (stdio)", got)
	}
	search, _ := jaegertest.Named(spans, "filesystem.search_file_contents")
	walk, _ := jaegertest.Named(spans, "filesystem.walk")
	if search.Parent() != server.SpanID || walk.Parent() != search.SpanID {
		t.Errorf("want server → search → walk; parents: search %q (server %q), walk %q (search %q)", search.Parent(), server.SpanID, walk.Parent(), search.SpanID)
	}
	if got, _ := search.Tag("filesystem.search.matches"); got != "1" {
		t.Errorf("search matches = %q, want 1", got)
	}
	if got, _ := walk.Tag("filesystem.walk.entries"); got != "4" { // three files and a directory
		t.Errorf("walk entries = %q, want 4", got)
	}
	if bytes.Contains(raw, []byte(planted)) {
		t.Errorf("the trace holds the pattern, a file name or the file's contents:\n%s", raw)
	}
}
