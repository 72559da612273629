package auth_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// fixed returns the same authorizer for any endpoint.
func fixed(a auth.Verifier) func(string) auth.Verifier {
	return func(string) auth.Verifier { return a }
}

func TestProtectedResourceMetadata(t *testing.T) {
	st, err := auth.ParseStaticTokens(auth.HashStaticToken("x") + " alice mcp")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := remotetest.AuthedService(t, fixed(st), "https://auth.example", func(o *serve.Options) {
		o.Auth.ScopesSupported = []string{"offline_access", "profile"}
		o.Auth.ResourceName = "Remote test"
	})
	base := strings.TrimSuffix(endpoint, "/mcp")
	want := map[string]any{
		"resource":                 endpoint,
		"authorization_servers":    []any{"https://auth.example"},
		"scopes_supported":         []any{"mcp", "profile", "notes:write"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "Remote test",
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: status %d, type %q, %v", path, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
	resp, err := http.Post(base+"/.well-known/oauth-protected-resource", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the metadata: status %d, want 405", resp.StatusCode)
	}
}

func TestStaticTokens(t *testing.T) {
	aliceTok := strings.Repeat("a", 40)
	bobTok := "bob-token-0123456789-0123456789-0123456789"
	dir := t.TempDir()
	file := filepath.Join(dir, "tokens")
	content := "# operators\n" + auth.HashStaticToken(aliceTok) + "  alice  mcp,notes:write\n\n" + bobTok + " bob mcp\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := auth.LoadStaticTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := remotetest.AuthedService(t, fixed(st), "https://auth.example", nil)
	tests := []struct {
		token, tool string
		status      int
	}{
		{aliceTok, "write_note", 200},
		{bobTok, "add", 200},
		{bobTok, "write_note", 403},
		{aliceTok + "x", "add", 401},
		{strings.Repeat("a", 39), "add", 401},
	}
	for _, tt := range tests {
		c := remotetest.NewClient(t, endpoint)
		c.Token = tt.token
		r := c.Do("tools/call", map[string]any{"name": tt.tool, "arguments": map[string]any{"a": 1, "b": 1, "text": "x"}})
		if r.Status != tt.status {
			t.Errorf("token %.6s… %s: status %d, want %d (%s)", tt.token, tt.tool, r.Status, tt.status, r.Body)
		}
	}

	bad := []struct{ text, want string }{
		{"", "no tokens"},
		{"short alice", "at least 32 characters"},
		{"sha256:abcd alice", "64 hex digits"},
		{aliceTok, "expected"},
		{aliceTok + " alice mcp extra", "expected"},
		{aliceTok + " alice; " + auth.HashStaticToken(aliceTok) + " again", "listed twice"},
	}
	for _, b := range bad {
		_, err := auth.ParseStaticTokens(b.text)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseStaticTokens(%q): %v, want an error saying %q", b.text, err, b.want)
		}
		if err != nil && len(aliceTok) > 0 && strings.Contains(err.Error(), aliceTok) {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
}

// TestLegacySessionIsBoundToItsCaller: a 2025-11-25 session created by one token
// cannot be used with another caller's token, even knowing its id.
func TestLegacySessionIsBoundToItsCaller(t *testing.T) {
	alice, bob := strings.Repeat("a", 32), strings.Repeat("b", 32)
	st, err := auth.ParseStaticTokens(alice + " alice mcp\n" + bob + " bob mcp")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := remotetest.AuthedService(t, fixed(st), "https://auth.example", nil)
	remotetest.CheckLegacySessionOwner(t, endpoint, alice, bob)
}

// TestToolScopeRefusalNamesTheRequest: the 403 of a tool whose scope the token lacks
// is a JSON-RPC error for the request's id (the body was read to find the tool);
// a refused token's 401 has no id (the body was not read).
func TestToolScopeRefusalNamesTheRequest(t *testing.T) {
	tok := strings.Repeat("a", 32)
	st, err := auth.ParseStaticTokens(tok + " alice mcp")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := remotetest.AuthedService(t, fixed(st), "https://auth.example", nil)
	for _, tc := range []struct {
		token  string
		status int
		id     string
	}{{tok, http.StatusForbidden, "1"}, {strings.Repeat("b", 32), http.StatusUnauthorized, "null"}} {
		c := remotetest.NewClient(t, endpoint)
		c.Token = tc.token
		r := c.Do("tools/call", map[string]any{"name": "write_note", "arguments": map[string]any{"text": "x"}})
		var body struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != tc.status || string(body.ID) != tc.id {
			t.Errorf("token %.4s…: status %d, id %s (%v); want %d with id %s: %s", tc.token, r.Status, body.ID, err, tc.status, tc.id, r.Body)
		}
	}
}

// TestStaticTokensOnlyPublishNoMetadata: MCP requires a Protected Resource
// Metadata document to name at least one authorization server
// ("The Protected Resource Metadata document returned by the MCP server MUST include
// the authorization_servers field containing at least one authorization server").
// A deployment of static tokens only has none (its clients get tokens from the
// operator), so it publishes no document, and its challenges point to none; with an
// authorization server the document names it (issue 13, item 6).
func TestStaticTokensOnlyPublishNoMetadata(t *testing.T) {
	tok := strings.Repeat("a", 32)
	st, err := auth.ParseStaticTokens(tok + " alice mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		servers []string
	}{{"static tokens only", nil}, {"with an authorization server", []string{"https://auth.example"}}} {
		t.Run(tc.name, func(t *testing.T) {
			endpoint := remotetest.AuthedService(t, fixed(st), "https://unused.example", func(o *serve.Options) {
				o.Auth.AuthorizationServers = tc.servers
			})
			base := strings.TrimSuffix(endpoint, "/mcp")
			published := 0
			for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
				resp, err := http.Get(base + path)
				if err != nil {
					t.Fatal(err)
				}
				var md map[string]any
				decodeErr := json.NewDecoder(resp.Body).Decode(&md)
				resp.Body.Close()
				if resp.StatusCode == http.StatusNotFound {
					continue
				}
				published++
				// Whatever is published must satisfy MCP and RFC 9728 §2.
				as, _ := md["authorization_servers"].([]any)
				if resp.StatusCode != 200 || decodeErr != nil || len(as) == 0 || md["resource"] != endpoint {
					t.Errorf("%s: status %d (%v), document %v: a published document needs authorization_servers with at least one server and resource", path, resp.StatusCode, decodeErr, md)
				}
			}
			if want := 2 * min(len(tc.servers), 1); published != want {
				t.Errorf("%d metadata documents published, want %d", published, want)
			}

			r := remotetest.NewClient(t, endpoint).Do("tools/list", nil)
			challenge := r.Header.Get("WWW-Authenticate")
			if r.Status != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer ") {
				t.Fatalf("no token: status %d, challenge %q", r.Status, challenge)
			}
			// RFC 6750 §3: the scheme is followed by at least one auth-param.
			hasMetadata := strings.Contains(challenge, "resource_metadata=")
			if hasMetadata != (len(tc.servers) > 0) || !strings.Contains(challenge, `="`) {
				t.Errorf("challenge %q: resource_metadata must appear exactly when metadata is published", challenge)
			}
			if len(tc.servers) == 0 && (r.Err == nil || !strings.Contains(r.Err.Message, "static tokens")) {
				t.Errorf("the 401 does not say this server takes static tokens from its operator: %s", r.Body)
			}
		})
	}
}
