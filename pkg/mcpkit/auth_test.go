package mcpkit_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// testIssuer is a local OAuth authorization server: it publishes its metadata and a
// JSON Web Key Set of keys the test generated, and counts how often they are fetched.
type testIssuer struct {
	srv    *httptest.Server
	issuer string // the issuer identifier (srv.URL, plus a path for path issuers)

	mu        sync.Mutex
	published []jose.JSONWebKey
	// layout chooses which metadata documents exist: "rfc8414", "oidc" or "foreign"
	// (a document that names another issuer).
	layout string

	metadataFetches, jwksFetches atomic.Int32

	rsa1, rsa2, rogue *rsa.PrivateKey
	ec1               *ecdsa.PrivateKey
	ed1               ed25519.PrivateKey
}

func newTestIssuer(t testing.TB, layout, path string) *testIssuer {
	t.Helper()
	is := &testIssuer{layout: layout}
	k := testKeys(t)
	is.rsa1, is.rsa2, is.rogue, is.ec1, is.ed1 = k.rsa1, k.rsa2, k.rogue, k.ec1, k.ed1
	is.published = []jose.JSONWebKey{
		{Key: &is.rsa1.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"},
		{Key: &is.ec1.PublicKey, KeyID: "ec-1", Algorithm: "ES256", Use: "sig"},
		{Key: is.ed1.Public(), KeyID: "ed-1", Algorithm: "EdDSA", Use: "sig"},
		// A symmetric key in the set must never be used, whatever a token says.
		{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "oct-1", Algorithm: "HS256"},
	}
	is.srv = httptest.NewUnstartedServer(http.HandlerFunc(is.serve))
	is.issuer = "http://" + is.srv.Listener.Addr().String() + path
	is.srv.Start()
	t.Cleanup(is.srv.Close)
	return is
}

// issuerKeys are generated once per test binary: RSA key generation is slow.
type issuerKeys struct {
	rsa1, rsa2, rogue *rsa.PrivateKey
	ec1               *ecdsa.PrivateKey
	ed1               ed25519.PrivateKey
}

var (
	keysOnce  sync.Once
	keysValue issuerKeys
	keysErr   error
)

func testKeys(t testing.TB) issuerKeys {
	t.Helper()
	keysOnce.Do(func() {
		k := &keysValue
		for _, p := range []**rsa.PrivateKey{&k.rsa1, &k.rsa2, &k.rogue} {
			if *p, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
				return
			}
		}
		if k.ec1, keysErr = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); keysErr != nil {
			return
		}
		_, k.ed1, keysErr = ed25519.GenerateKey(rand.Reader)
	})
	if keysErr != nil {
		t.Fatal(keysErr)
	}
	return keysValue
}

func (is *testIssuer) serve(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	defer is.mu.Unlock()
	u, _ := http.NewRequest("GET", is.issuer, nil)
	issuerPath := strings.TrimSuffix(u.URL.Path, "/")
	metadata := func() {
		is.metadataFetches.Add(1)
		iss := is.issuer
		if is.layout == "foreign" {
			iss = "https://someone-else.example"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "jwks_uri": is.srv.URL + "/jwks", "response_types_supported": []string{"code"}})
	}
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server" + issuerPath:
		if is.layout == "rfc8414" || is.layout == "foreign" {
			metadata()
			return
		}
	case issuerPath + "/.well-known/openid-configuration":
		if is.layout == "oidc" {
			metadata()
			return
		}
	case "/jwks":
		is.jwksFetches.Add(1)
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.published})
		return
	}
	http.NotFound(w, r)
}

// publish adds a key to the set (key rotation).
func (is *testIssuer) publish(k jose.JSONWebKey) {
	is.mu.Lock()
	is.published = append(is.published, k)
	is.mu.Unlock()
}

