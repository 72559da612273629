package auth

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// metadataBase is the well-known path of Protected Resource Metadata (RFC 9728).
const metadataBase = "/.well-known/oauth-protected-resource"

// MetadataPath is the path of the Protected Resource Metadata document for a
// resource URI: the well-known prefix with the resource's path inserted after it
// ("/.well-known/oauth-protected-resource/mcp" for https://host/mcp), as RFC 9728 §3.1
// describes and MCP clients try first.
func MetadataPath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return metadataBase
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return metadataBase
	}
	return metadataBase + p
}

// MetadataPaths are the paths [Authenticator.MetadataHandler] is served at: the
// root well-known path and, for a resource with a path, the path-inserted one. It is
// empty without an authorization server (static tokens only): MCP requires the
// document to name one, and a client cannot get a static token through OAuth
// anyway, so no document is published and those paths answer 404.
func (a *Authenticator) MetadataPaths() []string {
	if !a.discoverable() {
		return nil
	}
	if p := MetadataPath(a.resource.String()); p != metadataBase {
		return []string{metadataBase, p}
	}
	return []string{metadataBase}
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
func (a *Authenticator) metadata(s *mcpkit.Server) *protectedResourceMetadata {
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

// MetadataHandler serves the Protected Resource Metadata document of the server's
// endpoint, at the paths [Authenticator.MetadataPaths] lists. The scopes it
// advertises are the Options' and every tool's (Tool.Scopes), read on each request,
// so a write tool's scope is listed as soon as the tool is registered. Without an
// authorization server it answers 404 (see MetadataPaths).
func (a *Authenticator) MetadataHandler(s *mcpkit.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.discoverable() {
			http.Error(w, "no protected resource metadata: this server names no OAuth authorization server (it accepts static tokens from its operator)", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the metadata document is read with GET", http.StatusMethodNotAllowed)
			return
		}
		b, _ := mcpkit.JSONText(a.metadata(s))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		// Browser-based clients fetch this cross-origin; it holds nothing secret.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = io.WriteString(w, b)
	})
}
