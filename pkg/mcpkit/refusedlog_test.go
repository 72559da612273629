package mcpkit_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Every request refused before a handler logs one line saying why, over stdio and
// HTTP, and never the payload (issue #25: they left no trace).
func TestRequestsRefusedBeforeAHandlerAreLogged(t *testing.T) {
	var logs syncBuffer
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const secret = "s3cr3t-payload"
	c := dialRaw(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"` + secret + `"`) // not JSON
	c.next()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"` + secret + `"}}`) // no _meta
	c.next()

	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list",`+secret))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("HTTP status %d; want 400", resp.StatusCode)
	}

	got := logs.String()
	if n := strings.Count(got, `msg="mcp request refused"`); n != 3 {
		t.Errorf("%d refusal lines; want 3 (stdio parse error, stdio missing _meta, HTTP parse error):\n%s", n, got)
	}
	for _, want := range []string{"transport=stdio", "transport=http", "status=400", "parse error", "_meta"} {
		if !strings.Contains(got, want) {
			t.Errorf("logs lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, secret) {
		t.Errorf("a log line carries the payload:\n%s", got)
	}
}
