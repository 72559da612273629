package mcpkit

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// JWTOptions configure a JWTVerifier.
type JWTOptions struct {
	// Issuer is the authorization server's issuer identifier; a token's iss must equal
	// it exactly (required). Its metadata (RFC 8414, then OpenID Connect discovery)
	// gives the JWKS URL unless JWKSURL is set.
	Issuer string
	// Audience is this server's canonical resource URI; a token's aud must contain it
	// (required: a token issued for another server is refused).
	Audience string
	// JWKSURL, when set, is where the issuer's public keys are fetched, skipping discovery.
	JWKSURL string
	// Algorithms are the accepted signature algorithms (default: RS256, RS384, RS512,
	// PS256, PS384, PS512, ES256, ES384, ES512, EdDSA). "none" and the HMAC algorithms
	// (HS256…) are refused: the keys are public, so HMAC with them proves nothing.
	Algorithms []string
	// RequireAccessTokenType refuses tokens whose typ header is not "at+jwt"
	// (RFC 9068 §4). Off by default because several widely used issuers still send
	// "JWT"; the audience check already keeps ID tokens (issued for a client, not
	// this server) out.
	RequireAccessTokenType bool
	// VerifyEveryRequest turns off the memory of verified tokens: every request pays
	// for a full signature check (tens of microseconds) even for a token verified a
	// second ago.
	VerifyEveryRequest bool
	// ClockSkew is the tolerance on exp, nbf and iat (default 60 s).
	ClockSkew time.Duration
	// MinRefreshInterval bounds how often the key set is fetched again, however many
	// tokens with unknown key ids arrive (default 30 s).
	MinRefreshInterval time.Duration
	// CacheTTL is how long a fetched key set is used before it is fetched again on the
	// next token (default 1 h); rotation within it is caught by unknown-kid refreshes.
	CacheTTL time.Duration
	// FetchTimeout bounds each metadata or key-set fetch (default 10 s).
	FetchTimeout time.Duration
	// MaxResponseBytes bounds a metadata or key-set response (default 1 MiB).
	MaxResponseBytes int64
	// HTTPClient fetches metadata and keys (default: a client with FetchTimeout).
	HTTPClient *http.Client
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
}

// DefaultJWTAlgorithms are the signature algorithms a JWTVerifier accepts by default:
// every asymmetric JWS algorithm go-jose implements.
var DefaultJWTAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// JWTVerifier verifies JWT access tokens (RFC 9068) against the issuer's JSON Web Key
// Set: signature with an allow-listed asymmetric algorithm, iss, aud, exp, nbf and
// iat. Keys are cached; a token signed with an unknown key id triggers a refetch, at
// most once per MinRefreshInterval, so key rotation works and a flood of forged kids
// cannot make the server hammer the issuer. A token that passed is remembered (by
// its digest) for up to a minute, never past its expiry.
type JWTVerifier struct {
	o        JWTOptions
	audience *url.URL
	algs     []jose.SignatureAlgorithm
	client   *http.Client

	mu          sync.Mutex
	jwksURL     string
	keys        []jose.JSONWebKey
	loaded      bool
	fetched     time.Time     // last successful fetch
	lastAttempt time.Time     // last fetch started, successful or not
	inflight    chan struct{} // closed when the running fetch ends
	fetchErr    error         // why the last fetch failed

	verified verifiedTokens
}

// verifiedTokens remembers tokens that passed every check, by their SHA-256, for
// at most verifiedTTL and never past their expiry, so a client sending the same
// token on every request pays for one signature check a minute instead of one per
// request. Only valid tokens enter, so forged tokens cannot fill it; it is bounded
// and simply emptied when full.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]verifiedToken
}

type verifiedToken struct {
	p     Principal
	until time.Time
}

const (
	verifiedTTL = time.Minute
	verifiedMax = 4096
)

func (c *verifiedTokens) get(key [sha256.Size]byte, now time.Time) (*Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil, false
	}
	if !now.Before(e.until) {
		delete(c.m, key)
		return nil, false
	}
	p := e.p
	p.Scopes = slices.Clone(p.Scopes)
	return &p, true
}

