package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/getsentry/sentry-go"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	errorserver "github.com/mcpkit/reference/servers/errors"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, env(nil), strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("mcp-server-errors "+mcpkit.Version+"\n", out.String()); d != "" {
		t.Errorf("--version (-want +got):\n%s", d)
	}
}

// TestBadConfiguration: every mistake stops the server before anything is served,
// with a message that says what was wrong and what is expected, and no token echoed.
func TestBadConfiguration(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	const token = "sntrys_secret_value"
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--backend", "datadog"}, nil, `--backend "datadog" is not a backend: use sentry or local`},
		{nil, map[string]string{"ERRORS_BACKEND": "cloud"}, `--backend "cloud" is not a backend`},
		{[]string{"--backend", "sentry"}, nil, "--backend sentry needs SENTRY_AUTH_TOKEN"},
		{[]string{"--ingest", ":9000"}, map[string]string{"SENTRY_AUTH_TOKEN": token}, "--ingest apply to --backend local only"},
		{[]string{"--backend", "sentry", "--data", "/tmp/x", "--max-age", "1h"}, map[string]string{"SENTRY_AUTH_TOKEN": token}, "--data, --max-age apply to --backend local only"},
		{[]string{"--backend", "local", "--sentry-org", "acme"}, map[string]string{"SENTRY_AUTH_TOKEN": token}, "--sentry-org apply to --backend sentry only"},
		{nil, map[string]string{"SENTRY_AUTH_TOKEN": token, "SENTRY_URL": "http://sentry.example.com"}, "plain http, which would send the token unencrypted"},
		{nil, map[string]string{"SENTRY_AUTH_TOKEN": "sntrys abc"}, "contains whitespace or control characters"},
		{nil, map[string]string{"SENTRY_AUTH_TOKEN": token, "SENTRY_ORG": "acme/../x"}, "SENTRY_ORG"},
		{[]string{"--max-bytes", "lots"}, nil, `--max-bytes "lots" is not a size`},
		{[]string{"--max-bytes", "10KB"}, nil, "below the 1MiB minimum"},
		{nil, map[string]string{"ERRORS_MAX_AGE": "forever"}, `--max-age "forever" is not an age`},
		{[]string{"--max-age", "10s"}, nil, "below the one-minute minimum"},
		{[]string{"--dsn-key", "a key@host"}, nil, "--dsn-key: a DSN key is 1 to 128 letters"},
		{[]string{"--ingest", ""}, nil, "--ingest is empty"},
		{[]string{"--ingest", busy.Addr().String()}, nil, "choose another address with --ingest"},
		{nil, map[string]string{"HOME": ""}, "cannot find a per-user data directory"},
		{[]string{"stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--no-such-flag"}, nil, "flag provided but not defined: -no-such-flag"},
		{[]string{"--code-mapping", "example.com/shop"}, nil, "is not STACK_ROOT=SOURCE_ROOT"},
		{nil, map[string]string{"ERRORS_CODE_MAPPINGS": "a=/x;=/y"}, "ERRORS_CODE_MAPPINGS"},
		{[]string{"--in-app", " , "}, nil, "give a module or path prefix"},
		{[]string{"--ingest-only", "--http", "127.0.0.1:0"}, nil, "--ingest-only runs the collector, which serves no MCP"},
		{[]string{"--spotlight", "127.0.0.1:8969"}, map[string]string{"SENTRY_AUTH_TOKEN": token}, "--spotlight apply to --backend local only"},
		// With SENTRY_AUTH_TOKEN exported, a collector flag names the fix (issue #25).
		{[]string{"--ingest-only"}, map[string]string{"SENTRY_AUTH_TOKEN": token}, "SENTRY_AUTH_TOKEN is set, which selects the sentry backend: add --backend local"},
	}
	for _, tt := range tests {
		environ := map[string]string{"HOME": t.TempDir()}
		for k, v := range tt.env {
			environ[k] = v
		}
		var stderr bytes.Buffer
		err := run(context.Background(), tt.args, env(environ), strings.NewReader(""), io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q, env %v) = %v; want an error containing %q", tt.args, tt.env, err, tt.want)
		}
		if strings.Contains(stderr.String()+errString(err), "secret_value") {
			t.Errorf("run(%q, env %v) echoed the token: %s %v", tt.args, tt.env, stderr.String(), err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestDefaults(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f := registerFlags(fs)
	got := map[string]string{}
	for _, n := range []string{"backend", "ingest", "data", "dsn-key", "max-bytes", "max-age", "sentry-url", "sentry-org", "code-mapping", "in-app"} {
		got[n] = fs.Lookup(n).DefValue
	}
	want := map[string]string{"backend": "", "ingest": "127.0.0.1:8970", "data": "", "dsn-key": "", "max-bytes": "1GiB", "max-age": "30d", "sentry-url": "", "sentry-org": "", "code-mapping": "", "in-app": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("flag defaults (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		token, backend, want string
	}{
		{"", "", backendLocal},
		{"sntrys_x", "", backendSentry},
		{"sntrys_x", "LOCAL", backendLocal},
	} {
		f.backend = tc.backend
		if got, err := f.backendKind(fs, tc.token); err != nil || got != tc.want {
			t.Errorf("backendKind(token %q, --backend %q) = %q, %v; want %q", tc.token, tc.backend, got, err, tc.want)
		}
	}
	// Every flag of this server names its environment variable in its help.
	fs.VisitAll(func(fl *flag.Flag) {
		if e, ok := flagEnv[fl.Name]; ok && !strings.Contains(fl.Usage, "(env "+e+")") {
			t.Errorf("--%s help does not name %s: %q", fl.Name, e, fl.Usage)
		}
	})
}

// TestCodeMappingFlags: --code-mapping and --in-app repeat, each value (and each
// variable) may be a list, and a flag given wins over its variable.
func TestCodeMappingFlags(t *testing.T) {
	parse := func(args []string, environ map[string]string) *flags {
		t.Helper()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := registerFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := serve.EnvFlags(fs, env(environ), flagEnv); err != nil {
			t.Fatal(err)
		}
		return f
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	f := parse([]string{"--code-mapping", "example.com/shop/=/src/shop", "--code-mapping", "/build/a=/x,/build/b=rel", "--in-app", "example.com/shop;example.com/lib"},
		map[string]string{"ERRORS_CODE_MAPPINGS": "ignored=/i", "ERRORS_IN_APP": "ignored"})
	want := codeMappings{{StackRoot: "example.com/shop/", SourceRoot: abs("/src/shop")}, {StackRoot: "/build/a", SourceRoot: abs("/x")}, {StackRoot: "/build/b", SourceRoot: abs("rel")}}
	if d := cmp.Diff(want, f.codeMappings); d != "" {
		t.Errorf("--code-mapping (-want +got):\n%s", d)
	}
	if d := cmp.Diff(listFlag{"example.com/shop", "example.com/lib"}, f.inApp); d != "" {
		t.Errorf("--in-app (-want +got):\n%s", d)
	}
	f = parse(nil, map[string]string{"ERRORS_CODE_MAPPINGS": "example.com/shop/=/src/shop; /build/b=/y", "ERRORS_IN_APP": "example.com/shop,example.com/lib"})
	want = codeMappings{{StackRoot: "example.com/shop/", SourceRoot: abs("/src/shop")}, {StackRoot: "/build/b", SourceRoot: abs("/y")}}
	if d := cmp.Diff(want, f.codeMappings); d != "" || len(f.inApp) != 2 {
		t.Errorf("ERRORS_CODE_MAPPINGS (-want +got):\n%s\nERRORS_IN_APP: %v", d, f.inApp)
	}
}

func TestDefaultDataDir(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/home/ann"}, "/home/ann/.local/share/mcp-server-errors"},
		{"linux", map[string]string{"HOME": "/home/ann", "XDG_DATA_HOME": "/data/ann"}, "/data/ann/mcp-server-errors"},
		{"linux", map[string]string{"HOME": "/home/ann", "XDG_DATA_HOME": "relative"}, "/home/ann/.local/share/mcp-server-errors"},
		{"darwin", map[string]string{"HOME": "/Users/ann"}, "/Users/ann/Library/Application Support/mcp-server-errors"},
		{"windows", map[string]string{"LocalAppData": `C:\Users\ann\AppData\Local`}, filepath.Join(`C:\Users\ann\AppData\Local`, "mcp-server-errors")},
		{"linux", map[string]string{}, ""},
		{"windows", map[string]string{"HOME": "/home/ann"}, ""},
	}
	for _, tt := range tests {
		got, err := defaultDataDir(env(tt.env), tt.goos)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("defaultDataDir(%s, %v) = %q, %v; want %q", tt.goos, tt.env, got, err, tt.want)
		}
	}
}

func TestParseSizeAndAge(t *testing.T) {
	sizes := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1048576", 1 << 20, true}, {"1GiB", 1 << 30, true}, {"500mib", 500 << 20, true},
		{"2GB", 2e9, true}, {"3 MB", 3e6, true}, {"1TiB", 1 << 40, true},
		{"1MB", 0, false}, {"-5", 0, false}, {"5XB", 0, false}, {"", 0, false}, {"99999999999999TiB", 0, false},
	}
	for _, tt := range sizes {
		got, err := parseSize(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	ages := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true}, {"30d", 30 * 24 * time.Hour, true}, {"2w", 14 * 24 * time.Hour, true}, {"72h", 72 * time.Hour, true},
		{"90m", 90 * time.Minute, true}, {"30s", 0, false}, {"-1h", 0, false}, {"a week", 0, false}, {"1y", 0, false},
	}
	for _, tt := range ages {
		got, err := parseAge(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseAge(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// syncBuffer is a bytes.Buffer the server's logger and the test can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// running is run() serving stdio on pipes in this process.
type running struct {
	client *mcpkittest.Client
	stderr *syncBuffer
	stdin  io.Closer
	done   chan error
}

// start runs run() with in-memory stdio and connects a client of the revision. The
// test may stop it early with stop(); otherwise it is stopped at cleanup.
func start(t *testing.T, args []string, environ map[string]string, revision string) *running {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &running{stderr: &syncBuffer{}, stdin: inW, done: make(chan error, 1)}
	go func() {
		r.done <- run(context.Background(), args, env(environ), inR, outW, r.stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	r.client = mcpkittest.ConnectStream(t, outR, inW, revision, nil)
	return r
}

// stop closes stdin, as a host does when it is done, and waits for run to return.
func (r *running) stop() error {
	r.stdin.Close()
	select {
	case err, ok := <-r.done:
		if !ok {
			return nil
		}
		close(r.done)
		return err
	case <-time.After(10 * time.Second):
		return io.ErrNoProgress
	}
}

var dsnLog = regexp.MustCompile(`dsn=(http://\S+)`)

// dsn waits for the DSN the server logs once its ingest endpoint listens.
func (r *running) dsn(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := dsnLog.FindStringSubmatch(r.stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no DSN logged; stderr:\n%s", r.stderr.String())
	return ""
}

func listedTools(t *testing.T, c *mcpkittest.Client) (names []string, openWorld []bool) {
	t.Helper()
	var res struct {
		Tools []struct {
			Name        string                  `json:"name"`
			Annotations *mcpkit.ToolAnnotations `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &res); err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		openWorld = append(openWorld, tl.Annotations.OpenWorldHint)
	}
	return names, openWorld
}

// TestDefaultRunIsLocalOverStdio: with no flags and no settings beyond HOME, the
// server runs offline: the local store in the per-user data directory, on stdio, with
// a generated DSN key. (ERRORS_INGEST_ADDR picks a free port instead of 8970, which
// another process on the machine may hold.)
func TestDefaultRunIsLocalOverStdio(t *testing.T) {
	home := t.TempDir()
	r := start(t, nil, map[string]string{"HOME": home, "ERRORS_INGEST_ADDR": "127.0.0.1:0"}, "2026-07-28")
	names, openWorld := listedTools(t, r.client)
	if d := cmp.Diff(errorserver.ToolNames, names); d != "" || openWorld[0] {
		t.Errorf("tools (openWorld %v) (-want +got):\n%s", openWorld, d)
	}
	var disc struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal(r.client.Call("server/discover", nil), &disc)
	dsn := r.dsn(t)
	if !strings.Contains(disc.Instructions, "local event store") || !strings.Contains(disc.Instructions, dsn) {
		t.Errorf("instructions %q; want the local store and the DSN %s", disc.Instructions, dsn)
	}
	// The empty store says in its results, which a person sees, where to send events.
	for _, tool := range []string{errorserver.ToolSearchIssues, errorserver.ToolListProjects} {
		if text := r.client.CallTool(tool, map[string]any{}).Text(); !strings.Contains(text, "no events yet") || !strings.Contains(text, dsn) {
			t.Errorf("%s on the empty store = %s; want the DSN %s", tool, text, dsn)
		}
	}
	dataDir := filepath.Join(home, ".local", "share", "mcp-server-errors")
	key, err := os.ReadFile(filepath.Join(dataDir, dsnKeyFile))
	if err != nil {
		t.Fatalf("no DSN key in the default data directory: %v", err)
	}
	u, _ := url.Parse(dsn)
	if u.User.Username() != strings.TrimSpace(string(key)) || len(u.User.Username()) != 32 || u.Path != "/1" || u.Hostname() != "127.0.0.1" {
		t.Errorf("DSN %s; want http://<the 32-character saved key>@127.0.0.1:PORT/1", dsn)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, dsnKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("DSN key file mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestDSNKeyIsKeptAcrossRestarts: the generated key is reused by the next run on the
// same data directory, so an application's DSN keeps working; --dsn-key overrides it
// without touching the saved one.
func TestDSNKeyIsKeptAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	keyOf := func(args ...string) string {
		r := start(t, append([]string{"--data", dir, "--ingest", "127.0.0.1:0"}, args...), map[string]string{"HOME": t.TempDir()}, "2026-07-28")
		u, err := url.Parse(r.dsn(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
		return u.User.Username()
	}
	first, second := keyOf(), keyOf()
	if first == "" || first != second {
		t.Errorf("DSN keys of two runs: %q and %q; want the same generated key", first, second)
	}
	if got := keyOf("--dsn-key", "my-own.key"); got != "my-own.key" {
		t.Errorf("with --dsn-key the DSN key is %q", got)
	}
	if third := keyOf(); third != first {
		t.Errorf("after a run with --dsn-key the saved key changed: %q, want %q", third, first)
	}
}

// TestConcurrentKeyCreationAgrees: two processes creating the key at once end up with
// one key (the file is linked into place, never overwritten).
func TestConcurrentKeyCreationAgrees(t *testing.T) {
	dir := t.TempDir()
	keys := make([]string, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _, err := loadOrCreateDSNKey(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if k != keys[0] || k == "" {
			t.Fatalf("keys created concurrently differ: %q", keys)
		}
	}
	os.WriteFile(filepath.Join(dir, dsnKeyFile), []byte("not a key!\n"), 0o600)
	if _, _, err := loadOrCreateDSNKey(dir); err == nil || !strings.Contains(err.Error(), "delete it to generate a new one") {
		t.Errorf("damaged key file: %v; want an error saying what to do", err)
	}
}

// TestIngestRunsWithTheTransportAndStopsWithIt: an event sent by sentry-go to the
// logged DSN is acknowledged and found through the tools; when the host closes stdin,
// run returns, the ingest port closes and the data directory is released with the
// event on disk.
func TestIngestRunsWithTheTransportAndStopsWithIt(t *testing.T) {
	dir := t.TempDir()
	r := start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0", "--max-bytes", "64MiB", "--max-age", "2w"}, map[string]string{"HOME": t.TempDir()}, "2025-11-25")
	dsn := r.dsn(t)
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Environment: "test", Transport: sentry.NewHTTPSyncTransport()})
	if err != nil {
		t.Fatal(err)
	}
	id := client.CaptureMessage("hello from the app", nil, sentry.NewScope())
	if id == nil {
		t.Fatal("sentry-go did not send the event")
	}
	res := r.client.CallTool(errorserver.ToolSearchIssues, map[string]any{"query": "hello"})
	if res.IsError || !strings.Contains(res.Text(), `"title":"hello from the app"`) {
		t.Fatalf("search_issues after sending: %s", res.Text())
	}
	if !strings.Contains(r.stderr.String(), "max_bytes=67108864 max_age=336h0m0s") {
		t.Errorf("retention settings not in the log:\n%s", r.stderr.String())
	}

	if err := r.stop(); err != nil {
		t.Fatalf("run after stdin closed: %v", err)
	}
	u, _ := url.Parse(dsn)
	if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		conn.Close()
		t.Errorf("the ingest endpoint %s still accepts connections after the server stopped", u.Host)
	}
	store, err := errorserver.OpenLocal(errorserver.LocalConfig{DataDir: dir, PublicKeys: []string{"k"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("the data directory is not released after run returned: %v", err)
	}
	defer store.Close()
	ev, err := store.GetEvent(context.Background(), backend.GetEventInput{IssueID: firstIssue(t, store), EventID: string(*id)})
	if err != nil || ev.Message != "hello from the app" {
		t.Errorf("the acknowledged event after shutdown: %+v, %v", ev, err)
	}
}

func firstIssue(t *testing.T, b backend.Backend) string {
	t.Helper()
	res, err := b.SearchIssues(context.Background(), backend.SearchIssuesInput{})
	if err != nil || len(res.Issues) == 0 {
		t.Fatalf("SearchIssues: %+v, %v", res, err)
	}
	return res.Issues[0].ID
}

// TestSentryBackendChosenByToken: with SENTRY_AUTH_TOKEN set the server talks to
// Sentry (SENTRY_URL), marks its tools open world, creates no local data directory
// and never logs the token.
func TestSentryBackendChosenByToken(t *testing.T) {
	home := t.TempDir()
	sentryAPI := http.NewServeMux()
	sentryAPI.HandleFunc("/api/0/organizations/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sntrys_token_value" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`[{"id":"1","slug":"acme","name":"Acme"}]`))
	})
	srv := newLoopbackServer(t, sentryAPI)
	r := start(t, nil, map[string]string{"HOME": home, "SENTRY_AUTH_TOKEN": "sntrys_token_value", "SENTRY_URL": srv}, "2026-07-28")
	names, openWorld := listedTools(t, r.client)
	if len(names) != len(errorserver.ToolNames) || !openWorld[0] {
		t.Errorf("tools %v openWorld %v; want all six, open world", names, openWorld)
	}
	var disc struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal(r.client.Call("server/discover", nil), &disc)
	if !strings.Contains(disc.Instructions, "Backend: Sentry at "+srv+"/") {
		t.Errorf("instructions %q do not name %s", disc.Instructions, srv)
	}
	res := r.client.CallTool(errorserver.ToolListProjects, map[string]any{})
	if !strings.Contains(res.Text(), "acme") {
		t.Errorf("list_projects over the Sentry API: %s", res.Text())
	}
	if _, err := os.Stat(filepath.Join(home, ".local")); err == nil {
		t.Error("the sentry backend created a local data directory")
	}
	if strings.Contains(r.stderr.String(), "token_value") {
		t.Errorf("the token is in the log:\n%s", r.stderr.String())
	}
}

func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestDSNFor(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want string
	}{
		{"127.0.0.1:8970", "http://k@127.0.0.1:8970/1"},
		{"0.0.0.0:8970", "http://k@localhost:8970/1"},
		{"[::1]:8970", "http://k@[::1]:8970/1"},
		{"[::]:8970", "http://k@localhost:8970/1"},
	} {
		a, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := dsnFor("k", a); got != tc.want {
			t.Errorf("dsnFor(%s) = %s, want %s", tc.addr, got, tc.want)
		}
	}
}

// TestIngestBesideStreamableHTTP: with --http the ingest endpoint runs beside the MCP
// endpoint; a real client (the Go SDK) finds an event sent by sentry-go, and when the
// context ends (as on SIGTERM) both listeners close and run returns.
func TestIngestBesideStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--http", "127.0.0.1:0", "--data", t.TempDir(), "--ingest", "127.0.0.1:0"},
			env(map[string]string{"HOME": t.TempDir()}), strings.NewReader(""), io.Discard, stderr)
	}()
	r := &running{stderr: stderr}
	dsn := r.dsn(t)
	var mcpAddr string
	addrLog := regexp.MustCompile(`msg="serving MCP on Streamable HTTP".* addr=(\S+)`)
	for deadline := time.Now().Add(10 * time.Second); mcpAddr == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := addrLog.FindStringSubmatch(stderr.String()); m != nil {
			mcpAddr = m[1]
		}
	}
	if mcpAddr == "" {
		t.Fatalf("no HTTP address logged:\n%s", stderr.String())
	}

	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Environment: "http-test", Transport: sentry.NewHTTPSyncTransport()})
	if err != nil {
		t.Fatal(err)
	}
	if client.CaptureMessage("sent beside HTTP", nil, sentry.NewScope()) == nil {
		t.Fatal("sentry-go did not send the event")
	}
	cs := realclient.GoSDK(t, realclient.Target{URL: "http://" + mcpAddr + "/mcp"}, "2026-07-28")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: errorserver.ToolSearchIssues, Arguments: map[string]any{"query": "environment:http-test"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(text, `"title":"sent beside HTTP"`) {
		t.Errorf("search_issues over HTTP: %s", text)
	}
	cs.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after the context ended: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after the context ended")
	}
	u, _ := url.Parse(dsn)
	for _, addr := range []string{u.Host, mcpAddr} {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after run returned", addr)
		}
	}
}

// TestCollectorAndReaders: the collector (--ingest-only) receives events on the DSN
// endpoint and the Spotlight endpoint while MCP servers started on the same data
// directory read them (each sees events sent after it started, and tells the model
// the collector's DSN); a second collector on the directory waits for the first; when
// its context ends the collector stops and releases the directory.
func TestCollectorAndReaders(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "127.0.0.1:0"},
			env(map[string]string{"HOME": t.TempDir()}), strings.NewReader(""), io.Discard, stderr)
	}()
	collector := &running{stderr: stderr}
	dsn := collector.dsn(t)
	var spotlight string
	spotlightLog := regexp.MustCompile(`spotlight=(http://\S+/stream)`)
	for deadline := time.Now().Add(10 * time.Second); spotlight == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := spotlightLog.FindStringSubmatch(stderr.String()); m != nil {
			spotlight = m[1]
		}
	}
	if spotlight == "" {
		t.Fatalf("no Spotlight endpoint logged:\n%s", stderr.String())
	}

	readers := []*running{
		start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, map[string]string{"HOME": t.TempDir()}, "2026-07-28"),
		start(t, []string{"--data", dir}, map[string]string{"HOME": t.TempDir()}, "2025-11-25"),
	}
	for i, r := range readers {
		var disc struct {
			Instructions string `json:"instructions"`
		}
		if i == 0 {
			json.Unmarshal(r.client.Call("server/discover", nil), &disc)
		}
		if i == 0 && !strings.Contains(disc.Instructions, dsn) {
			t.Errorf("reader %d instructions %q; want the collector's DSN %s", i, disc.Instructions, dsn)
		}
		if !strings.Contains(r.stderr.String(), "another process ingests into this data directory") {
			t.Errorf("reader %d did not say it reads only:\n%s", i, r.stderr.String())
		}
	}

	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Environment: "collected", Transport: sentry.NewHTTPSyncTransport()})
	if err != nil {
		t.Fatal(err)
	}
	client.CaptureMessage("sent to the collector", nil, sentry.NewScope())
	// What an SDK with spotlight on sends: an envelope, no DSN key, no Content-Type.
	body := `{"event_id":"5f3a0c2b9d8e4f1a8b7c6d5e4f3a2b1c","sent_at":"2026-01-01T00:00:00Z"}` + "\n" + `{"type":"event"}` + "\n" + `{"message":"sent to spotlight","level":"warning"}` + "\n"
	resp, err := http.Post(spotlight, "", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d", spotlight, resp.StatusCode)
	}
	for i, r := range readers {
		res := r.client.CallTool(errorserver.ToolSearchIssues, map[string]any{"statsPeriod": "1h"})
		for _, want := range []string{`"title":"sent to the collector"`, `"title":"sent to spotlight"`, `"project":"spotlight"`} {
			if res.IsError || !strings.Contains(res.Text(), want) {
				t.Errorf("reader %d search_issues: %s; want %s", i, res.Text(), want)
			}
		}
	}

	// The collector's page lists both, on the ingest address and on the Spotlight
	// address (where Spotlight users open it).
	for _, base := range []string{"http://" + mustHost(dsn), strings.TrimSuffix(spotlight, "/stream")} {
		status, page := getText(t, "GET", base+"/")
		if status != http.StatusOK || !strings.Contains(page, "sent to the collector") || !strings.Contains(page, "sent to spotlight") {
			t.Errorf("GET %s/: %d; want both events listed\n%s", base, status, page)
		}
	}

	// A second collector waits for the first to exit (until it is stopped itself).
	secondCtx, stopSecond := context.WithCancel(context.Background())
	secondLog := &syncBuffer{}
	secondDone := make(chan error, 1)
	go func() {
		secondDone <- run(secondCtx, []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "off"}, env(map[string]string{"HOME": t.TempDir()}), strings.NewReader(""), io.Discard, secondLog)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(secondLog.String(), "waiting for it to exit") && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if !strings.Contains(secondLog.String(), "waiting for it to exit") {
		t.Errorf("a second collector on the directory did not say it waits:\n%s", secondLog.String())
	}
	stopSecond()
	if err := <-secondDone; err != nil {
		t.Errorf("the waiting collector, stopped: %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("collector after its context ended: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the collector did not stop")
	}
	u, _ := url.Parse(dsn)
	if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		conn.Close()
		t.Errorf("the ingest endpoint %s still accepts connections after the collector stopped", u.Host)
	}
	store, err := errorserver.OpenLocal(errorserver.LocalConfig{DataDir: dir, PublicKeys: []string{"k"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("the data directory is not released after the collector stopped: %v", err)
	}
	store.Close()
}

// TestReaderTakesOverIngest: of two servers on one data directory the first ingests
// and the second reads; when the first exits, the second takes over: it listens on
// its own ingest address, logs the DSN there, and finds the events sent to it.
func TestReaderTakesOverIngest(t *testing.T) {
	dir := t.TempDir()
	first := start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, map[string]string{"HOME": t.TempDir()}, "2026-07-28")
	firstDSN := first.dsn(t)
	second := start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, map[string]string{"HOME": t.TempDir()}, "2026-07-28")
	if d := second.dsn(t); d != firstDSN || !strings.Contains(second.stderr.String(), "this one reads what it stores") {
		t.Fatalf("second server: DSN %s (want the first's %s); log:\n%s", d, firstDSN, second.stderr.String())
	}
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	ingesting := regexp.MustCompile(`msg="local store: point your application's Sentry DSN here" dsn=(\S+)`)
	var dsn string
	for deadline := time.Now().Add(20 * time.Second); dsn == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := ingesting.FindStringSubmatch(second.stderr.String()); m != nil {
			dsn = m[1]
		}
	}
	if dsn == "" || !strings.Contains(second.stderr.String(), "this one ingests now") {
		t.Fatalf("the second server did not take over; log:\n%s", second.stderr.String())
	}
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Environment: "taken-over", Transport: sentry.NewHTTPSyncTransport()})
	if err != nil {
		t.Fatal(err)
	}
	if client.CaptureMessage("sent after the takeover", nil, sentry.NewScope()) == nil {
		t.Fatal("sentry-go did not send the event")
	}
	res := second.client.CallTool(errorserver.ToolSearchIssues, map[string]any{"query": "environment:taken-over"})
	if res.IsError || !strings.Contains(res.Text(), `"title":"sent after the takeover"`) {
		t.Errorf("search after the takeover: %s", res.Text())
	}
}

// TestCollectorWaitsForTheDirectory: a collector started while an MCP server ingests
// into the data directory (one that took over while the collector restarted, say)
// waits, and ingests once that server exits.
func TestCollectorWaitsForTheDirectory(t *testing.T) {
	dir := t.TempDir()
	server := start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, map[string]string{"HOME": t.TempDir()}, "2026-07-28")
	server.dsn(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--ingest-only", "--data", dir, "--ingest", "127.0.0.1:0", "--spotlight", "off"}, env(map[string]string{"HOME": t.TempDir()}), strings.NewReader(""), io.Discard, logs)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "waiting for it to exit") && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if err := server.stop(); err != nil {
		t.Fatal(err)
	}
	collector := &running{stderr: logs}
	dsn := collector.dsn(t)
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Transport: sentry.NewHTTPSyncTransport()})
	if err != nil {
		t.Fatal(err)
	}
	if client.CaptureMessage("to the collector that waited", nil, sentry.NewScope()) == nil {
		t.Fatal("the collector did not acknowledge the event")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("collector: %v", err)
	}
}

func mustHost(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err)
	}
	return u.Host
}