// sign makes a JWS of claims with the key, algorithm and kid given.
func sign(t testing.TB, key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsigned makes an "alg: none" token, which no verifier may accept.
func unsigned(header, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

// fakeClock is a clock tests move forward.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// authedService is remoteServer behind authorization (the Authorizer made for the
// endpoint's URL, which is the resource URI), mounted on a test server; it returns
// the MCP endpoint URL.
func authedService(t testing.TB, auth func(endpoint string) mcpkit.Authorizer, issuer string, mutate func(*mcpkit.ServeOptions)) string {
	t.Helper()
	base := serveAt(t, func(base string) http.Handler {
		endpoint := base + "/mcp"
		o := &mcpkit.ServeOptions{HTTP: mcpkit.HTTPOptions{Auth: &mcpkit.AuthOptions{
			Authorizer: auth(endpoint), Resource: endpoint, AuthorizationServers: []string{issuer}, Scopes: []string{"mcp"},
		}}}
		if mutate != nil {
			mutate(o)
		}
		return mustService(t, remoteServer(nil, nil, nil), o)
	})
	return base + "/mcp"
}

// jwtAuth makes a JWT verifier for the endpoint (its audience).
func jwtAuth(t testing.TB, issuer string, now func() time.Time) func(endpoint string) mcpkit.Authorizer {
	return func(endpoint string) mcpkit.Authorizer {
		jv, err := mcpkit.NewJWTVerifier(mcpkit.JWTOptions{Issuer: issuer, Audience: endpoint, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return jv
	}
}

// fixed returns the same authorizer for any endpoint.
func fixed(a mcpkit.Authorizer) func(string) mcpkit.Authorizer {
	return func(string) mcpkit.Authorizer { return a }
}

// challengeParams parses a Bearer challenge into its parameters.
func challengeParams(t *testing.T, v string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(v, "Bearer ")
	if !ok {
		t.Fatalf("WWW-Authenticate %q is not a Bearer challenge", v)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+)="([^"]*)"`).FindAllStringSubmatch(rest, -1) {
		out[m[1]] = m[2]
	}
	if rebuilt := regexp.MustCompile(`(\w+)="([^"]*)"(, )?`).ReplaceAllString(rest, ""); rebuilt != "" {
		t.Fatalf("WWW-Authenticate %q has unparsable parts: %q", v, rebuilt)
	}
	return out
}

func TestJWTAuthorization(t *testing.T) {
	is := newTestIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	endpoint := authedService(t, jwtAuth(t, is.issuer, clock.now), is.issuer, nil)
	metadataURL := strings.TrimSuffix(endpoint, "/mcp") + "/.well-known/oauth-protected-resource/mcp"

	now := clock.now()
	claims := func(edit func(map[string]any)) map[string]any {
		c := map[string]any{"iss": is.issuer, "aud": []string{endpoint}, "sub": "alice", "scope": "mcp",
			"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix()}
		if edit != nil {
			edit(c)
		}
		return c
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&is.rsa1.PublicKey))})
	valid := sign(t, is.rsa1, jose.RS256, "rsa-1", claims(nil))

	type want struct {
		status    int
		challenge map[string]string // without error_description
		desc      string            // a phrase error_description must contain
		text      string            // the tool's text, for accepted calls
	}
	noToken := map[string]string{"resource_metadata": metadataURL, "scope": "mcp"}
	bad := func(desc string) want {
		return want{401, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_token"}, desc, ""}
	}
	malformed := want{400, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_request"}, "malformed Authorization header", ""}
	tests := []struct {
		name   string
		header string // the Authorization header ("" for none)
		query  string // appended to the endpoint URL
		tool   string
		want   want
	}{
		{"valid RS256 token", "Bearer " + valid, "", "add", want{200, nil, "", `{"sum":3}`}},
		{"valid ES256 token", "Bearer " + sign(t, is.ec1, jose.ES256, "ec-1", claims(nil)), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"valid EdDSA token", "Bearer " + sign(t, is.ed1, jose.EdDSA, "ed-1", claims(nil)), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"scheme is case-insensitive", "bearer " + valid, "", "add", want{200, nil, "", `{"sum":3}`}},
		{"expired within the clock skew", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() })), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"audience with upper-case scheme and host, and a trailing slash", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["aud"] = upperHost(endpoint) + "/" })), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"write tool with its scope", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["scope"] = "mcp notes:write" })), "", "write_note", want{200, nil, "", "written"}},
		{"write tool with scp array", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp", "notes:write"} })), "", "write_note", want{200, nil, "", "written"}},

		{"no token", "", "", "add", want{401, noToken, "", ""}},
		{"another scheme", "Basic YWxpY2U6c2VjcmV0", "", "add", want{401, noToken, "", ""}},
		{"malformed header: no token", "Bearer ", "", "add", malformed},
		{"malformed header: two tokens", "Bearer abc def", "", "add", malformed},
		{"malformed header: bad characters", "Bearer abc\"def", "", "add", malformed},
		{"wrong audience", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["aud"] = "https://other.example/mcp" })), "", "add", bad("does not include this server")},
		{"no audience", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "aud") })), "", "add", bad("does not include this server")},
		{"wrong issuer", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["iss"] = is.issuer + "/other" })), "", "add", bad("not by this server's issuer")},
		{"expired", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() })), "", "add", bad("expired at")},
		{"no expiry", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "exp") })), "", "add", bad("no expiry")},
		{"not yet valid", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() })), "", "add", bad("not valid before")},
		{"issued in the future", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["iat"] = now.Add(2 * time.Minute).Unix() })), "", "add", bad("issued in the future")},
		{"no subject", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "sub") })), "", "add", bad("no subject")},
		{"alg none", "Bearer " + unsigned(map[string]any{"alg": "none", "kid": "rsa-1"}, claims(nil)), "", "add", bad(`algorithm "none" is not accepted`)},
		{"HMAC signed with the public key", "Bearer " + sign(t, pubPEM, jose.HS256, "rsa-1", claims(nil)), "", "add", bad(`algorithm "HS256" is not accepted`)},
		{"HMAC signed with the set's symmetric key", "Bearer " + sign(t, []byte("0123456789abcdef0123456789abcdef"), jose.HS256, "oct-1", claims(nil)), "", "add", bad(`algorithm "HS256" is not accepted`)},
		{"RS256 header on an EC key id", "Bearer " + sign(t, is.rsa1, jose.RS256, "ec-1", claims(nil)), "", "add", bad(`key set does not contain`)},
		{"signed by a key the issuer never published", "Bearer " + sign(t, is.rogue, jose.RS256, "rsa-1", claims(nil)), "", "add", bad("signature does not verify")},
		{"tampered claims", "Bearer " + tamper(valid, "alice", "admin"), "", "add", bad("signature does not verify")},
		{"not a JWT", "Bearer opaque-token-value", "", "add", bad("not a JWT")},
		{"token in the query string", "", "?access_token=" + valid, "add", want{400, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_request"}, "never in the query string", ""}},
		{"token in the query string besides a valid header", "Bearer " + valid, "?access_token=" + valid, "add", want{400, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_request"}, "never in the query string", ""}},
		{"missing scope for a write tool", "Bearer " + valid, "", "write_note", want{403, map[string]string{"resource_metadata": metadataURL, "scope": "mcp notes:write", "error": "insufficient_scope"}, `tool "write_note" needs the scope(s) notes:write`, ""}},
		{"missing the server's scope", "Bearer " + sign(t, is.rsa1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["scope"] = "profile" })), "", "add", want{403, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "insufficient_scope"}, "needs the scope(s) mcp", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newRemoteClient(t, endpoint+tt.query)
			if tt.header != "" {
				c.header = map[string]string{"Authorization": tt.header}
			}
			args := map[string]any{"a": 1, "b": 2}
			if tt.tool == "write_note" {
				args = map[string]any{"text": "hi"}
			}
			r := c.do("tools/call", map[string]any{"name": tt.tool, "arguments": args})
			if r.status != tt.want.status {
				t.Fatalf("status %d, want %d (body %s, challenge %q)", r.status, tt.want.status, r.body, r.header.Get("WWW-Authenticate"))
			}
			if tt.want.status == 200 {
				if r.header.Get("WWW-Authenticate") != "" {
					t.Errorf("an accepted request carries a challenge: %q", r.header.Get("WWW-Authenticate"))
				}
				tr := r.tool(t)
				if tr.IsError || !strings.Contains(tr.text(), tt.want.text) {
					t.Fatalf("tool answered %q (isError %v), want %q", tr.text(), tr.IsError, tt.want.text)
				}
				return
			}
			got := challengeParams(t, r.header.Get("WWW-Authenticate"))
			desc := got["error_description"]
			delete(got, "error_description")
			if diff := cmp.Diff(tt.want.challenge, got); diff != "" {
				t.Errorf("challenge (-want +got):\n%s", diff)
			}
			// The header cannot carry quotes; the JSON-RPC body keeps them.
			if !strings.Contains(desc, strings.ReplaceAll(tt.want.desc, `"`, "")) {
				t.Errorf("error_description %q does not say %q", desc, tt.want.desc)
			}
			if r.err == nil || !strings.Contains(r.err.Message, tt.want.desc) {
				t.Errorf("refusal without a JSON-RPC error body saying %q: %s", tt.want.desc, r.body)
			}
			for _, tok := range []string{valid, strings.TrimPrefix(tt.header, "Bearer ")} {
				if len(tok) > 20 && (strings.Contains(string(r.body), tok) || strings.Contains(r.header.Get("WWW-Authenticate"), tok)) {
					t.Errorf("the refusal repeats the token")
				}
			}
		})
	}
}

