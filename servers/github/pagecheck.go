package github

import (
	"net/http"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// pageCheck refuses a successful API answer that is a web page: GitHub's API never
// sends text/html for the media types this server asks for, so one means a proxy, a
// captive portal or a single sign-on page answered instead, and its HTML must not
// reach the model as a diff or fail later as "invalid character '<'". Raw file bytes
// (Accept .raw) are exempt: a repository's own index.html is data.
type pageCheck struct {
	next http.RoundTripper
}

func (p pageCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 || !upstream.IsHTML(resp.Header) {
		return resp, err
	}
	accept := strings.ToLower(req.Header.Get("Accept"))
	if strings.Contains(accept, "html") || strings.Contains(accept, ".raw") {
		return resp, nil
	}
	resp.Body.Close()
	return nil, upstream.HTMLPage("GitHub", resp.StatusCode, expectedData(accept), "GITHUB_HOST")
}

// expectedData names what a request's Accept header asks for, for messages.
func expectedData(accept string) string {
	switch {
	case strings.Contains(accept, ".diff"):
		return "a diff"
	case strings.Contains(accept, ".patch"):
		return "a patch"
	default:
		return "JSON"
	}
}
