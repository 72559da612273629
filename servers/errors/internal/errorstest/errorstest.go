// Package errorstest holds what the tests of several packages of the errors server
// share: sentry-go hubs that report realistic errors (ChargeCard, LoadCart, Explode),
// the envelopes sentry-go sends for them (CaptureEnvelopes), and the decoder's field
// templates. Only tests import it; it imports no package of this module, so that the
// tests of every package can.
package errorstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"testing"

	"github.com/getsentry/sentry-go"
)

// Key is the DSN public key the test stores accept.
const Key = "publickey"

// The call sites below are what grouping must tell apart: each function is one place
// in the code, so each is one issue however often it runs.

var ErrCartMissing = errors.New("cart missing")

// ChargeCard, LoadCart and Explode are the call sites below as variables, so that a
// frame of them has the function's own lower-case name, as the tests that read stack
// traces expect, and no wrapper frame.
var (
	ChargeCard = chargeCard
	LoadCart   = loadCart
	Explode    = explode
)

// chargeCard reports "card declined" and returns the line of the capture.
func chargeCard(hub *sentry.Hub) int {
	_, _, line, _ := runtime.Caller(0)
	hub.CaptureException(errors.New("card declined"))
	return line + 1
}

// loadCart reports a wrapped error: a chain of two exceptions.
func loadCart(hub *sentry.Hub, user string) {
	hub.CaptureException(fmt.Errorf("load cart of %s: %w", user, ErrCartMissing))
}

// explode panics with a runtime error and reports it from a deferred recover.
func explode(hub *sentry.Hub) {
	defer func() {
		if r := recover(); r != nil {
			hub.Recover(r)
		}
	}()
	var counts map[string]int
	counts["boom"]++
}

// NewTestHub is a sentry-go hub sending to dsn, as a shop in environment env would.
func NewTestHub(t *testing.T, dsn, env string, configure func(*sentry.Scope)) *sentry.Hub {
	t.Helper()
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn:              dsn,
		Environment:      env,
		Release:          "shop@1.2.3",
		ServerName:       "web-1",
		AttachStacktrace: true,
		// With PII on, the SDK sends Authorization and Cookie headers as they are:
		// the store must redact them itself.
		SendDefaultPII: true,
	})
	if err != nil {
		t.Fatalf("sentry.NewClient: %v", err)
	}
	scope := sentry.NewScope()
	scope.SetTag("tenant", "acme")
	scope.SetUser(sentry.User{ID: "u-1"})
	if configure != nil {
		configure(scope)
	}
	return sentry.NewHub(client, scope)
}

// CaptureEnvelopes records what sentry-go sends for a few realistic errors (stack
// traces with source context, breadcrumbs, tags, user, request): the bodies the
// envelope benchmark replays. Each holds the event id it was sent with.
func CaptureEnvelopes(b testing.TB) (bodies [][]byte, ids []string) {
	b.Helper()
	var mu sync.Mutex
	rt := RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader([]byte("{}"))), Header: http.Header{}}, nil
	})
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn: "http://" + Key + "@127.0.0.1:1/42", Environment: "production", Release: "shop@1.4.0", ServerName: "web-3",
		AttachStacktrace: true, Transport: sentry.NewHTTPSyncTransport(), HTTPTransport: rt,
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 8 {
		scope := sentry.NewScope()
		scope.SetTag("currency", []string{"EUR", "USD"}[i%2])
		scope.SetTag("tenant", fmt.Sprintf("t%d", i))
		scope.SetUser(sentry.User{ID: fmt.Sprintf("u-%d", i), Email: fmt.Sprintf("user%d@example.com", i)})
		req, _ := http.NewRequest(http.MethodPost, "https://shop.example/checkout?step=2", nil)
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36")
		scope.SetRequest(req)
		for j := range 5 {
			scope.AddBreadcrumb(&sentry.Breadcrumb{Category: "http", Message: fmt.Sprintf("POST /api/cart/%d 200", j), Data: map[string]any{"status": 200, "ms": 12 + j}}, 100)
		}
		hub := sentry.NewHub(client, scope)
		switch i % 4 {
		case 0:
			chargeCard(hub)
		case 1:
			loadCart(hub, "ann")
		case 2:
			explode(hub)
		default:
			hub.CaptureMessage("inventory low")
		}
	}
	for _, body := range bodies {
		header, _, _ := bytes.Cut(body, []byte("\n")) // the envelope header: its first line
		var h struct {
			EventID string `json:"event_id"`
		}
		if err := json.Unmarshal(header, &h); err != nil || len(h.EventID) != 32 {
			b.Fatalf("captured envelope: %v", err)
		}
		ids = append(ids, h.EventID)
	}
	return bodies, ids
}