func (c *verifiedTokens) put(key [sha256.Size]byte, p *Principal, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= verifiedMax {
		c.m = make(map[[sha256.Size]byte]verifiedToken)
	}
	c.m[key] = verifiedToken{p: Principal{Subject: p.Subject, Scopes: slices.Clone(p.Scopes), Expiry: p.Expiry}, until: until}
}

// NewJWTVerifier checks the options and returns a verifier. It fetches nothing yet:
// keys are fetched on the first token, so a briefly unreachable issuer does not stop
// the server from starting (such requests get 503 until it answers).
func NewJWTVerifier(o JWTOptions) (*JWTVerifier, error) {
	if o.Issuer == "" {
		return nil, errors.New("JWT verification: the issuer URL is required")
	}
	if _, err := checkIssuerURL(o.Issuer); err != nil {
		return nil, fmt.Errorf("JWT verification: issuer %q: %w", o.Issuer, err)
	}
	if o.Audience == "" {
		return nil, errors.New("JWT verification: the audience (this server's canonical resource URI, e.g. https://mcp.example.com/mcp) is required")
	}
	aud, err := canonicalResource(o.Audience)
	if err != nil {
		return nil, fmt.Errorf("JWT verification: audience %q: %w", o.Audience, err)
	}
	if o.JWKSURL != "" {
		if _, err := checkIssuerURL(o.JWKSURL); err != nil {
			return nil, fmt.Errorf("JWT verification: JWKS URL %q: %w", o.JWKSURL, err)
		}
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = DefaultJWTAlgorithms
	}
	v := &JWTVerifier{o: o, audience: aud, jwksURL: o.JWKSURL}
	for _, a := range o.Algorithms {
		if !slices.Contains(DefaultJWTAlgorithms, a) {
			return nil, fmt.Errorf("JWT verification: algorithm %q is not accepted: choose from %s (never none or HMAC, whose key would be public)", a, strings.Join(DefaultJWTAlgorithms, ", "))
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if v.o.ClockSkew <= 0 {
		v.o.ClockSkew = 60 * time.Second
	}
	if v.o.MinRefreshInterval <= 0 {
		v.o.MinRefreshInterval = 30 * time.Second
	}
	if v.o.CacheTTL <= 0 {
		v.o.CacheTTL = time.Hour
	}
	if v.o.FetchTimeout <= 0 {
		v.o.FetchTimeout = 10 * time.Second
	}
	if v.o.MaxResponseBytes <= 0 {
		v.o.MaxResponseBytes = 1 << 20
	}
	if v.o.Now == nil {
		v.o.Now = time.Now
	}
	v.client = o.HTTPClient
	if v.client == nil {
		v.client = &http.Client{Timeout: v.o.FetchTimeout}
	}
	return v, nil
}

// checkIssuerURL accepts an absolute https URL (http only for loopback hosts) with
// no query or fragment.
func checkIssuerURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL: %v", err)
	case u.Host == "":
		return nil, errors.New("it must be an absolute URL, e.g. https://auth.example.com")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("it must not have a query or fragment")
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())):
		return nil, errors.New("it must use https (http is allowed only for loopback hosts)")
	}
	return u, nil
}

