package serve_test

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// serveInBackground runs Serve on a loopback port and returns its base URL, a
// function that stops it (as SIGTERM would), and the channel Serve's result arrives on.
func serveInBackground(t *testing.T, s *mcpkit.Server, o *serve.Options) (base string, stop func(), result <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	o.HTTPAddr = "127.0.0.1:0"
	o.Listening = func(a net.Addr) { addr <- a }
	go func() { errc <- serve.Serve(ctx, s, o) }()
	select {
	case a := <-addr:
		base = "http://" + a.String()
	case err := <-errc:
		t.Fatalf("Serve: %v", err)
	}
	t.Cleanup(cancel)
	return base, cancel, errc
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b := make([]byte, 256)
	n, _ := resp.Body.Read(b)
	return resp.StatusCode, string(b[:n])
}

// waitRefused polls until a new connection to base is refused: the listener closed.
func waitRefused(t *testing.T, base string) {
	t.Helper()
	host := strings.TrimPrefix(base, "http://")
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", host)
		if err != nil {
			return
		}
		c.Close()
		if i == 1000 {
			t.Fatal("the server still accepts connections after shutdown began")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestGracefulShutdown(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 4)
	s := remotetest.Server(nil, hold, entered)
	base, stop, result := serveInBackground(t, s, &serve.Options{ShutdownTimeout: time.Minute})
	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Fatalf("/readyz: %d %q", code, body)
	}
	c := remotetest.NewClient(t, base+"/mcp")
	st := c.Listen(map[string]any{"toolsListChanged": true})
	if ev := st.Next(t); ev["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen: %v", ev)
	}
	inflight := make(chan *remotetest.Reply, 1)
	go func() {
		r, err := c.Try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
		if err != nil {
			t.Errorf("the in-flight call failed during shutdown: %v", err)
		}
		inflight <- r
	}()
	<-entered

	stop() // SIGTERM
	end := st.Next(t)
	if res, _ := end["result"].(map[string]any); res == nil || res["resultType"] != "complete" {
		t.Fatalf("the listen stream ended with %v, want its completion result", end)
	}
	if _, open := <-st.Events; open {
		t.Error("the listen stream went on after its completion result")
	}
	waitRefused(t, base)
	select {
	case err := <-result:
		t.Fatalf("Serve returned (%v) while a call was still running", err)
	default:
	}

	close(hold) // the in-flight call finishes after the listener closed
	if r := <-inflight; r == nil || r.Tool(t).Text() != "released" {
		t.Fatalf("the in-flight call got %+v", r)
	}
	if err := <-result; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestShutdownDeadlineEndsCallsThatDoNotFinish(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 4)
	defer close(hold)
	s := remotetest.Server(nil, hold, entered)
	base, stop, result := serveInBackground(t, s, &serve.Options{ShutdownTimeout: 50 * time.Millisecond})
	c := remotetest.NewClient(t, base+"/mcp")
	completed := make(chan bool, 1)
	go func() {
		r, err := c.Try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
		completed <- err == nil && r.Status == 200 && r.Err == nil
	}()
	<-entered
	stop()
	if err := <-result; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if <-completed {
		t.Fatal("a call that never finishes completed instead of being cut at the deadline")
	}
}

func TestReadyzFailsOnceShutdownBegins(t *testing.T) {
	s := remotetest.Server(nil, nil, nil)
	var ready atomic.Bool
	ready.Store(true)
	srv := httptest.NewServer(remotetest.Service(t, s, &serve.Options{Ready: func(context.Context) error {
		if !ready.Load() {
			return context.DeadlineExceeded
		}
		return nil
	}}))
	defer srv.Close()
	steps := []struct {
		name  string
		act   func()
		ready int
	}{
		{"backend reachable", func() {}, 200},
		{"backend unreachable", func() { ready.Store(false) }, 503},
		{"backend back", func() { ready.Store(true) }, 200},
		{"shutting down", s.Shutdown, 503},
	}
	for _, st := range steps {
		st.act()
		if code, body := get(t, srv.URL+"/readyz"); code != st.ready {
			t.Errorf("%s: /readyz %d %q, want %d", st.name, code, body, st.ready)
		}
		if code, _ := get(t, srv.URL+"/healthz"); code != 200 {
			t.Errorf("%s: /healthz %d: the process is up", st.name, code)
		}
	}
}

