package sentryapi

import "strings"

// Sentry paginates with a Link header:
//
//	<https://sentry.io/api/0/.../?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1",
//	<https://sentry.io/api/0/.../?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"
//
// A next link always exists; results="true" says whether it leads anywhere.

// nextCursor returns the cursor of the rel="next" link that has results, or "".
func nextCursor(headers []string) string {
	for _, h := range headers {
		for _, link := range splitLinks(h) {
			params := linkParams(link)
			if params["rel"] == "next" && params["results"] == "true" && params["cursor"] != "" {
				return params["cursor"]
			}
		}
	}
	return ""
}

// splitLinks splits a Link header at the commas between links, not those inside <...>
// or quoted parameter values.
func splitLinks(h string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '<':
			depth++
		case c == '>':
			depth--
		case c == ',' && depth == 0:
			out = append(out, h[start:i])
			start = i + 1
		}
	}
	return append(out, h[start:])
}

// linkParams parses `<url>; k="v"; k2=v2` into its parameters (keys lower-cased).
func linkParams(link string) map[string]string {
	params := map[string]string{}
	if i := strings.IndexByte(link, '>'); i >= 0 {
		link = link[i+1:]
	}
	for _, part := range strings.Split(link, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		params[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return params
}
