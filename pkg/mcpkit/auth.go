package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Principal is who a verified access token speaks for.
type Principal struct {
	// Subject identifies the caller (the token's sub, or a static token's name). It
	// is logged in audit lines, binds multi-round-trip state and keys rate limits.
	Subject string
	// Scopes are the OAuth scopes the token grants.
	Scopes []string
	// Expiry is when the token stops being valid; zero for tokens that do not expire.
	Expiry time.Time
}

// Authorizer verifies a bearer access token taken from the Authorization header.
// mcpkit calls it on every HTTP request (there is no session to remember a token
// by). An error that wraps ErrAuthUnavailable answers 503; any other error answers
// 401 invalid_token with the error's message as error_description, so a verifier's
// errors must never contain the token itself.
type Authorizer interface {
	Verify(ctx context.Context, token string) (*Principal, error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, token string) (*Principal, error)

// Verify calls f.
func (f AuthorizerFunc) Verify(ctx context.Context, token string) (*Principal, error) {
	return f(ctx, token)
}

var (
	// ErrInvalidToken is wrapped by verifiers' errors for a token that is not valid.
	ErrInvalidToken = errors.New("invalid access token")
	// ErrTokenUnrecognized is wrapped by a verifier's error for a token that is not of
	// its kind (not a JWT, not a known static token), so that Authorizers can ask the
	// next verifier. It also wraps ErrInvalidToken.
	ErrTokenUnrecognized = fmt.Errorf("%w: not recognized", ErrInvalidToken)
	// ErrAuthUnavailable is wrapped by a verifier's error when it cannot decide now
	// (the issuer's keys cannot be fetched): the request gets 503, not 401, so the
	// client retries instead of discarding a good token.
	ErrAuthUnavailable = errors.New("authorization temporarily unavailable")
)

// Authorizers combines verifiers: a token is accepted by the first that accepts it.
// A verifier that does not recognize the token (ErrTokenUnrecognized) passes it on;
// the first other failure is the answer, so a JWT with a bad signature is reported
// as such rather than as "unknown static token".
func Authorizers(list ...Authorizer) Authorizer {
	list = slices.DeleteFunc(slices.Clone(list), func(a Authorizer) bool { return a == nil })
	if len(list) == 1 {
		return list[0]
	}
	return AuthorizerFunc(func(ctx context.Context, token string) (*Principal, error) {
		var first error
		for _, a := range list {
			p, err := a.Verify(ctx, token)
			if err == nil {
				return p, nil
			}
			if !errors.Is(err, ErrTokenUnrecognized) && first == nil {
				first = err
			}
		}
		if first != nil {
			return nil, first
		}
		return nil, fmt.Errorf("%w: the token is not recognized by any configured verifier", ErrTokenUnrecognized)
	})
}

// AuthOptions make the HTTP transport an OAuth 2.1 resource server (PROTOCOL.md §15):
// every request needs a valid bearer token, Protected Resource Metadata (RFC 9728)
// tells clients where to get one, and tools with Scopes need those scopes.
type AuthOptions struct {
	// Authorizer verifies tokens (required): NewStaticTokens, NewJWTVerifier, or
	// several combined with Authorizers.
	Authorizer Authorizer
	// Resource is this server's canonical URI (RFC 8707), the public URL of the MCP
	// endpoint such as "https://mcp.example.com/mcp" (required). Tokens must be
	// issued for it; Protected Resource Metadata names it.
	Resource string
	// AuthorizationServers are the issuer URLs clients get tokens from, listed in
	// Protected Resource Metadata (MCP requires at least one for OAuth clients; static
	// token deployments may leave it empty).
	AuthorizationServers []string
	// Scopes are needed for every request (e.g. "mcp"); tools may need more (Tool.Scopes).
	Scopes []string
	// ScopesSupported are advertised besides Scopes and every tool's Scopes.
	ScopesSupported []string
	// ResourceName is a human-readable name for the metadata document.
	ResourceName string
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string
	// ScopeCovers reports whether a granted scope satisfies a needed one, for servers
	// with scope hierarchies (e.g. "files:write" covering "files:read"). Nil means
	// only an identical scope does.
	ScopeCovers func(granted, needed string) bool
}

// auth is the validated form of AuthOptions that the HTTP handler uses.
type auth struct {
	opts        AuthOptions
	resource    *url.URL // canonical: lower-case scheme and host, no trailing slash
	metadataURL string   // absolute URL of the path-inserted metadata document
}

func newAuth(o *AuthOptions) (*auth, error) {
	if o.Authorizer == nil {
		return nil, errors.New("authorization: an Authorizer is required (static tokens, a JWT issuer, or both)")
	}
	if o.Resource == "" {
		return nil, errors.New("authorization: Resource is required: this server's public MCP endpoint URL, e.g. https://mcp.example.com/mcp")
	}
	u, err := canonicalResource(o.Resource)
	if err != nil {
		return nil, fmt.Errorf("authorization: resource %q: %w", o.Resource, err)
	}
	for _, as := range o.AuthorizationServers {
		if _, err := checkIssuerURL(as); err != nil {
			return nil, fmt.Errorf("authorization: authorization server %q: %w", as, err)
		}
	}
	a := &auth{opts: *o, resource: u}
	a.metadataURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: MetadataPath(u.String())}).String()
	return a, nil
}

