package github

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Endpoint is where the GitHub REST API lives: github.com, a GHE.com data-residency
// tenant, or a GitHub Enterprise Server.
type Endpoint struct {
	// Host is the name shown to people (in confirmations and errors), e.g. "github.com".
	Host string
	// BaseURL is the REST API root, always ending in "/".
	BaseURL string
	// UploadURL is the uploads API root, always ending in "/".
	UploadURL string
}

// DefaultEndpoint is public github.com.
var DefaultEndpoint = Endpoint{
	Host:      "github.com",
	BaseURL:   "https://api.github.com/",
	UploadURL: "https://uploads.github.com/",
}

// ParseHost turns the value of GITHUB_HOST / --gh-host into an Endpoint.
//
// Accepted forms: "" or "github.com" (public GitHub); "NAME.ghe.com" (GHE.com, whose API
// is https://api.NAME.ghe.com/); a host name such as "github.example.com" or a URL such
// as "https://github.example.com" (GitHub Enterprise Server, whose API is
// https://HOST/api/v3/). Plain http is accepted only for loopback hosts (localhost,
// 127.0.0.0/8, ::1) because a token sent in clear text over a network is a token given
// away; that loopback exception is how tests point the server at a fake.
func ParseHost(host string) (Endpoint, error) {
	raw := strings.TrimSpace(host)
	if raw == "" {
		return DefaultEndpoint, nil
	}
	withScheme := raw
	if !strings.Contains(raw, "://") {
		withScheme = "https://" + raw
	}
	u, err := url.Parse(withScheme)
	if err != nil {
		return Endpoint{}, fmt.Errorf("GitHub host %q is not a host name or URL: %v; expected e.g. github.example.com or https://github.example.com", raw, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return Endpoint{}, fmt.Errorf("GitHub host %q has scheme %q; expected https:// (or http:// for a loopback test server)", raw, u.Scheme)
	case u.User != nil:
		return Endpoint{}, fmt.Errorf("GitHub host must not carry credentials in the URL; pass the token through GITHUB_TOKEN instead")
	case u.RawQuery != "" || u.Fragment != "":
		return Endpoint{}, fmt.Errorf("GitHub host %q must not have a query or fragment; expected e.g. https://github.example.com", raw)
	case u.Hostname() == "":
		return Endpoint{}, fmt.Errorf("GitHub host %q has no host name; expected e.g. github.example.com", raw)
	}
	if !validHostname(u.Hostname()) {
		return Endpoint{}, fmt.Errorf("GitHub host %q is not a valid host name; expected e.g. github.example.com", raw)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if path != "" && path != "/api/v3" {
		return Endpoint{}, fmt.Errorf("GitHub host %q has path %q; give the host only (the API path /api/v3/ is added for you)", raw, u.Path)
	}
	if u.Scheme == "http" && !mcpkit.IsLoopbackHost(u.Hostname()) {
		return Endpoint{}, fmt.Errorf("GitHub host %q uses plain http, which is allowed only for loopback hosts (localhost, 127.0.0.1, ::1); use https://", raw)
	}

	name := strings.ToLower(u.Hostname())
	switch {
	case name == "github.com" || name == "api.github.com" || name == "www.github.com":
		if u.Scheme != "https" || u.Port() != "" {
			return Endpoint{}, fmt.Errorf("GitHub host %q: github.com is reached only over https on the default port", raw)
		}
		return DefaultEndpoint, nil
	case name == "ghe.com" || strings.HasSuffix(name, ".ghe.com"):
		tenant := strings.TrimPrefix(strings.TrimSuffix(name, ".ghe.com"), "api.")
		if tenant == "" || strings.Contains(tenant, ".") {
			return Endpoint{}, fmt.Errorf("GitHub host %q is not a GHE.com tenant; expected NAME.ghe.com", raw)
		}
		return Endpoint{
			Host:      tenant + ".ghe.com",
			BaseURL:   "https://api." + tenant + ".ghe.com/",
			UploadURL: "https://uploads." + tenant + ".ghe.com/",
		}, nil
	}
	origin := u.Scheme + "://" + u.Host
	return Endpoint{
		Host:      u.Host,
		BaseURL:   origin + "/api/v3/",
		UploadURL: origin + "/api/uploads/",
	}, nil
}

// validHostname accepts DNS names and IP literals, nothing with spaces or odd bytes.
func validHostname(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}