// jwtHeader is the part of the JOSE header read before verification, to refuse a
// token for its algorithm with a clear reason.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// accessClaims are the claims of a JWT access token that mcpkit reads.
type accessClaims struct {
	jwt.Claims
	Scope string          `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(format, args...))
}

// Verify checks a JWT access token and returns its subject and scopes.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*Principal, error) {
	if v.o.VerifyEveryRequest {
		return v.verify(ctx, token)
	}
	key := sha256.Sum256([]byte(token))
	now := v.o.Now()
	if p, ok := v.verified.get(key, now); ok {
		return p, nil
	}
	p, err := v.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	until := now.Add(verifiedTTL)
	if exp := p.Expiry.Add(v.o.ClockSkew); exp.Before(until) {
		until = exp
	}
	v.verified.put(key, p, until)
	return p, nil
}

// verify does every check of a token not seen recently.
func (v *JWTVerifier) verify(ctx context.Context, token string) (*Principal, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: it is not a JWT (three base64url parts separated by dots)", ErrTokenUnrecognized)
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	var h jwtHeader
	if err != nil || json.Unmarshal(hb, &h) != nil {
		return nil, invalid("its JOSE header is not base64url-encoded JSON")
	}
	if !slices.Contains(v.algs, jose.SignatureAlgorithm(h.Alg)) {
		return nil, invalid("its signing algorithm %q is not accepted (accepted: %s)", clip(h.Alg), strings.Join(v.o.Algorithms, ", "))
	}
	if typ := strings.ToLower(h.Typ); v.o.RequireAccessTokenType && typ != "at+jwt" && typ != "application/at+jwt" {
		return nil, invalid("its type %q is not an access token's (at+jwt)", clip(h.Typ))
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, invalid("it cannot be parsed as a signed JWT")
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("it must carry exactly one signature")
	}
	key, err := v.key(ctx, h.Kid, h.Alg)
	if err != nil {
		return nil, err
	}
	var c accessClaims
	if err := tok.Claims(key.Key, &c); err != nil {
		return nil, invalid("its signature does not verify with the issuer's key %q", clip(h.Kid))
	}
	return v.check(&c)
}

// check validates the registered claims of a token whose signature verified.
func (v *JWTVerifier) check(c *accessClaims) (*Principal, error) {
	now := v.o.Now()
	skew := v.o.ClockSkew
	if c.Issuer != v.o.Issuer {
		return nil, invalid("it was issued by %q, not by this server's issuer %q", clip(c.Issuer), v.o.Issuer)
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return sameResource(v.audience, a) }) {
		return nil, invalid("its audience %q does not include this server (%s): get a token for this resource", clip(strings.Join(c.Audience, " ")), v.audience)
	}
	if c.Expiry == nil {
		return nil, invalid("it has no expiry (exp)")
	}
	if exp := c.Expiry.Time(); now.Add(-skew).After(exp) {
		return nil, invalid("it expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if c.NotBefore != nil {
		if nbf := c.NotBefore.Time(); now.Add(skew).Before(nbf) {
			return nil, invalid("it is not valid before %s", nbf.UTC().Format(time.RFC3339))
		}
	}
	if c.IssuedAt != nil {
		if iat := c.IssuedAt.Time(); now.Add(skew).Before(iat) {
			return nil, invalid("it claims to be issued in the future (%s)", iat.UTC().Format(time.RFC3339))
		}
	}
	if c.Subject == "" {
		return nil, invalid("it has no subject (sub)")
	}
	return &Principal{Subject: c.Subject, Scopes: scopesOf(c), Expiry: c.Expiry.Time()}, nil
}

// clip bounds a value taken from a token before it goes into an error message
// (and from there into a response header).
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// scopesOf reads the scope claim (RFC 9068: a space-separated string) or, as some
// issuers send, scp (a string or an array).
func scopesOf(c *accessClaims) []string {
	if c.Scope != "" {
		return strings.Fields(c.Scope)
	}
	if len(c.Scp) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(c.Scp, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(c.Scp, &one) == nil {
		return strings.Fields(one)
	}
	return nil
}

// key finds the verification key for a kid, fetching the key set when it has not
// been fetched, is older than CacheTTL, or lacks the kid, but never more often than
// MinRefreshInterval.
func (v *JWTVerifier) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	for attempt := 0; ; attempt++ {
		v.mu.Lock()
		now := v.o.Now()
		k, found := v.findLocked(kid, alg)
		fresh := v.loaded && now.Sub(v.fetched) < v.o.CacheTTL
		if found && fresh {
			v.mu.Unlock()
			return k, nil
		}
		mayFetch := attempt == 0 && (v.lastAttempt.IsZero() || now.Sub(v.lastAttempt) >= v.o.MinRefreshInterval)
		if ch := v.inflight; ch != nil && attempt == 0 {
			// Someone is fetching: wait for it, then look again.
			v.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, invalid("verification was cancelled")
			}
			continue
		}
		if !mayFetch {
			loaded, ferr := v.loaded, v.fetchErr
			v.mu.Unlock()
			switch {
			case found:
				return k, nil
			case !loaded:
				return nil, fmt.Errorf("%w: the issuer's keys could not be fetched: %v", ErrAuthUnavailable, ferr)
			default:
				return nil, invalid("it was signed with key %q, which the issuer's key set does not contain", clip(kid))
			}
		}
		ch := make(chan struct{})
		v.inflight = ch
		v.lastAttempt = now
		v.mu.Unlock()

		keys, err := v.fetchKeys(ctx)

		v.mu.Lock()
		if err == nil {
			v.keys, v.loaded, v.fetched, v.fetchErr = keys, true, v.o.Now(), nil
		} else {
			v.fetchErr = err
		}
		v.inflight = nil
		close(ch)
		v.mu.Unlock()
	}
}

// findLocked picks the key for a kid: the one with that id whose type fits the
// algorithm. A token without a kid is accepted only when exactly one key fits.
func (v *JWTVerifier) findLocked(kid, alg string) (*jose.JSONWebKey, bool) {
	var match *jose.JSONWebKey
	n := 0
	for i := range v.keys {
		k := &v.keys[i]
		if (kid != "" && k.KeyID != kid) || !keyFits(k, alg) {
			continue
		}
		match = k
		n++
	}
	if n == 0 || (kid == "" && n > 1) {
		return nil, false
	}
	return match, true
}

// keyFits reports whether a public key may verify a signature made with alg: its
// declared alg and use agree, and its type and curve are what the algorithm needs.
func keyFits(k *jose.JSONWebKey, alg string) bool {
	if (k.Algorithm != "" && k.Algorithm != alg) || (k.Use != "" && k.Use != "sig") {
		return false
	}
	switch pk := k.Key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		want := map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()}[alg]
		return want != nil && pk.Curve == want
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// fetchKeys discovers the JWKS URL if needed and fetches the key set. Keys that are
// not public asymmetric keys (symmetric or private material, unknown types) are
// skipped: a key set is untrusted input too.
func (v *JWTVerifier) fetchKeys(ctx context.Context) ([]jose.JSONWebKey, error) {
	// The fetch serves every waiting request: do not let one caller's cancellation
	// abort it, but bound it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), v.o.FetchTimeout)
	defer cancel()
	v.mu.Lock()
	jwksURL := v.jwksURL
	v.mu.Unlock()
	if jwksURL == "" {
		u, err := v.discover(ctx)
		if err != nil {
			return nil, err
		}
		jwksURL = u
		v.mu.Lock()
		v.jwksURL = u
		v.mu.Unlock()
	}
	body, err := v.get(ctx, jwksURL)
	if err != nil {
		return nil, fmt.Errorf("fetching the key set: %w", err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the key set at %s is not a JWKS document: %v", jwksURL, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() || !k.IsPublic() {
			continue
		}
		switch k.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the key set at %s holds no usable public signing key", jwksURL)
	}
	return keys, nil
}

// discover reads the issuer's metadata: RFC 8414 first, then OpenID Connect
// discovery. The document's issuer must equal the configured one (RFC 8414 §3.3).
func (v *JWTVerifier) discover(ctx context.Context) (string, error) {
	iss, _ := url.Parse(v.o.Issuer)
	path := strings.TrimSuffix(iss.Path, "/")
	candidates := []string{
		(&url.URL{Scheme: iss.Scheme, Host: iss.Host, Path: "/.well-known/oauth-authorization-server" + path}).String(),
		strings.TrimSuffix(v.o.Issuer, "/") + "/.well-known/openid-configuration",
	}
	var errs []string
	for _, c := range candidates {
		body, err := v.get(ctx, c)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Sprintf("%s: not a metadata document: %v", c, err))
			continue
		}
		if md.Issuer != v.o.Issuer {
			return "", fmt.Errorf("the metadata at %s names issuer %q, not %q", c, md.Issuer, v.o.Issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("the metadata at %s has no jwks_uri", c)
		}
		if _, err := checkIssuerURL(md.JWKSURI); err != nil {
			return "", fmt.Errorf("the metadata at %s has an unusable jwks_uri %q: %v", c, md.JWKSURI, err)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("discovering the issuer's metadata: %s", strings.Join(errs, "; "))
}

// get fetches a JSON document with a bounded body.
func (v *JWTVerifier) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, v.o.MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", u, err)
	}
	if int64(len(body)) > v.o.MaxResponseBytes {
		return nil, fmt.Errorf("%s: the response is larger than %d bytes", u, v.o.MaxResponseBytes)
	}
	return body, nil
}
