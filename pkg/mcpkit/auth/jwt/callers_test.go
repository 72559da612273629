package jwt_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// twoAlices serves remotetest's server (with its "hold" tool) behind static tokens and
// JWTs at once, and returns a static token and a JWT whose subjects are both "alice".
func twoAlices(t *testing.T, o *serve.Options, scope string) (endpoint, static, jwtTok string, hold, entered chan struct{}) {
	t.Helper()
	is := remotetest.NewIssuer(t, "rfc8414", "")
	static = strings.Repeat("s", 32)
	st, err := auth.ParseStaticTokens(static + " alice " + strings.ReplaceAll(scope, " ", ","))
	if err != nil {
		t.Fatal(err)
	}
	// The JWT verifier's audience is the endpoint, known once the server listens;
	// it is set before the first request.
	var jv auth.Verifier
	late := auth.VerifierFunc(func(ctx context.Context, tok string) (*auth.Principal, error) { return jv.Verify(ctx, tok) })
	o.Auth = &auth.Options{Verifier: auth.Verifiers(st, late), AuthorizationServers: []string{is.Issuer}, Scopes: []string{"mcp"}}
	endpoint, hold, entered = remotetest.HoldService(t, o)
	jv = jwtAuth(t, is.Issuer, nil)(endpoint)
	jwtTok = remotetest.Sign(t, is.EC1, jose.ES256, "ec-1", map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice",
		"scope": scope, "exp": time.Now().Add(10 * time.Minute).Unix()})
	return endpoint, static, jwtTok, hold, entered
}

// TestSameSubjectOfTwoVerifiersIsTwoCallers: the static token "alice" and a JWT whose
// sub is "alice" are different callers. Neither can finish the other's
// multi-round-trip request, use the other's legacy session, or use up the other's
// share of the per-caller limits (issue 13, item 4).
func TestSameSubjectOfTwoVerifiersIsTwoCallers(t *testing.T) {
	client := func(endpoint, token string) *remotetest.Client {
		c := remotetest.NewClient(t, endpoint)
		c.Token = token
		return c
	}
	t.Run("requestState", func(t *testing.T) {
		endpoint, static, jwtTok, _, _ := twoAlices(t, &serve.Options{}, "mcp")
		first := client(endpoint, static).Do("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}}).Tool(t)
		if first.ResultType != "input_required" || first.RequestState == "" {
			t.Fatalf("confirm did not ask: %+v", first)
		}
		answer := map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}
		retry := map[string]any{"name": "confirm", "arguments": map[string]any{}, "inputResponses": answer, "requestState": first.RequestState}
		r := client(endpoint, jwtTok).Do("tools/call", retry)
		if r.Err == nil || !strings.Contains(r.Err.Message, "issued for a different request") {
			t.Errorf("the JWT's alice finished the static token's alice's request: status %d %s", r.Status, r.Body)
		}
		if got := client(endpoint, static).Do("tools/call", retry).Tool(t).Text(); got != "confirmed: accept true" {
			t.Errorf("the static token's alice retrying her own request: %q", got)
		}
	})

	t.Run("legacy session", func(t *testing.T) {
		endpoint, static, jwtTok, _, _ := twoAlices(t, &serve.Options{}, "mcp")
		remotetest.CheckLegacySessionOwner(t, endpoint, static, jwtTok)
	})

	t.Run("concurrency limit", func(t *testing.T) {
		endpoint, static, jwtTok, hold, entered := twoAlices(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: 1}}, "mcp")
		done := make(chan *remotetest.Reply, 1)
		go func() {
			r, err := client(endpoint, static).Try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
		<-entered // the static token's alice holds her only slot
		if r := client(endpoint, static).Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}); r.Status != http.StatusTooManyRequests {
			t.Errorf("a second call of the static token's alice: status %d, want 429", r.Status)
		}
		if r := client(endpoint, jwtTok).Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 1}}); r.Status != http.StatusOK {
			t.Errorf("the JWT's alice was limited by the static token's alice's call: status %d %s", r.Status, r.Body)
		}
		close(hold)
		<-done
	})
}

// TestToolScopesWithEitherKindOfToken: a tool with Scopes needs them whichever
// verifier vouched for the token; the 403 names every scope the call needs
// (the server's and the tool's), and Protected Resource Metadata advertises every
// registered tool's scopes, including a tool registered after serving began
// (issue 13, item 1: the mechanism the servers' write scopes rely on).
func TestToolScopesWithEitherKindOfToken(t *testing.T) {
	write := mcpkit.WriteScope("notes")
	if write != "notes:write" {
		t.Fatalf("WriteScope(notes) = %q", write)
	}
	endpoint, static, jwtTok, _, _ := twoAlices(t, &serve.Options{}, "mcp")
	endpointW, staticW, jwtW, _, _ := twoAlices(t, &serve.Options{}, "mcp "+write)
	for _, tc := range []struct {
		name, endpoint, token string
		status                int
	}{
		{"static token without the write scope", endpoint, static, http.StatusForbidden},
		{"JWT without the write scope", endpoint, jwtTok, http.StatusForbidden},
		{"static token with the write scope", endpointW, staticW, http.StatusOK},
		{"JWT with the write scope", endpointW, jwtW, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := remotetest.NewClient(t, tc.endpoint)
			c.Token = tc.token
			r := c.Do("tools/call", map[string]any{"name": "write_note", "arguments": map[string]any{"text": "x"}})
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			if tc.status == http.StatusOK {
				if r.Tool(t).Text() != "written" {
					t.Errorf("write_note answered %s", r.Body)
				}
				return
			}
			got := challengeParams(t, r.Header.Get("WWW-Authenticate"))
			if got["error"] != "insufficient_scope" || got["scope"] != "mcp "+write || got["resource_metadata"] == "" {
				t.Errorf("challenge %q: want insufficient_scope naming every scope the call needs (mcp %s) and the metadata", r.Header.Get("WWW-Authenticate"), write)
			}
			if r.Err == nil || !strings.Contains(r.Err.Message, `needs the scope(s) `+write) {
				t.Errorf("the refusal does not name the missing scope: %s", r.Body)
			}
		})
	}

	// Metadata lists the tools' scopes, read when it is fetched.
	s := remotetest.Server(nil, nil, nil)
	base := remotetest.ServeAt(t, func(base string) http.Handler {
		return remotetest.Service(t, s, &serve.Options{Auth: &auth.Options{Verifier: auth.VerifierFunc(func(context.Context, string) (*auth.Principal, error) {
			return nil, auth.ErrTokenUnrecognized
		}), Resource: base + "/mcp", AuthorizationServers: []string{"https://auth.example"}, Scopes: []string{"mcp"}}})
	})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "delete_note", Description: "Deletes a note.", Scopes: []string{mcpkit.WriteScope("archive")}},
		func(ctx context.Context, req *mcpkit.Request, in remotetest.NoteIn) (*mcpkit.CallToolResult, error) {
			return nil, nil
		})
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mcp", write, "archive:write"} {
		if !slices.Contains(md.ScopesSupported, want) {
			t.Errorf("scopes_supported %v lacks %q", md.ScopesSupported, want)
		}
	}
}
