package auth

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// challenge builds a WWW-Authenticate value (RFC 6750 §3, RFC 9728 §5.1). It points
// to the Protected Resource Metadata when there is one; without an authorization
// server there is none, and the realm (the resource URI) keeps the challenge with at
// least one parameter, as RFC 6750 §3 requires.
func (a *Authenticator) challenge(errCode, desc string, scopes []string) string {
	var parts []string
	if a.metadataURL != "" {
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", a.metadataURL))
	} else {
		parts = append(parts, `realm="`+quotable(a.resource.String())+`"`)
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
func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, status int, errCode, desc string, scopes []string) {
	w.Header().Set("WWW-Authenticate", a.challenge(errCode, desc, scopes))
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	msg := desc
	if msg == "" && a.discoverable() {
		msg = "authorization required: send an OAuth access token as \"Authorization: Bearer <token>\"; the WWW-Authenticate header says where to get one"
	} else if msg == "" {
		msg = "authorization required: send the bearer token this server's operator issued you as \"Authorization: Bearer <token>\" (this server accepts static tokens only and names no OAuth authorization server)"
	}
	mcpkit.WriteHTTPError(w, r, status, mcpkit.Errorf(mcpkit.CodeInvalidRequest, "%s", msg))
}
