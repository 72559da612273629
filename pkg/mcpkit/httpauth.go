package mcpkit

import (
	"context"
	"net/http"
	"time"
)

// Caller is who sent an HTTP request, as an [HTTPAuthenticator] established it.
type Caller struct {
	// Subject identifies the caller (a token's subject) within Issuer's namespace.
	// It is logged in audit lines.
	Subject string
	// Issuer names who vouched for Subject (a JWT's issuer URL, "static" for static
	// tokens). Subjects are unique only per issuer, so the pair (Issuer, Subject) is
	// the caller: it binds legacy sessions and multi-round-trip state and keys
	// per-caller limits, and a static token "alice" is never a JWT's "alice".
	Issuer string
	// Scopes are the OAuth scopes the caller's credentials grant.
	Scopes []string
	// Expiry is when the caller's credentials stop being valid (long-lived streams end
	// then); zero if they do not expire.
	Expiry time.Time
}

// HTTPAuthenticator authorizes the requests of the Streamable HTTP transport
// ([HTTPOptions].Authenticator). Package auth implements it as an OAuth 2.1 resource
// server (bearer tokens, Protected Resource Metadata, per-tool scopes).
type HTTPAuthenticator interface {
	// Authenticate checks the request's credentials; when it returns false it has written the refusal.
	Authenticate(w http.ResponseWriter, r *http.Request) (Caller, bool)
	// AuthorizeTool checks that the caller holds the scopes a tool needs (Tool.Scopes); when it returns false it has written the 403 refusal.
	AuthorizeTool(w http.ResponseWriter, r *http.Request, c Caller, tool string, needed []string) bool
}

// requestIDKey is the context key of the JSON-RPC id of the request being
// authorized, for [WriteHTTPError].
type requestIDKey struct{}

// WriteHTTPError answers an HTTP request with status and a JSON-RPC error body, as
// the transport answers the requests it refuses: for an [HTTPAuthenticator]'s
// refusals. The body carries the JSON-RPC request's id in AuthorizeTool (the body
// has been read), and none in Authenticate.
func WriteHTTPError(w http.ResponseWriter, r *http.Request, status int, e *Error) {
	id, _ := r.Context().Value(requestIDKey{}).(ID)
	writeJSONError(w, status, id, e)
}

// toolScopesGranted checks, before a tools/call runs, that the caller holds every
// scope the tool needs (HTTPAuthenticator.AuthorizeTool answers the request when
// not). The tool name is read exactly as tools/call reads it, so the check and the
// call cannot disagree on the tool.
func (h *httpHandler) toolScopesGranted(w http.ResponseWriter, r *http.Request, m *message, c caller) bool {
	p, err := m.callParams()
	if err != nil {
		return true // tools/call answers the malformed params itself
	}
	rt := h.s.tool(p.Name)
	if rt == nil || len(rt.tool.Scopes) == 0 {
		return true
	}
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, m.ID))
	return h.opts.Authenticator.AuthorizeTool(w, r, Caller{Subject: c.subject, Issuer: c.issuer, Scopes: c.scopes, Expiry: c.expiry}, p.Name, rt.tool.Scopes)
}

// taskScopesGranted checks, before a tasks/* request runs, that the caller still
// holds every scope of the tool the task runs (authorization is checked on every
// task request, not only when the task was created). A task the caller cannot see
// is left to the handler, which answers it as unknown.
func (h *httpHandler) taskScopesGranted(w http.ResponseWriter, r *http.Request, m *message, c caller) bool {
	p, err := m.callParams()
	if err != nil || p.TaskID == "" {
		return true
	}
	st, err := h.s.tasks.store.Get(r.Context(), p.TaskID)
	if err != nil || st.OwnerIssuer != c.issuer || st.OwnerSubject != c.subject {
		return true
	}
	rt := h.s.tool(st.Tool)
	if rt == nil || len(rt.tool.Scopes) == 0 {
		return true
	}
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, m.ID))
	return h.opts.Authenticator.AuthorizeTool(w, r, Caller{Subject: c.subject, Issuer: c.issuer, Scopes: c.scopes, Expiry: c.expiry}, st.Tool, rt.tool.Scopes)
}