// upperHost writes a URL's scheme and host in upper case: the same resource.
func upperHost(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	host, path, _ := strings.Cut(rest, "/")
	return strings.ToUpper(scheme) + "://" + strings.ToUpper(host) + "/" + path
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// tamper replaces text in a JWT's payload, keeping its signature.
func tamper(tok, old, new string) string {
	parts := strings.Split(tok, ".")
	p, _ := base64.RawURLEncoding.DecodeString(parts[1])
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(strings.ReplaceAll(string(p), old, new)))
	return strings.Join(parts, ".")
}

// TestJWTKeyRotation proves the key cache: an unknown kid makes the verifier fetch
// the key set again (once), at most once per refresh interval however many such
// tokens arrive, and a rotated-in key is accepted after a refresh.
func TestJWTKeyRotation(t *testing.T) {
	is := newTestIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	const endpoint = "http://127.0.0.1:1/mcp" // verified directly: no server needed
	jv, err := mcpkit.NewJWTVerifier(mcpkit.JWTOptions{Issuer: is.issuer, Audience: endpoint, Now: clock.now, MinRefreshInterval: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok := func(key any, kid string) string {
		now := clock.now()
		return sign(t, key, jose.RS256, kid, map[string]any{"iss": is.issuer, "aud": endpoint, "sub": "alice",
			"exp": now.Add(10 * time.Minute).Unix(), "iat": now.Unix()})
	}
	ctx := context.Background()
	steps := []struct {
		name      string
		advance   time.Duration
		key       any
		kid       string
		accept    bool
		jwksAfter int32
	}{
		{"first token fetches the key set", 0, is.rsa1, "rsa-1", true, 1},
		{"known kid: no fetch", 0, is.rsa1, "rsa-1", true, 1},
		{"unknown kid right after a fetch: rate-limited, refused", 0, is.rogue, "rogue", false, 1},
		{"unknown kid after the interval: one refresh, still refused", 31 * time.Second, is.rogue, "rogue", false, 2},
		{"unknown kid again at once: no second refresh", 0, is.rogue, "rogue", false, 2},
		{"rotated-in key before a refresh is allowed: refused", 0, is.rsa2, "rsa-2", false, 2},
		{"rotated-in key after the interval: refresh, accepted", 31 * time.Second, is.rsa2, "rsa-2", true, 3},
		{"old key still in the set: accepted without a fetch", 0, is.rsa1, "rsa-1", true, 3},
	}
	for i, st := range steps {
		if i == 5 {
			is.publish(jose.JSONWebKey{Key: &is.rsa2.PublicKey, KeyID: "rsa-2", Algorithm: "RS256", Use: "sig"})
		}
		clock.advance(st.advance)
		p, err := jv.Verify(ctx, tok(st.key, st.kid))
		if (err == nil) != st.accept {
			t.Fatalf("%s: accepted=%v (err %v), want %v", st.name, err == nil, err, st.accept)
		}
		if err == nil && p.Subject != "alice" {
			t.Errorf("%s: subject %q", st.name, p.Subject)
		}
		if err != nil && !strings.Contains(err.Error(), "does not contain") {
			t.Errorf("%s: error %q does not name the unknown key", st.name, err)
		}
		if got := is.jwksFetches.Load(); got != st.jwksAfter {
			t.Errorf("%s: %d key-set fetches, want %d", st.name, got, st.jwksAfter)
		}
	}
	if got := is.metadataFetches.Load(); got != 1 {
		t.Errorf("metadata fetched %d times, want once (the JWKS URL is kept)", got)
	}
}

// TestJWTDiscovery covers where the issuer's metadata may live, and that a metadata
// document naming another issuer (or no reachable issuer) makes requests fail with
// 503, not with an invalid-token 401 that would discard a good token.
func TestJWTDiscovery(t *testing.T) {
	tests := []struct {
		layout, path string
		status       int
	}{
		{"rfc8414", "", 200},
		{"rfc8414", "/tenants/one", 200},
		{"oidc", "", 200},
		{"oidc", "/realms/x", 200},
		{"foreign", "", 503},
		{"none", "", 503},
	}
	for _, tt := range tests {
		t.Run(tt.layout+tt.path, func(t *testing.T) {
			is := newTestIssuer(t, tt.layout, tt.path)
			endpoint := authedService(t, jwtAuth(t, is.issuer, nil), is.issuer, nil)
			c := newRemoteClient(t, endpoint)
			c.token = sign(t, is.rsa1, jose.RS256, "rsa-1", map[string]any{"iss": is.issuer, "aud": endpoint, "sub": "alice", "scope": "mcp",
				"exp": time.Now().Add(time.Minute).Unix()})
			r := c.do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 2}})
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.status == 503 && (r.header.Get("Retry-After") == "" || !strings.Contains(r.err.Message, "cannot verify access tokens right now")) {
				t.Errorf("503 without Retry-After or reason: %v %s", r.header, r.body)
			}
		})
	}
}