// RoundTripFunc is an http.RoundTripper that is a function.
type RoundTripFunc func(*http.Request) (*http.Response, error)

func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// DecodeFieldTemplates put a value (%s) in every field the store reads, at every
// level of nesting.
var DecodeFieldTemplates = []string{
	`{"event_id": %s}`, `{"timestamp": %s}`, `{"level": %s}`, `{"platform": %s}`, `{"logger": %s}`,
	`{"transaction": %s}`, `{"culprit": %s}`, `{"server_name": %s}`, `{"release": %s}`, `{"dist": %s}`,
	`{"environment": %s}`, `{"type": %s}`, `{"message": %s}`, `{"logentry": %s}`, `{"logentry": {"message": %s, "formatted": %s}}`,
	`{"tags": %s}`, `{"tags": {"a": %s, "b": %s}}`, `{"tags": [["a", %s], %s]}`, `{"tags": [%s]}`,
	`{"extra": %s}`, `{"extra": {"k": %s}}`, `{"contexts": %s}`, `{"contexts": {"os": %s}}`, `{"contexts": {"os": {"name": %s}}}`,
	`{"user": %s}`, `{"user": {"id": %s, "username": %s, "email": %s, "ip_address": %s}}`,
	`{"request": %s}`, `{"request": {"url": %s, "method": %s}}`, `{"request": {"data": %s}}`,
	`{"request": {"query_string": %s}}`, `{"request": {"headers": %s}}`, `{"request": {"headers": [[%s, %s]]}}`,
	`{"exception": %s}`, `{"exception": {"values": %s}}`, `{"exception": [%s]}`, `{"exception": {"values": [%s]}}`,
	`{"exception": [{"type": %s, "value": %s, "module": %s}]}`, `{"exception": [{"mechanism": %s}]}`,
	`{"exception": [{"mechanism": {"type": %s, "handled": %s}}]}`, `{"exception": [{"stacktrace": %s}]}`,
	`{"exception": [{"stacktrace": {"frames": %s}}]}`, `{"exception": [{"stacktrace": {"frames": [%s]}}]}`,
	`{"exception": [{"stacktrace": {"frames": [{"function": %s, "module": %s, "package": %s, "filename": %s, "abs_path": %s}]}}]}`,
	`{"exception": [{"stacktrace": {"frames": [{"lineno": %s, "colno": %s, "in_app": %s}]}}]}`,
	`{"exception": [{"stacktrace": {"frames": [{"lineno": 5, "pre_context": %s, "context_line": %s, "post_context": %s}]}}]}`,
	`{"exception": [{"stacktrace": {"frames": [{"pre_context": [%s], "context_line": "x", "post_context": [%s, "y"]}]}}]}`,
	`{"exception": [{"stacktrace": {"frames": [{"vars": %s}]}}]}`, `{"exception": [{"stacktrace": {"frames": [{"vars": {"v": %s}}]}}]}`,
	`{"threads": %s}`, `{"threads": {"values": [%s]}}`, `{"threads": [{"crashed": %s, "current": %s, "stacktrace": %s}]}`,
	`{"stacktrace": %s}`, `{"stacktrace": {"frames": [{"function": %s}]}}`,
	`{"breadcrumbs": %s}`, `{"breadcrumbs": {"values": [%s]}}`,
	`{"breadcrumbs": [{"timestamp": %s, "type": %s, "category": %s, "level": %s, "message": %s}]}`,
	`{"breadcrumbs": [{"data": %s}]}`, `{"breadcrumbs": {"values": [{"data": {"d": %s}}], "other": %s}}`,
	`{"fingerprint": %s}`, `{"fingerprint": [%s, "{{ default }}"]}`, `{"sdk": %s}`, `{"sdk": {"name": %s, "version": %s}}`,
	`{"modules": %s, "level": "info"}`, `{"unknown": {"deep": [%s]}}`,
}