// canonicalResource parses a resource URI and puts it in the form the spec prefers:
// lower-case scheme and host, no fragment, no trailing slash. https is required
// except on loopback hosts (tests, local development).
func canonicalResource(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	switch {
	case u.Host == "":
		return nil, errors.New("it must be an absolute URL with a host, e.g. https://mcp.example.com/mcp")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return nil, errors.New("it must not have a fragment")
	case u.User != nil:
		return nil, errors.New("it must not carry user information")
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())):
		return nil, errors.New("it must use https (http is allowed only for loopback hosts)")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// sameResource compares two resource URIs after canonicalisation, so an audience
// written with an upper-case host or a trailing slash still names this server.
func sameResource(a *url.URL, b string) bool {
	u, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, u.Scheme) && strings.EqualFold(a.Host, u.Host) &&
		a.Path == strings.TrimSuffix(u.Path, "/") && u.RawQuery == a.RawQuery && u.Fragment == ""
}

// MetadataPath is the path of the Protected Resource Metadata document for a
// resource URI: the well-known prefix with the resource's path inserted after it
// ("/.well-known/oauth-protected-resource/mcp" for https://host/mcp), as RFC 9728 §3.1
// describes and MCP clients try first.
func MetadataPath(resource string) string {
	const base = "/.well-known/oauth-protected-resource"
	u, err := url.Parse(resource)
	if err != nil {
		return base
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return base
	}
	return base + p
}

// protectedResourceMetadata is the RFC 9728 document.
type protectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// metadata builds the document. Tool scopes are read at request time so a tool
// registered later is advertised too.
func (a *auth) metadata(s *Server) *protectedResourceMetadata {
	scopes := slices.Concat(a.opts.Scopes, a.opts.ScopesSupported)
	for _, t := range s.Tools() {
		scopes = append(scopes, t.Scopes...)
	}
	// offline_access is the authorization server's business, not a resource scope.
	scopes = slices.DeleteFunc(dedupe(scopes), func(s string) bool { return s == "offline_access" || s == "" })
	return &protectedResourceMetadata{
		Resource:               a.resource.String(),
		AuthorizationServers:   a.opts.AuthorizationServers,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           a.opts.ResourceName,
		ResourceDocumentation:  a.opts.ResourceDocumentation,
	}
}

// dedupe keeps the first occurrence of each string, in order.
func dedupe(in []string) []string {
	out := in[:0:0]
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// metadataHandler serves the Protected Resource Metadata document.
func (a *auth) metadataHandler(s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the metadata document is read with GET", http.StatusMethodNotAllowed)
			return
		}
		b, _ := marshalNoEscape(a.metadata(s))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		// Browser-based clients fetch this cross-origin; it holds nothing secret.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(b)
	})
}