func TestJWTVerifierOptionsAreChecked(t *testing.T) {
	tests := []struct {
		name string
		o    mcpkit.JWTOptions
		want string
	}{
		{"no issuer", mcpkit.JWTOptions{Audience: "https://a.example/mcp"}, "issuer URL is required"},
		{"issuer with a query", mcpkit.JWTOptions{Issuer: "https://auth.example?x=1", Audience: "https://a.example/mcp"}, "query or fragment"},
		{"plain http issuer", mcpkit.JWTOptions{Issuer: "http://auth.example", Audience: "https://a.example/mcp"}, "must use https"},
		{"no audience", mcpkit.JWTOptions{Issuer: "https://auth.example"}, "audience"},
		{"audience with fragment", mcpkit.JWTOptions{Issuer: "https://auth.example", Audience: "https://a.example/mcp#x"}, "fragment"},
		{"alg none", mcpkit.JWTOptions{Issuer: "https://auth.example", Audience: "https://a.example/mcp", Algorithms: []string{"none"}}, `algorithm "none" is not accepted`},
		{"HMAC", mcpkit.JWTOptions{Issuer: "https://auth.example", Audience: "https://a.example/mcp", Algorithms: []string{"RS256", "HS256"}}, `algorithm "HS256" is not accepted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcpkit.NewJWTVerifier(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	st, err := mcpkit.ParseStaticTokens(mcpkit.HashStaticToken("x") + " alice mcp")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := authedService(t, fixed(st), "https://auth.example", func(o *mcpkit.ServeOptions) {
		o.HTTP.Auth.ScopesSupported = []string{"offline_access", "profile"}
		o.HTTP.Auth.ResourceName = "Remote test"
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
	content := "# operators\n" + mcpkit.HashStaticToken(aliceTok) + "  alice  mcp,notes:write\n\n" + bobTok + " bob mcp\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := mcpkit.LoadStaticTokens(file)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := authedService(t, fixed(st), "https://auth.example", nil)
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
		c := newRemoteClient(t, endpoint)
		c.token = tt.token
		r := c.do("tools/call", map[string]any{"name": tt.tool, "arguments": map[string]any{"a": 1, "b": 1, "text": "x"}})
		if r.status != tt.status {
			t.Errorf("token %.6s… %s: status %d, want %d (%s)", tt.token, tt.tool, r.status, tt.status, r.body)
		}
	}

	bad := []struct{ text, want string }{
		{"", "no tokens"},
		{"short alice", "at least 32 characters"},
		{"sha256:abcd alice", "64 hex digits"},
		{aliceTok, "expected"},
		{aliceTok + " alice mcp extra", "expected"},
		{aliceTok + " alice; " + mcpkit.HashStaticToken(aliceTok) + " again", "listed twice"},
	}
	for _, b := range bad {
		_, err := mcpkit.ParseStaticTokens(b.text)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseStaticTokens(%q): %v, want an error saying %q", b.text, err, b.want)
		}
		if err != nil && len(aliceTok) > 0 && strings.Contains(err.Error(), aliceTok) {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
}

// TestAuthorizersReportTheVerifierThatKnowsTheToken: with static tokens and JWTs
// both configured, a forged JWT is refused for its signature, not as an unknown
// static token.
func TestAuthorizersReportTheVerifierThatKnowsTheToken(t *testing.T) {
	is := newTestIssuer(t, "rfc8414", "")
	const endpoint = "http://127.0.0.1:1/mcp"
	jv, err := mcpkit.NewJWTVerifier(mcpkit.JWTOptions{Issuer: is.issuer, Audience: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	st, err := mcpkit.ParseStaticTokens(strings.Repeat("s", 32) + " svc mcp")
	if err != nil {
		t.Fatal(err)
	}
	both := mcpkit.Authorizers(st, jv)
	claims := map[string]any{"iss": is.issuer, "aud": endpoint, "sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}
	if p, err := both.Verify(context.Background(), strings.Repeat("s", 32)); err != nil || p.Subject != "svc" {
		t.Errorf("static token: %v %v", p, err)
	}
	if p, err := both.Verify(context.Background(), sign(t, is.rsa1, jose.RS256, "rsa-1", claims)); err != nil || p.Subject != "alice" {
		t.Errorf("JWT: %v %v", p, err)
	}
	_, err = both.Verify(context.Background(), sign(t, is.rogue, jose.RS256, "rsa-1", claims))
	if err == nil || !strings.Contains(err.Error(), "signature does not verify") {
		t.Errorf("forged JWT: %v, want a signature error", err)
	}
	_, err = both.Verify(context.Background(), "neither-a-jwt-nor-a-static-token-at-all")
	if err == nil || !strings.Contains(err.Error(), "not recognized") {
		t.Errorf("unknown token: %v", err)
	}
}

// TestLegacySessionIsBoundToItsCaller: a 2025-11-25 session created by one token
// cannot be used with another caller's token, even knowing its id.
func TestLegacySessionIsBoundToItsCaller(t *testing.T) {
	alice, bob := strings.Repeat("a", 32), strings.Repeat("b", 32)
	st, err := mcpkit.ParseStaticTokens(alice + " alice mcp\n" + bob + " bob mcp")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := authedService(t, fixed(st), "https://auth.example", nil)
	send := func(token, sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", mcpkit.Revision20251125)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := send(alice, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	send(alice, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := send(bob, sid, list); r.StatusCode != http.StatusNotFound {
		t.Errorf("bob using alice's session: status %d, want 404", r.StatusCode)
	}
	if r := send(alice, sid, list); r.StatusCode != http.StatusOK {
		t.Errorf("alice using her session: status %d, want 200", r.StatusCode)
	}
}

func TestJWTAccessTokenType(t *testing.T) {
	is := newTestIssuer(t, "rfc8414", "")
	const endpoint = "http://127.0.0.1:1/mcp"
	claims := map[string]any{"iss": is.issuer, "aud": endpoint, "sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}
	atJWT := sign(t, is.rsa1, jose.RS256, "rsa-1", claims) // typ at+jwt
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: is.rsa1, KeyID: "rsa-1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	plainJWT, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	for _, require := range []bool{false, true} {
		jv, err := mcpkit.NewJWTVerifier(mcpkit.JWTOptions{Issuer: is.issuer, Audience: endpoint, RequireAccessTokenType: require})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jv.Verify(context.Background(), atJWT); err != nil {
			t.Errorf("require=%v: an at+jwt token was refused: %v", require, err)
		}
		_, err = jv.Verify(context.Background(), plainJWT)
		if refused := err != nil; refused != require {
			t.Errorf("require=%v: a typ JWT token refused=%v (%v)", require, refused, err)
		}
		if require && err != nil && !strings.Contains(err.Error(), "not an access token") {
			t.Errorf("unclear refusal: %v", err)
		}
	}
}

// TestJWTRememberedTokenStillExpires: a token verified once is remembered, but not
// past its expiry (plus skew).
func TestJWTRememberedTokenStillExpires(t *testing.T) {
	is := newTestIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	const endpoint = "http://127.0.0.1:1/mcp"
	jv, err := mcpkit.NewJWTVerifier(mcpkit.JWTOptions{Issuer: is.issuer, Audience: endpoint, Now: clock.now, ClockSkew: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok := sign(t, is.rsa1, jose.RS256, "rsa-1", map[string]any{"iss": is.issuer, "aud": endpoint, "sub": "alice",
		"exp": clock.now().Add(20 * time.Second).Unix()})
	steps := []struct {
		advance time.Duration
		accept  bool
	}{{0, true}, {25 * time.Second, true}, {10 * time.Second, false}}
	for i, st := range steps {
		clock.advance(st.advance)
		_, err := jv.Verify(context.Background(), tok)
		if (err == nil) != st.accept {
			t.Fatalf("step %d (+%v): accepted=%v (%v), want %v", i, st.advance, err == nil, err, st.accept)
		}
	}
}
