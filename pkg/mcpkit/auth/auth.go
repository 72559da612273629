// Package auth makes mcpkit's Streamable HTTP transport an OAuth 2.1 resource server
// (PROTOCOL.md §15): every request needs a valid bearer token, Protected Resource
// Metadata (RFC 9728) tells clients which authorization server issues them (none is
// published for static tokens only), and tools with Scopes need those scopes. An [Authenticator] built by [New] is the transport's
// [mcpkit.HTTPAuthenticator]; tokens are checked by a [Verifier]: [StaticTokens],
// the JWT verifier of package auth/jwt, or several combined with [Verifiers].
//
// Package serve sets all of this up from the standard flags; by hand:
//
//	a, err := auth.New(auth.Options{Verifier: tokens, Resource: "https://mcp.example.com/mcp"})
//	mux.Handle("/mcp", s.HTTPHandler(&mcpkit.HTTPOptions{Authenticator: a}))
//	for _, p := range a.MetadataPaths() {
//		mux.Handle(p, a.MetadataHandler(s))
//	}
package auth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/internal/authurl"
)

// Options configure an [Authenticator].
type Options struct {
	// Verifier verifies tokens (required): [StaticTokens], a JWT verifier (package
	// auth/jwt), or several combined with [Verifiers].
	Verifier Verifier
	// Resource is this server's canonical URI (RFC 8707), the public URL of the MCP
	// endpoint such as "https://mcp.example.com/mcp" (required). Tokens must be
	// issued for it; Protected Resource Metadata names it.
	Resource string
	// AuthorizationServers are the issuer URLs clients get tokens from, listed in
	// Protected Resource Metadata. MCP requires the document to name at least one,
	// so without any (a deployment of static tokens only, which clients get from the
	// operator, not through OAuth) no metadata is published: [Authenticator.MetadataPaths]
	// is empty and challenges carry no resource_metadata.
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

// Authenticator checks the bearer token of every HTTP request and the scopes of
// every tool call: it is the [mcpkit.HTTPAuthenticator] of [mcpkit.HTTPOptions]. It
// also serves the Protected Resource Metadata document ([Authenticator.MetadataHandler]).
type Authenticator struct {
	opts        Options
	resource    *url.URL // canonical: lower-case scheme and host, no trailing slash
	metadataURL string   // absolute URL of the path-inserted metadata document; "" when none is published
}

// discoverable reports whether clients can get tokens through OAuth: an
// authorization server is configured, so Protected Resource Metadata is published
// and challenges point to it. A deployment of static tokens only is not.
func (a *Authenticator) discoverable() bool { return len(a.opts.AuthorizationServers) > 0 }

var _ mcpkit.HTTPAuthenticator = (*Authenticator)(nil)

// New checks the options and returns an authenticator.
func New(o Options) (*Authenticator, error) {
	if o.Verifier == nil {
		return nil, errors.New("authorization: a Verifier is required (static tokens, a JWT issuer, or both)")
	}
	if o.Resource == "" {
		return nil, errors.New("authorization: Resource is required: this server's public MCP endpoint URL, e.g. https://mcp.example.com/mcp")
	}
	u, err := authurl.CanonicalResource(o.Resource)
	if err != nil {
		return nil, fmt.Errorf("authorization: resource %q: %w", o.Resource, err)
	}
	for _, as := range o.AuthorizationServers {
		if _, err := authurl.CheckIssuerURL(as); err != nil {
			return nil, fmt.Errorf("authorization: authorization server %q: %w", as, err)
		}
	}
	a := &Authenticator{opts: o, resource: u}
	if a.discoverable() {
		a.metadataURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: MetadataPath(u.String())}).String()
	}
	return a, nil
}

// Authenticate checks the request's bearer token. It answers the request itself and
// returns false when the caller may not proceed.
func (a *Authenticator) Authenticate(w http.ResponseWriter, r *http.Request) (mcpkit.Caller, bool) {
	if q := r.URL.Query(); q.Has("access_token") {
		// RFC 6750 §2.3 allows it; OAuth 2.1 and MCP forbid it. The token is now in
		// access logs and browser history, so refuse it loudly instead of ignoring it.
		a.refuse(w, r, http.StatusBadRequest, "invalid_request",
			"access tokens are accepted only in the Authorization header (Authorization: Bearer <token>), never in the query string; this token may have been exposed in logs and should be revoked", a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	hdrs := r.Header.Values("Authorization")
	if len(hdrs) == 0 {
		a.refuse(w, r, http.StatusUnauthorized, "", "", a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	if len(hdrs) > 1 {
		a.refuse(w, r, http.StatusBadRequest, "invalid_request", "send exactly one Authorization header", a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(hdrs[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		// Another scheme is no bearer token at all: a plain challenge (RFC 6750 §3.1).
		a.refuse(w, r, http.StatusUnauthorized, "", "", a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	token = strings.TrimLeft(token, " ")
	if !isToken68(token) {
		a.refuse(w, r, http.StatusBadRequest, "invalid_request", `malformed Authorization header: expected "Bearer <token>" with one token of letters, digits and -._~+/=`, a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	p, err := a.opts.Verifier.Verify(r.Context(), token)
	switch {
	case err != nil && errors.Is(err, ErrUnavailable):
		a.refuse(w, r, http.StatusServiceUnavailable, "", "cannot verify access tokens right now: "+err.Error(), nil)
		return mcpkit.Caller{}, false
	case err != nil:
		a.refuse(w, r, http.StatusUnauthorized, "invalid_token", describeTokenError(err), a.opts.Scopes)
		return mcpkit.Caller{}, false
	case p == nil || p.Subject == "":
		a.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the token names no subject", a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	if missing := missingScopes(p.Scopes, a.opts.Scopes, a.opts.ScopeCovers); len(missing) > 0 {
		a.refuse(w, r, http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("this server needs the scope(s) %s; the token grants %s", strings.Join(missing, " "), scopeList(p.Scopes)), a.opts.Scopes)
		return mcpkit.Caller{}, false
	}
	return mcpkit.Caller{Subject: p.Subject, Issuer: p.Issuer, Scopes: p.Scopes, Expiry: p.Expiry}, true
}

// AuthorizeTool checks, before a tools/call runs, that the caller holds every scope
// the tool needs, and answers 403 insufficient_scope naming all the scopes the call
// needs (the server's and the tool's) when not.
func (a *Authenticator) AuthorizeTool(w http.ResponseWriter, r *http.Request, c mcpkit.Caller, tool string, needed []string) bool {
	missing := missingScopes(c.Scopes, needed, a.opts.ScopeCovers)
	if len(missing) == 0 {
		return true
	}
	all := dedupe(slices.Concat(a.opts.Scopes, needed))
	desc := fmt.Sprintf("tool %q needs the scope(s) %s; the token grants %s", tool, strings.Join(missing, " "), scopeList(c.Scopes))
	w.Header().Set("WWW-Authenticate", a.challenge("insufficient_scope", desc, all))
	mcpkit.WriteHTTPError(w, r, http.StatusForbidden, mcpkit.Errorf(mcpkit.CodeInvalidRequest, "%s", desc))
	return false
}

// describeTokenError is the error_description of a refused token: the verifier's
// reason without the generic prefix.
func describeTokenError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, ErrTokenUnrecognized.Error()+": ")
	msg = strings.TrimPrefix(msg, ErrInvalidToken.Error()+": ")
	return "the access token is not valid: " + msg
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
