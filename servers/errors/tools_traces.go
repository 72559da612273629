package errorserver

import (
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/servers/errors/backend"
)

// The trace tools (#28), registered with Config.Traces (--traces) over a backend that
// keeps or reaches traces and logs: off by default, so the default tools/list costs
// what it did (tools/tokens).
const (
	ToolGetTrace    = "get_trace"
	ToolSearchSpans = "search_spans"
	ToolSearchLogs  = "search_logs"
)

// TraceToolNames lists the trace tools in tools/list order (after ToolNames).
var TraceToolNames = []string{ToolGetTrace, ToolSearchSpans, ToolSearchLogs}

const (
	descGetTrace = "Get a trace (one request across services) as a compact waterfall: each span's op, description, status, parent, start (at) and duration (ms) in milliseconds, with the trace's error events and log lines. " +
		"Use it with get_event's trace to see what the failing request did before it failed; when cut, the slowest spans and those around errors are kept."

	descSearchSpans = "Find spans (database queries, HTTP calls, transactions) in a window, slowest first, with duration percentiles of every match: which calls are slow. " +
		"Query: free text in the description and op:, status:, transaction:, is:transaction, trace:, or attribute terms."

	descSearchLogs = "Find log lines the application sent in a window, newest first. " +
		"Query: free text in the message and level:, trace:, release:, environment:, or attribute terms."
)

// traceTools are the rows of the trace tools over tb.
func traceTools(tb backend.TraceBackend, remote bool) []mcpkit.ServerTool {
	ann := mcpkit.ReadOnly()
	if remote {
		ann.OpenWorldHint = true
	}
	return []mcpkit.ServerTool{
		readTool(ToolGetTrace, descGetTrace, ann, tb.GetTrace),
		readTool(ToolSearchSpans, descSearchSpans, ann, tb.SearchSpans),
		readTool(ToolSearchLogs, descSearchLogs, ann, tb.SearchLogs),
	}
}
