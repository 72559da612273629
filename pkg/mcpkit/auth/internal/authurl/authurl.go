// Package authurl checks the URLs of OAuth authorization: a protected resource's
// canonical URI and an issuer's URL. Package auth and package auth/jwt share it.
package authurl

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// CanonicalResource parses a resource URI and puts it in the form the spec prefers:
// lower-case scheme and host, no fragment, no trailing slash. https is required
// except on loopback hosts (tests, local development).
func CanonicalResource(s string) (*url.URL, error) {
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
	case u.Scheme != "https" && !(u.Scheme == "http" && mcpkit.IsLoopbackHost(u.Hostname())):
		return nil, errors.New("it must use https (http is allowed only for loopback hosts)")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// SameResource compares two resource URIs after canonicalisation, so an audience
// written with an upper-case host or a trailing slash still names this server.
func SameResource(a *url.URL, b string) bool {
	u, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, u.Scheme) && strings.EqualFold(a.Host, u.Host) &&
		a.Path == strings.TrimSuffix(u.Path, "/") && u.RawQuery == a.RawQuery && u.Fragment == ""
}

// CheckIssuerURL accepts an absolute https URL (http only for loopback hosts) with
// no query or fragment.
func CheckIssuerURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL: %v", err)
	case u.Host == "":
		return nil, errors.New("it must be an absolute URL, e.g. https://auth.example.com")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("it must not have a query or fragment")
	case u.Scheme != "https" && !(u.Scheme == "http" && mcpkit.IsLoopbackHost(u.Hostname())):
		return nil, errors.New("it must use https (http is allowed only for loopback hosts)")
	}
	return u, nil
}
