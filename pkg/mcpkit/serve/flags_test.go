package serve_test

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

func parseServeFlags(t *testing.T, args ...string) (*serve.Options, error) {
	t.Helper()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return sf.Options()
}

// clearServeEnv unsets every variable the standard flags read, for the test.
func clearServeEnv(t *testing.T) {
	for _, e := range serve.StandardEnv() {
		t.Setenv(e, "")
	}
}

func TestServeFlagsAndEnvironment(t *testing.T) {
	clearServeEnv(t)
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(auth.HashStaticToken(strings.Repeat("t", 32))+" ops mcp,notes:write\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "state.key")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Flags win over the environment; the environment fills what flags leave out.
	t.Setenv("MCP_MAX_CONCURRENT", "99")
	t.Setenv("MCP_TOOL_TIMEOUT", "45s")
	t.Setenv("MCP_MAX_STREAMS_PER_CALLER", "4")
	t.Setenv("MCP_AUTH_RESOURCE", "https://mcp.example.com/mcp")
	t.Setenv("MCP_STATE_KEY_FILE", keyFile)
	o, err := parseServeFlags(t, "--http", ":8080", "--max-concurrent", "8", "--auth-static-file", tokens,
		"--auth-scopes", "mcp", "--allowed-origins", "https://app.example.com, https://b.example.com", "--drain-delay", "5s", "--audit=false")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"addr": o.HTTPAddr, "path": o.Path, "max": o.HTTP.MaxConcurrentPerCaller, "toolTimeout": o.ToolTimeout,
		"origins": o.HTTP.AllowedOrigins, "drain": o.DrainDelay, "audit": o.Audit, "key": len(o.StateKey),
		"resource": o.Auth.Resource, "scopes": o.Auth.Scopes, "streams": o.HTTP.MaxStreams,
		"lifetime": o.HTTP.StreamLifetime, "shutdown": o.ShutdownTimeout, "body": o.HTTP.MaxBodyBytes,
		"callerStreams": o.HTTP.MaxStreamsPerCaller,
	}
	want := map[string]any{
		"addr": ":8080", "path": "/mcp", "max": 8, "toolTimeout": 45 * time.Second,
		"origins": []string{"https://app.example.com", "https://b.example.com"}, "drain": 5 * time.Second, "audit": false, "key": 32,
		"resource": "https://mcp.example.com/mcp", "scopes": []string{"mcp"}, "streams": 1000,
		"lifetime": 30 * time.Minute, "shutdown": 10 * time.Second, "body": int64(4 << 20),
		"callerStreams": 4,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	p, err := o.Auth.Verifier.Verify(context.Background(), strings.Repeat("t", 32))
	if err != nil || p.Subject != "ops" || !slices.Equal(p.Scopes, []string{"mcp", "notes:write"}) {
		t.Errorf("the static token file was not loaded: %+v %v", p, err)
	}
}

func TestServeFlagsWithIssuer(t *testing.T) {
	clearServeEnv(t)
	is := remotetest.NewIssuer(t, "rfc8414", "")
	t.Setenv("MCP_AUTH_ISSUER", is.Issuer)
	t.Setenv(serve.EnvAuthStaticTokens, strings.Repeat("s", 32)+" robot mcp")
	o, err := parseServeFlags(t, "--http", "127.0.0.1:0", "--auth-resource", "https://mcp.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if o.HTTP.MaxStreamsPerCaller != mcpkit.DefaultMaxStreamsPerCaller {
		t.Errorf("--max-streams-per-caller defaults to %d, want %d", o.HTTP.MaxStreamsPerCaller, mcpkit.DefaultMaxStreamsPerCaller)
	}
	if diff := cmp.Diff([]string{is.Issuer}, o.Auth.AuthorizationServers); diff != "" {
		t.Errorf("authorization servers (-want +got):\n%s", diff)
	}
	tok := remotetest.Sign(t, is.EC1, jose.ES256, "ec-1", map[string]any{"iss": is.Issuer, "aud": "https://mcp.example.com/mcp", "sub": "jwt-user", "exp": time.Now().Add(time.Minute).Unix()})
	for token, subject := range map[string]string{tok: "jwt-user", strings.Repeat("s", 32): "robot"} {
		if p, err := o.Auth.Verifier.Verify(context.Background(), token); err != nil || p.Subject != subject {
			t.Errorf("verifying a %s token: %+v %v", subject, p, err)
		}
	}
}

func TestServeFlagsRefuseIncompleteSettings(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(auth.HashStaticToken("x")+" ops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"verifier without resource", nil, []string{"--http", ":1", "--auth-static-file", tokens}, "needs --auth-resource"},
		{"resource without verifier", nil, []string{"--http", ":1", "--auth-resource", "https://a.example/mcp"}, "need a token verifier"},
		{"authorization on stdio", nil, []string{"--auth-static-file", tokens, "--auth-resource", "https://a.example/mcp"}, "apply to HTTP only"},
		{"http resource", nil, []string{"--http", ":1", "--auth-static-file", tokens, "--auth-resource", "http://a.example/mcp"}, "must use https"},
		{"missing token file", nil, []string{"--http", ":1", "--auth-static-file", filepath.Join(dir, "nope"), "--auth-resource", "https://a.example/mcp"}, "reading static token file"},
		{"JWKS URL without issuer", nil, []string{"--http", ":1", "--auth-jwks-url", "https://a.example/jwks"}, "needs --auth-issuer"},
		{"HMAC algorithm", nil, []string{"--http", ":1", "--auth-issuer", "https://auth.example", "--auth-resource", "https://a.example/mcp", "--auth-algorithms", "HS256"}, `"HS256" is not accepted`},
		{"bad environment value", map[string]string{"MCP_MAX_CONCURRENT": "many"}, nil, "MCP_MAX_CONCURRENT"},
		{"bad state key", map[string]string{serve.EnvStateKey: "short"}, nil, "MCP_STATE_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearServeEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, err := parseServeFlags(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestOptionalPartsAreOptIn: a server whose main did not set Flags.JWT or
// Flags.Reporter refuses the settings it cannot honour instead of ignoring them;
// one that did gets them.
func TestOptionalPartsAreOptIn(t *testing.T) {
	clearServeEnv(t)
	bare := func(args ...string) (*serve.Flags, error) {
		fs := flag.NewFlagSet("server", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		sf := serve.RegisterFlags(fs)
		return sf, fs.Parse(args)
	}
	sf, _ := bare("--http", ":1", "--auth-issuer", "https://auth.example", "--auth-resource", "https://a.example/mcp")
	if _, err := sf.Options(); err == nil || !strings.Contains(err.Error(), "this server was built without JWT verification") {
		t.Errorf("--auth-issuer without Flags.JWT: %v", err)
	}

	t.Setenv(serve.EnvSentryDSN, "https://key@sentry.example/1")
	sf, _ = bare()
	if _, err := sf.Options(); err == nil || !strings.Contains(err.Error(), "built without Sentry reporting") {
		t.Errorf("SENTRY_DSN without Flags.Reporter: %v", err)
	}
	sf, _ = bare()
	var release string
	rep := &nopReporter{}
	sf.Reporter = func(r string) (mcpkit.ErrorReporter, error) { release = r; return rep, nil }
	o, err := sf.Options()
	if err != nil || o.ErrorReporter != rep || release != mcpkit.Version {
		t.Errorf("Flags.Reporter: options %+v, %v; called with release %q", o, err, release)
	}
}

type nopReporter struct{}

func (*nopReporter) ReportPanic(*mcpkit.Request, any, []byte) {}
func (*nopReporter) ReportError(*mcpkit.Request, error)       {}

// fakeTelemetry records what Serve asks of a telemetry package.
type fakeTelemetry struct{ instrumented, shut bool }

func (f *fakeTelemetry) Instrument(*mcpkit.Server)           { f.instrumented = true }
func (f *fakeTelemetry) Handler(h http.Handler) http.Handler { return h }
func (f *fakeTelemetry) Shutdown(context.Context) error      { f.shut = true; return nil }

// TestOtelFlag: --otel (MCP_OTEL) is refused by a server built without a telemetry
// package, saying how to build one; with one, it is asked with enabled set and the
// flag set's name as the service, and Serve instruments the server and shuts the
// telemetry down.
func TestOtelFlag(t *testing.T) {
	clearServeEnv(t)
	if _, err := parseServeFlags(t, "--otel"); err == nil || !strings.Contains(err.Error(), "built without OpenTelemetry") {
		t.Fatalf("--otel without a telemetry package: %v", err)
	}
	if o, err := parseServeFlags(t); err != nil || o.Telemetry != nil {
		t.Fatalf("no --otel: %v, %v", o, err)
	}
	fs := flag.NewFlagSet("mcp-server-x", flag.ContinueOnError)
	sf := serve.RegisterFlags(fs)
	tel := &fakeTelemetry{}
	var gotEnabled bool
	var gotService string
	sf.Telemetry = func(enabled bool, service, version string) (serve.Telemetry, error) {
		gotEnabled, gotService = enabled, service
		return tel, nil
	}
	t.Setenv("MCP_OTEL", "true")
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	o, err := sf.Options()
	if err != nil || o.Telemetry != tel || !gotEnabled || gotService != "mcp-server-x" {
		t.Fatalf("MCP_OTEL=true: telemetry %v, err %v, enabled %v, service %q", o.Telemetry, err, gotEnabled, gotService)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "x", Version: "1"}, &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	o.Stdin, o.Stdout = strings.NewReader(""), io.Discard
	if err := serve.Serve(ctx, s, o); err != nil {
		t.Fatal(err)
	}
	if !tel.instrumented || !tel.shut {
		t.Errorf("Serve: instrumented %v, shut down %v; want both", tel.instrumented, tel.shut)
	}
}
