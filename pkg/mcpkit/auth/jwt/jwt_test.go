package jwt_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

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

// jwtAuth makes a JWT verifier for the endpoint (its audience).
func jwtAuth(t testing.TB, issuer string, now func() time.Time) func(endpoint string) auth.Verifier {
	return func(endpoint string) auth.Verifier {
		jv, err := jwt.NewVerifier(jwt.Options{Issuer: issuer, Audience: endpoint, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return jv
	}
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
	is := remotetest.NewIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	endpoint := remotetest.AuthedService(t, jwtAuth(t, is.Issuer, clock.now), is.Issuer, nil)
	metadataURL := strings.TrimSuffix(endpoint, "/mcp") + "/.well-known/oauth-protected-resource/mcp"

	now := clock.now()
	claims := func(edit func(map[string]any)) map[string]any {
		c := map[string]any{"iss": is.Issuer, "aud": []string{endpoint}, "sub": "alice", "scope": "mcp",
			"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix()}
		if edit != nil {
			edit(c)
		}
		return c
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&is.RSA1.PublicKey))})
	valid := remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(nil))

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
		{"valid ES256 token", "Bearer " + remotetest.Sign(t, is.EC1, jose.ES256, "ec-1", claims(nil)), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"valid EdDSA token", "Bearer " + remotetest.Sign(t, is.Ed1, jose.EdDSA, "ed-1", claims(nil)), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"scheme is case-insensitive", "bearer " + valid, "", "add", want{200, nil, "", `{"sum":3}`}},
		{"expired within the clock skew", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() })), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"audience with upper-case scheme and host, and a trailing slash", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["aud"] = upperHost(endpoint) + "/" })), "", "add", want{200, nil, "", `{"sum":3}`}},
		{"write tool with its scope", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["scope"] = "mcp notes:write" })), "", "write_note", want{200, nil, "", "written"}},
		{"write tool with scp array", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp", "notes:write"} })), "", "write_note", want{200, nil, "", "written"}},

		{"no token", "", "", "add", want{401, noToken, "", ""}},
		{"another scheme", "Basic YWxpY2U6c2VjcmV0", "", "add", want{401, noToken, "", ""}},
		{"malformed header: no token", "Bearer ", "", "add", malformed},
		{"malformed header: two tokens", "Bearer abc def", "", "add", malformed},
		{"malformed header: bad characters", "Bearer abc\"def", "", "add", malformed},
		{"wrong audience", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["aud"] = "https://other.example/mcp" })), "", "add", bad("does not include this server")},
		{"no audience", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "aud") })), "", "add", bad("does not include this server")},
		{"wrong issuer", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["iss"] = is.Issuer + "/other" })), "", "add", bad("not by this server's issuer")},
		{"expired", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() })), "", "add", bad("expired at")},
		{"no expiry", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "exp") })), "", "add", bad("no expiry")},
		{"not yet valid", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() })), "", "add", bad("not valid before")},
		{"issued in the future", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["iat"] = now.Add(2 * time.Minute).Unix() })), "", "add", bad("issued in the future")},
		{"no subject", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { delete(c, "sub") })), "", "add", bad("no subject")},
		{"alg none", "Bearer " + unsigned(map[string]any{"alg": "none", "kid": "rsa-1"}, claims(nil)), "", "add", bad(`algorithm "none" is not accepted`)},
		{"HMAC signed with the public key", "Bearer " + remotetest.Sign(t, pubPEM, jose.HS256, "rsa-1", claims(nil)), "", "add", bad(`algorithm "HS256" is not accepted`)},
		{"HMAC signed with the set's symmetric key", "Bearer " + remotetest.Sign(t, []byte("0123456789abcdef0123456789abcdef"), jose.HS256, "oct-1", claims(nil)), "", "add", bad(`algorithm "HS256" is not accepted`)},
		{"RS256 header on an EC key id", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "ec-1", claims(nil)), "", "add", bad(`key set does not contain`)},
		{"signed by a key the issuer never published", "Bearer " + remotetest.Sign(t, is.Rogue, jose.RS256, "rsa-1", claims(nil)), "", "add", bad("signature does not verify")},
		{"tampered claims", "Bearer " + tamper(valid, "alice", "admin"), "", "add", bad("signature does not verify")},
		{"not a JWT", "Bearer opaque-token-value", "", "add", bad("not a JWT")},
		{"token in the query string", "", "?access_token=" + valid, "add", want{400, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_request"}, "never in the query string", ""}},
		{"token in the query string besides a valid header", "Bearer " + valid, "?access_token=" + valid, "add", want{400, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "invalid_request"}, "never in the query string", ""}},
		{"missing scope for a write tool", "Bearer " + valid, "", "write_note", want{403, map[string]string{"resource_metadata": metadataURL, "scope": "mcp notes:write", "error": "insufficient_scope"}, `tool "write_note" needs the scope(s) notes:write`, ""}},
		{"missing the server's scope", "Bearer " + remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims(func(c map[string]any) { c["scope"] = "profile" })), "", "add", want{403, map[string]string{"resource_metadata": metadataURL, "scope": "mcp", "error": "insufficient_scope"}, "needs the scope(s) mcp", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := remotetest.NewClient(t, endpoint+tt.query)
			if tt.header != "" {
				c.Header = map[string]string{"Authorization": tt.header}
			}
			args := map[string]any{"a": 1, "b": 2}
			if tt.tool == "write_note" {
				args = map[string]any{"text": "hi"}
			}
			r := c.Do("tools/call", map[string]any{"name": tt.tool, "arguments": args})
			if r.Status != tt.want.status {
				t.Fatalf("status %d, want %d (body %s, challenge %q)", r.Status, tt.want.status, r.Body, r.Header.Get("WWW-Authenticate"))
			}
			if tt.want.status == 200 {
				if r.Header.Get("WWW-Authenticate") != "" {
					t.Errorf("an accepted request carries a challenge: %q", r.Header.Get("WWW-Authenticate"))
				}
				tr := r.Tool(t)
				if tr.IsError || !strings.Contains(tr.Text(), tt.want.text) {
					t.Fatalf("tool answered %q (isError %v), want %q", tr.Text(), tr.IsError, tt.want.text)
				}
				return
			}
			got := challengeParams(t, r.Header.Get("WWW-Authenticate"))
			desc := got["error_description"]
			delete(got, "error_description")
			if diff := cmp.Diff(tt.want.challenge, got); diff != "" {
				t.Errorf("challenge (-want +got):\n%s", diff)
			}
			// The header cannot carry quotes; the JSON-RPC body keeps them.
			if !strings.Contains(desc, strings.ReplaceAll(tt.want.desc, `"`, "")) {
				t.Errorf("error_description %q does not say %q", desc, tt.want.desc)
			}
			if r.Err == nil || !strings.Contains(r.Err.Message, tt.want.desc) {
				t.Errorf("refusal without a JSON-RPC error body saying %q: %s", tt.want.desc, r.Body)
			}
			for _, tok := range []string{valid, strings.TrimPrefix(tt.header, "Bearer ")} {
				if len(tok) > 20 && (strings.Contains(string(r.Body), tok) || strings.Contains(r.Header.Get("WWW-Authenticate"), tok)) {
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
	is := remotetest.NewIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	const endpoint = "http://127.0.0.1:1/mcp" // verified directly: no server needed
	jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint, Now: clock.now, MinRefreshInterval: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok := func(key any, kid string) string {
		now := clock.now()
		return remotetest.Sign(t, key, jose.RS256, kid, map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice",
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
		{"first token fetches the key set", 0, is.RSA1, "rsa-1", true, 1},
		{"known kid: no fetch", 0, is.RSA1, "rsa-1", true, 1},
		{"unknown kid right after a fetch: rate-limited, refused", 0, is.Rogue, "rogue", false, 1},
		{"unknown kid after the interval: one refresh, still refused", 31 * time.Second, is.Rogue, "rogue", false, 2},
		{"unknown kid again at once: no second refresh", 0, is.Rogue, "rogue", false, 2},
		{"rotated-in key before a refresh is allowed: refused", 0, is.RSA2, "rsa-2", false, 2},
		{"rotated-in key after the interval: refresh, accepted", 31 * time.Second, is.RSA2, "rsa-2", true, 3},
		{"old key still in the set: accepted without a fetch", 0, is.RSA1, "rsa-1", true, 3},
	}
	for i, st := range steps {
		if i == 5 {
			is.Publish(jose.JSONWebKey{Key: &is.RSA2.PublicKey, KeyID: "rsa-2", Algorithm: "RS256", Use: "sig"})
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
		if got := is.JWKSFetches.Load(); got != st.jwksAfter {
			t.Errorf("%s: %d key-set fetches, want %d", st.name, got, st.jwksAfter)
		}
	}
	if got := is.MetadataFetches.Load(); got != 1 {
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
			is := remotetest.NewIssuer(t, tt.layout, tt.path)
			endpoint := remotetest.AuthedService(t, jwtAuth(t, is.Issuer, nil), is.Issuer, nil)
			c := remotetest.NewClient(t, endpoint)
			c.Token = remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice", "scope": "mcp",
				"exp": time.Now().Add(time.Minute).Unix()})
			r := c.Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 2}})
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if tt.status == 503 && (r.Header.Get("Retry-After") == "" || !strings.Contains(r.Err.Message, "cannot verify access tokens right now")) {
				t.Errorf("503 without Retry-After or reason: %v %s", r.Header, r.Body)
			}
		})
	}
}

