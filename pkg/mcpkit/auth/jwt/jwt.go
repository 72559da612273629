// Package jwt verifies JWT access tokens (RFC 9068) for package auth: a [Verifier]
// checks a token's signature against its issuer's JSON Web Key Set and its iss, aud,
// exp, nbf and iat claims. It is the only package of mcpkit that links a JOSE
// library (github.com/go-jose/go-jose), so a server that accepts only static tokens
// does not carry it.
//
// A server's main turns on --auth-issuer of the standard flags with:
//
//	sf := serve.RegisterFlags(fs)
//	sf.JWT = jwt.FromIssuer
package jwt

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/internal/authurl"
)

// Options configure a [Verifier].
type Options struct {
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

// DefaultAlgorithms are the signature algorithms a Verifier accepts by default:
// every asymmetric JWS algorithm go-jose implements.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Verifier verifies JWT access tokens (RFC 9068) against the issuer's JSON Web Key
// Set: signature with an allow-listed asymmetric algorithm, iss, aud, exp, nbf and
// iat. Keys are cached; a token signed with an unknown key id triggers a refetch, at
// most once per MinRefreshInterval, so key rotation works and a flood of forged kids
// cannot make the server hammer the issuer. A token that passed is remembered (by
// its digest) for up to a minute, never past its expiry.
type Verifier struct {
	o        Options
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

// NewVerifier checks the options and returns a verifier. It fetches nothing yet:
// keys are fetched on the first token, so a briefly unreachable issuer does not stop
// the server from starting (such requests get 503 until it answers).
func NewVerifier(o Options) (*Verifier, error) {
	if o.Issuer == "" {
		return nil, errors.New("JWT verification: the issuer URL is required")
	}
	if _, err := authurl.CheckIssuerURL(o.Issuer); err != nil {
		return nil, fmt.Errorf("JWT verification: issuer %q: %w", o.Issuer, err)
	}
	if o.Audience == "" {
		return nil, errors.New("JWT verification: the audience (this server's canonical resource URI, e.g. https://mcp.example.com/mcp) is required")
	}
	aud, err := authurl.CanonicalResource(o.Audience)
	if err != nil {
		return nil, fmt.Errorf("JWT verification: audience %q: %w", o.Audience, err)
	}
	if o.JWKSURL != "" {
		if _, err := authurl.CheckIssuerURL(o.JWKSURL); err != nil {
			return nil, fmt.Errorf("JWT verification: JWKS URL %q: %w", o.JWKSURL, err)
		}
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = DefaultAlgorithms
	}
	v := &Verifier{o: o, audience: aud, jwksURL: o.JWKSURL}
	for _, a := range o.Algorithms {
		if !slices.Contains(DefaultAlgorithms, a) {
			return nil, fmt.Errorf("JWT verification: algorithm %q is not accepted: choose from %s (never none or HMAC, whose key would be public)", a, strings.Join(DefaultAlgorithms, ", "))
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

var _ auth.Verifier = (*Verifier)(nil)

// FromIssuer is [NewVerifier] with what the standard flags of package serve say
// (--auth-issuer, --auth-resource, --auth-jwks-url, --auth-algorithms), and the
// default of everything else. It is the value of serve.Flags.JWT.
func FromIssuer(issuer, audience, jwksURL string, algorithms []string) (auth.Verifier, error) {
	v, err := NewVerifier(Options{Issuer: issuer, Audience: audience, JWKSURL: jwksURL, Algorithms: algorithms})
	if err != nil {
		return nil, err
	}
	return v, nil
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
	josejwt.Claims
	Scope string          `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

// Verify checks a JWT access token and returns its subject, issuer and scopes.
func (v *Verifier) Verify(ctx context.Context, token string) (*auth.Principal, error) {
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
func (v *Verifier) verify(ctx context.Context, token string) (*auth.Principal, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: it is not a JWT (three base64url parts separated by dots)", auth.ErrTokenUnrecognized)
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
	tok, err := josejwt.ParseSigned(token, v.algs)
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
func (v *Verifier) check(c *accessClaims) (*auth.Principal, error) {
	now := v.o.Now()
	skew := v.o.ClockSkew
	if c.Issuer != v.o.Issuer {
		return nil, invalid("it was issued by %q, not by this server's issuer %q", clip(c.Issuer), v.o.Issuer)
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return authurl.SameResource(v.audience, a) }) {
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
	return &auth.Principal{Subject: c.Subject, Issuer: c.Issuer, Scopes: scopesOf(c), Expiry: c.Expiry.Time()}, nil
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
