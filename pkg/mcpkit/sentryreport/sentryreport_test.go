package sentryreport_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// sentryInbox is a local Sentry ingest endpoint: it keeps the raw event payloads
// that sentry-go sends in envelopes.
type sentryInbox struct {
	mu     sync.Mutex
	events [][]byte
}

func (in *sentryInbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = zr
	}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	eventNext := false
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		if eventNext {
			in.mu.Lock()
			in.events = append(in.events, line)
			in.mu.Unlock()
			eventNext = false
			continue
		}
		var hdr struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &hdr) == nil && hdr.Type == "event" {
			eventNext = true
		}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"id":"0"}`)
}

type sentryEvent struct {
	Level     string            `json:"level"`
	Message   string            `json:"message"`
	Tags      map[string]string `json:"tags"`
	Request   json.RawMessage   `json:"request"`
	User      json.RawMessage   `json:"user"`
	Exception []struct {
		Type       string `json:"type"`
		Value      string `json:"value"`
		Stacktrace *struct {
			Frames []struct {
				Function string `json:"function"`
			} `json:"frames"`
		} `json:"stacktrace"`
	} `json:"exception"`
}

func TestSentryReportsPanicsAndInternalErrorsWithoutSecrets(t *testing.T) {
	inbox := &sentryInbox{}
	ingest := httptest.NewServer(inbox)
	defer ingest.Close()
	dsn := strings.Replace(ingest.URL, "http://", "http://publickey@", 1) + "/42"
	rep, err := sentryreport.New(sentryreport.Options{DSN: dsn, Environment: "test", Release: "t@1"})
	if err != nil {
		t.Fatal(err)
	}
	const (
		secretArg  = "ARGUMENT-SECRET-7c1f"
		secretFile = "FILE-CONTENTS-SECRET-93ab"
	)
	token := "sentry-test-token-" + strings.Repeat("q", 32)
	st, err := auth.ParseStaticTokens(token + " alice mcp")
	if err != nil {
		t.Fatal(err)
	}
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "sentry-test", Version: "1"}, &mcpkit.ServerOptions{Logger: remotetest.Discard(), ErrorReporter: rep})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "explode", Description: "Panics with its argument."},
		func(ctx context.Context, req *mcpkit.Request, in remotetest.NoteIn) (*mcpkit.CallToolResult, error) {
			panic("cannot handle " + in.Text + " with Bearer " + token + "\n" + secretFile)
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "crash", Description: "Indexes past the end."},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			var empty []int
			return nil, fmt.Errorf("%d", empty[len(req.Method)])
		})
	s.AddResource(&mcpkit.Resource{URI: "file:///secret.txt", Name: "secret"},
		func(ctx context.Context, req *mcpkit.Request, uri string, vars map[string]string) (*mcpkit.ReadResourceResult, error) {
			return nil, errors.New("parsing " + secretFile + " failed")
		})
	endpoint := remotetest.ServeAt(t, func(base string) http.Handler {
		return remotetest.Service(t, s, &serve.Options{Auth: &auth.Options{Verifier: st, Resource: base + "/mcp"}})
	}) + "/mcp"
	c := remotetest.NewClient(t, endpoint)
	c.Token = token
	traceparent := map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	for _, call := range []map[string]any{
		{"name": "explode", "arguments": map[string]any{"text": secretArg}, "_meta": traceparent},
		{"name": "crash", "arguments": map[string]any{}},
	} {
		r := c.Do("tools/call", call)
		if r.Err == nil || r.Err.Code != mcpkit.CodeInternalError {
			t.Fatalf("%v: %s, want an internal error", call["name"], r.Body)
		}
	}
	if r := c.Do("resources/read", map[string]any{"uri": "file:///secret.txt"}); r.Err == nil || r.Err.Code != mcpkit.CodeInternalError {
		t.Fatalf("resources/read: %s, want an internal error", r.Body)
	}
	if !rep.Flush(10 * time.Second) {
		t.Fatal("sentry-go did not deliver the events")
	}

	inbox.mu.Lock()
	raw := append([][]byte(nil), inbox.events...)
	inbox.mu.Unlock()
	if len(raw) != 3 {
		t.Fatalf("got %d events, want 3 (two panics, one internal error)", len(raw))
	}
	byTag := map[string]sentryEvent{}
	for _, b := range raw {
		for _, secret := range []string{secretArg, secretFile, token, "publickey"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("an event contains %q:\n%s", secret, b)
			}
		}
		var ev sentryEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		if len(ev.Request) > 0 && string(ev.Request) != "null" || len(ev.User) > 0 && string(ev.User) != "{}" && string(ev.User) != "null" {
			t.Errorf("event carries request or user data: %s %s", ev.Request, ev.User)
		}
		if len(ev.Exception) == 0 || ev.Exception[len(ev.Exception)-1].Stacktrace == nil || len(ev.Exception[len(ev.Exception)-1].Stacktrace.Frames) == 0 {
			t.Errorf("event without an exception stack: %s", b)
		}
		byTag[ev.Tags["mcp.method"]+" "+ev.Tags["mcp.name"]] = ev
	}
	explode, crash, read := byTag["tools/call explode"], byTag["tools/call crash"], byTag["resources/read "]
	if explode.Level != "fatal" || explode.Tags["trace_id"] != "0af7651916cd43dd8448eb211c80319c" || !strings.HasPrefix(explode.Exception[0].Value, "[redacted: ") {
		t.Errorf("panic event: level %q tags %v exception %+v", explode.Level, explode.Tags, explode.Exception)
	}
	if last := crash.Exception[len(crash.Exception)-1]; !strings.Contains(last.Value, "runtime error: index out of range") {
		t.Errorf("runtime panic event lost the runtime's message: %+v", crash.Exception)
	}
	if len(read.Exception) == 0 || !strings.HasPrefix(read.Exception[0].Value, "[redacted: ") || read.Tags["mcp.name"] != "" {
		t.Errorf("internal error event: tags %v exception %+v", read.Tags, read.Exception)
	}
}