// TestStoreOpensInTheBackground: an MCP server that takes the ingest lock answers
// discovery and tools/list while its store opens; a store that cannot be opened fails
// every tool call with the reason, and then the process ends with it (status 1), as
// when the store was opened before serving.
func TestStoreOpensInTheBackground(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, errorserver.DatabaseFile), []byte("not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	stderr := &syncBuffer{}
	go func() {
		done <- run(context.Background(), []string{"--data", dir, "--ingest", "127.0.0.1:0"}, env(map[string]string{"HOME": t.TempDir()}), inR, outW, stderr)
		outW.Close()
	}()
	defer inW.Close()
	c := mcpkittest.ConnectStream(t, outR, inW, "2026-07-28", nil)
	var disc struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal(c.Call("server/discover", nil), &disc)
	if !strings.Contains(disc.Instructions, "http://") {
		t.Errorf("instructions %q; want the DSN", disc.Instructions)
	}
	if names, _ := listedTools(t, c); len(names) == 0 {
		t.Error("no tools listed")
	}
	res := c.CallTool(errorserver.ToolListProjects, map[string]any{})
	if !res.IsError || !strings.Contains(res.Text(), "could not be opened") || !strings.Contains(res.Text(), "not a database") {
		t.Errorf("list_projects on a store that cannot open: isError=%v %s", res.IsError, res.Text())
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a database") {
			t.Errorf("run = %v; want the store's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after its store failed to open")
	}
}

// TestValidDSNKey: the key check is ^[A-Za-z0-9._~-]{1,128}$, written as a loop.
func TestValidDSNKey(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)
	for _, k := range []string{"", "a", "A9._~-", strings.Repeat("k", 128), strings.Repeat("k", 129), "a b", "a@b", "a/b", "é", "a\n", "\na", "key%", "0123456789abcdef0123456789abcdef"} {
		if got, want := validDSNKey(k), re.MatchString(k); got != want {
			t.Errorf("validDSNKey(%q) = %v, want %v", k, got, want)
		}
	}
}