// TestServeTakesTheStateKeyFromTheEnvironment: two instances started by Serve with
// MCP_STATE_KEY verify each other's requestState; without it they do not.
func TestServeTakesTheStateKeyFromTheEnvironment(t *testing.T) {
	retry := func(t *testing.T) *remotetest.Reply {
		a, _, _ := serveInBackground(t, remotetest.Server(nil, nil, nil), &serve.Options{})
		b, _, _ := serveInBackground(t, remotetest.Server(nil, nil, nil), &serve.Options{})
		first := remotetest.NewClient(t, a+"/mcp").Do("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}}).Tool(t)
		return remotetest.NewClient(t, b+"/mcp").Do("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{},
			"inputResponses": map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}},
			"requestState":   first.RequestState})
	}
	t.Run("shared key", func(t *testing.T) {
		t.Setenv(serve.EnvStateKey, base64.StdEncoding.EncodeToString([]byte(strings.Repeat("s", 32))))
		if got := retry(t).Tool(t).Text(); got != "confirmed: accept true" {
			t.Fatalf("retry on the other instance answered %q", got)
		}
	})
	t.Run("no key", func(t *testing.T) {
		t.Setenv(serve.EnvStateKey, "")
		if r := retry(t); r.Err == nil || !strings.Contains(r.Err.Message, "signature does not verify") {
			t.Fatalf("instances with their own random keys accepted each other's state: %s", r.Body)
		}
	})
	t.Run("bad key", func(t *testing.T) {
		t.Setenv(serve.EnvStateKey, "too-short")
		err := serve.Serve(context.Background(), remotetest.Server(nil, nil, nil), &serve.Options{HTTPAddr: "127.0.0.1:0"})
		if err == nil || !strings.Contains(err.Error(), "MCP_STATE_KEY") {
			t.Fatalf("Serve with a short key: %v", err)
		}
	})
}

func TestParseStateKey(t *testing.T) {
	key := []byte(strings.Repeat("\x01\x02\x03\x04", 8))
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"base64", base64.StdEncoding.EncodeToString(key), true},
		{"base64 url unpadded", base64.RawURLEncoding.EncodeToString(key), true},
		{"hex with newline", "0102030401020304010203040102030401020304010203040102030401020304\n", true},
		{"raw bytes", string(key), true},
		{"too short", base64.StdEncoding.EncodeToString(key[:16]), false},
		{"empty", "  \n", false},
	}
	for _, tt := range tests {
		got, err := serve.ParseStateKey([]byte(tt.in))
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok=%v", tt.name, err, tt.ok)
			continue
		}
		if tt.ok && string(got) != string(key) {
			t.Errorf("%s: decoded %x, want %x", tt.name, got, key)
		}
	}
}

// TestStateKeyRefusalSaysWhy: a refused MCP_STATE_KEY says how the value was read,
// how long it came out, what is accepted and how to make a key, never repeating
// the value; a passphrase is refused rather than used as a key (issue 13, item 7).
func TestStateKeyRefusalSaysWhy(t *testing.T) {
	accepted := []string{"base64 (generate one with: openssl rand -base64 32)", "hex", "at least 32 random bytes"}
	for _, tt := range []struct {
		value string
		says  string
	}{
		{"secret", "6 characters of text, which read as base64 is only 4 bytes"},
		{"deadbeef", "8 characters of text, which read as hex is only 4 bytes"},
		{"CHANGE-ME", "neither hex nor base64 (a passphrase is not accepted)"},
		{"correct horse battery staple and then some more words", "neither hex nor base64"},
		{"\x01\x02\x03", "3 raw bytes"},
		{" \n", "empty"},
	} {
		t.Setenv(serve.EnvStateKey, tt.value)
		_, err := serve.StateKeyFromEnv()
		if err == nil {
			t.Errorf("%q was accepted as a state key", tt.value)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, serve.EnvStateKey) || !strings.Contains(msg, tt.says) {
			t.Errorf("%q: %q does not say %q", tt.value, msg, tt.says)
		}
		for _, a := range accepted {
			if !strings.Contains(msg, a) {
				t.Errorf("%q: %q does not say what is accepted (%q)", tt.value, msg, a)
			}
		}
		if v := strings.TrimSpace(tt.value); len(v) > 2 && strings.Contains(msg, v) {
			t.Errorf("the error repeats the value: %q", msg)
		}
	}
}
