package github

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Per-request narrowing for HTTP deployments. One server, started with the toolsets an
// operator allows, serves clients that want fewer tools: a client sends
// X-MCP-Toolsets (toolset names, "default" or "all") and/or X-MCP-Tools (tool names),
// comma-separated as on the command line, and sees only the registered tools they
// name. The headers can only narrow: a tool the command line did not register stays
// out whatever they say (mcpkit hides, it never adds), and a name they do not know
// matches nothing. Without either header a request sees every registered tool; on
// stdio there are no headers.
const (
	HeaderToolsets = "X-MCP-Toolsets"
	HeaderTools    = "X-MCP-Tools"
)

// headerNarrowing is New's mcpkit.ServerOptions.ToolVisible.
func headerNarrowing() func(req *mcpkit.Request, name string) bool {
	toolset := map[string]toolEntry{}
	for _, e := range catalog(nil, true) {
		toolset[e.Tool.Name] = e
	}
	return func(req *mcpkit.Request, name string) bool {
		sets, tools := headerList(req.Header, HeaderToolsets), headerList(req.Header, HeaderTools)
		if sets == nil && tools == nil {
			return true
		}
		e := toolset[name]
		return slices.Contains(tools, name) || slices.Contains(sets, "all") || slices.Contains(sets, e.toolset) ||
			slices.Contains(sets, "default") && e.inDefault()
	}
}

// headerList splits every value of a header into trimmed, non-empty names; nil when
// the header is absent or names nothing.
func headerList(h http.Header, key string) []string {
	var out []string
	for _, v := range h.Values(key) {
		for _, part := range strings.Split(v, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