func TestJWTVerifierOptionsAreChecked(t *testing.T) {
	tests := []struct {
		name string
		o    jwt.Options
		want string
	}{
		{"no issuer", jwt.Options{Audience: "https://a.example/mcp"}, "issuer URL is required"},
		{"issuer with a query", jwt.Options{Issuer: "https://auth.example?x=1", Audience: "https://a.example/mcp"}, "query or fragment"},
		{"plain http issuer", jwt.Options{Issuer: "http://auth.example", Audience: "https://a.example/mcp"}, "must use https"},
		{"no audience", jwt.Options{Issuer: "https://auth.example"}, "audience"},
		{"audience with fragment", jwt.Options{Issuer: "https://auth.example", Audience: "https://a.example/mcp#x"}, "fragment"},
		{"alg none", jwt.Options{Issuer: "https://auth.example", Audience: "https://a.example/mcp", Algorithms: []string{"none"}}, `algorithm "none" is not accepted`},
		{"HMAC", jwt.Options{Issuer: "https://auth.example", Audience: "https://a.example/mcp", Algorithms: []string{"RS256", "HS256"}}, `algorithm "HS256" is not accepted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jwt.NewVerifier(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestVerifiersReportTheVerifierThatKnowsTheToken: with static tokens and JWTs
// both configured, a forged JWT is refused for its signature, not as an unknown
// static token.
func TestVerifiersReportTheVerifierThatKnowsTheToken(t *testing.T) {
	is := remotetest.NewIssuer(t, "rfc8414", "")
	const endpoint = "http://127.0.0.1:1/mcp"
	jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	st, err := auth.ParseStaticTokens(strings.Repeat("s", 32) + " svc mcp")
	if err != nil {
		t.Fatal(err)
	}
	both := auth.Verifiers(st, jv)
	claims := map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}
	if p, err := both.Verify(context.Background(), strings.Repeat("s", 32)); err != nil || p.Subject != "svc" {
		t.Errorf("static token: %v %v", p, err)
	}
	if p, err := both.Verify(context.Background(), remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims)); err != nil || p.Subject != "alice" {
		t.Errorf("JWT: %v %v", p, err)
	}
	_, err = both.Verify(context.Background(), remotetest.Sign(t, is.Rogue, jose.RS256, "rsa-1", claims))
	if err == nil || !strings.Contains(err.Error(), "signature does not verify") {
		t.Errorf("forged JWT: %v, want a signature error", err)
	}
	_, err = both.Verify(context.Background(), "neither-a-jwt-nor-a-static-token-at-all")
	if err == nil || !strings.Contains(err.Error(), "not recognized") {
		t.Errorf("unknown token: %v", err)
	}
}

func TestJWTAccessTokenType(t *testing.T) {
	is := remotetest.NewIssuer(t, "rfc8414", "")
	const endpoint = "http://127.0.0.1:1/mcp"
	claims := map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}
	atJWT := remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", claims) // typ at+jwt
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: is.RSA1, KeyID: "rsa-1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	plainJWT, err := josejwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	for _, require := range []bool{false, true} {
		jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint, RequireAccessTokenType: require})
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
	is := remotetest.NewIssuer(t, "rfc8414", "")
	clock := newFakeClock()
	const endpoint = "http://127.0.0.1:1/mcp"
	jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint, Now: clock.now, ClockSkew: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok := remotetest.Sign(t, is.RSA1, jose.RS256, "rsa-1", map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "alice",
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

// TestServeFlagDefaultIsDefaultAlgorithms: the default of serve's --auth-algorithms
// (serve does not import this package) is DefaultAlgorithms.
func TestServeFlagDefaultIsDefaultAlgorithms(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	serve.RegisterFlags(fs)
	if got, want := fs.Lookup("auth-algorithms").DefValue, strings.Join(jwt.DefaultAlgorithms, ","); got != want {
		t.Errorf("--auth-algorithms defaults to %q; jwt.DefaultAlgorithms is %q", got, want)
	}
}