// challenge builds a WWW-Authenticate value (RFC 6750 §3, RFC 9728 §5.1).
func (a *auth) challenge(errCode, desc string, scopes []string) string {
	var parts []string
	if a != nil {
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", a.metadataURL))
	}
	if len(scopes) > 0 {
		parts = append(parts, `scope="`+quotable(strings.Join(scopes, " "))+`"`)
	}
	if errCode != "" {
		parts = append(parts, `error="`+errCode+`"`)
	}
	if desc != "" {
		parts = append(parts, `error_description="`+quotable(desc)+`"`)
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// quotable keeps only characters RFC 6750 allows inside a quoted parameter (printable
// ASCII without '"' and '\'), so no value can break the header's syntax.
func quotable(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// refuse answers a request that failed authorization: the status, the challenge, and
// a JSON-RPC error body (without id: the body was not read) saying what is wrong.
func (a *auth) refuse(w http.ResponseWriter, status int, errCode, desc string, scopes []string) {
	w.Header().Set("WWW-Authenticate", a.challenge(errCode, desc, scopes))
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	msg := desc
	if msg == "" {
		msg = "authorization required: send an OAuth access token as \"Authorization: Bearer <token>\"; the WWW-Authenticate header says where to get one"
	}
	writeJSONError(w, status, ID{}, Errorf(CodeInvalidRequest, "%s", msg))
}

// authenticate checks the request's bearer token. It answers the request itself and
// returns false when the caller may not proceed.
func (a *auth) authenticate(w http.ResponseWriter, r *http.Request) (*Principal, bool) {
	if q := r.URL.Query(); q.Has("access_token") {
		// RFC 6750 §2.3 allows it; OAuth 2.1 and MCP forbid it. The token is now in
		// access logs and browser history, so refuse it loudly instead of ignoring it.
		a.refuse(w, http.StatusBadRequest, "invalid_request",
			"access tokens are accepted only in the Authorization header (Authorization: Bearer <token>), never in the query string; this token may have been exposed in logs and should be revoked", a.opts.Scopes)
		return nil, false
	}
	hdrs := r.Header.Values("Authorization")
	if len(hdrs) == 0 {
		a.refuse(w, http.StatusUnauthorized, "", "", a.opts.Scopes)
		return nil, false
	}
	if len(hdrs) > 1 {
		a.refuse(w, http.StatusBadRequest, "invalid_request", "send exactly one Authorization header", a.opts.Scopes)
		return nil, false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(hdrs[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		// Another scheme is no bearer token at all: a plain challenge (RFC 6750 §3.1).
		a.refuse(w, http.StatusUnauthorized, "", "", a.opts.Scopes)
		return nil, false
	}
	token = strings.TrimLeft(token, " ")
	if !isToken68(token) {
		a.refuse(w, http.StatusBadRequest, "invalid_request", `malformed Authorization header: expected "Bearer <token>" with one token of letters, digits and -._~+/=`, a.opts.Scopes)
		return nil, false
	}
	p, err := a.opts.Authorizer.Verify(r.Context(), token)
	switch {
	case err != nil && errors.Is(err, ErrAuthUnavailable):
		a.refuse(w, http.StatusServiceUnavailable, "", "cannot verify access tokens right now: "+err.Error(), nil)
		return nil, false
	case err != nil:
		a.refuse(w, http.StatusUnauthorized, "invalid_token", describeTokenError(err), a.opts.Scopes)
		return nil, false
	case p == nil || p.Subject == "":
		a.refuse(w, http.StatusUnauthorized, "invalid_token", "the token names no subject", a.opts.Scopes)
		return nil, false
	}
	if missing := a.missing(p.Scopes, a.opts.Scopes); len(missing) > 0 {
		a.refuse(w, http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("this server needs the scope(s) %s; the token grants %s", strings.Join(missing, " "), scopeList(p.Scopes)), a.opts.Scopes)
		return nil, false
	}
	return p, true
}

// describeTokenError is the error_description of a refused token: the verifier's
// reason without the generic prefix.
func describeTokenError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, ErrTokenUnrecognized.Error()+": ")
	msg = strings.TrimPrefix(msg, ErrInvalidToken.Error()+": ")
	return "the access token is not valid: " + msg
}

func scopeList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}

// missing returns the needed scopes that granted does not cover.
func (a *auth) missing(granted, needed []string) []string {
	var covers func(string, string) bool
	if a != nil {
		covers = a.opts.ScopeCovers
	}
	return missingScopes(granted, needed, covers)
}

func missingScopes(granted, needed []string, covers func(granted, needed string) bool) []string {
	var out []string
	for _, n := range needed {
		ok := slices.Contains(granted, n)
		if !ok && covers != nil {
			ok = slices.ContainsFunc(granted, func(g string) bool { return covers(g, n) })
		}
		if !ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// isToken68 checks the RFC 7235 token68 syntax of a bearer token.
func isToken68(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// toolScopesGranted checks, before a tools/call runs, that the caller holds every
// scope the tool needs, and answers 403 insufficient_scope naming all the scopes the
// call needs (the server's and the tool's) when not. The tool name is read exactly
// as tools/call reads it, so the check and the call cannot disagree on the tool.
func (h *httpHandler) toolScopesGranted(w http.ResponseWriter, m *message, c caller) bool {
	p, err := m.callParams()
	if err != nil {
		return true // tools/call answers the malformed params itself
	}
	rt := h.s.tool(p.Name)
	if rt == nil || len(rt.tool.Scopes) == 0 {
		return true
	}
	var covers func(string, string) bool
	var base []string
	if h.auth != nil {
		covers, base = h.auth.opts.ScopeCovers, h.auth.opts.Scopes
	}
	missing := missingScopes(c.scopes, rt.tool.Scopes, covers)
	if len(missing) == 0 {
		return true
	}
	needed := dedupe(slices.Concat(base, rt.tool.Scopes))
	desc := fmt.Sprintf("tool %q needs the scope(s) %s; the token grants %s", p.Name, strings.Join(missing, " "), scopeList(c.scopes))
	w.Header().Set("WWW-Authenticate", h.auth.challenge("insufficient_scope", desc, needed))
	writeJSONError(w, http.StatusForbidden, m.ID, Errorf(CodeInvalidRequest, "%s", desc))
	return false
}
