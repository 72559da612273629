package mcpkit

import (
	"log/slog"
	"strings"
)

// TraceContext is the W3C trace context a client sent in _meta.traceparent
// (https://www.w3.org/TR/trace-context/#traceparent-header): the trace a request
// belongs to and the client's span that made it.
type TraceContext struct {
	TraceID  string // 32 lower-case hex digits, not all zero
	ParentID string // 16 lower-case hex digits, not all zero: the caller's span
	Sampled  bool
}

// ParseTraceparent reads a traceparent value. ok is false for anything that is not a
// valid version-00 (or later, read as 00) traceparent, which is then ignored as the
// W3C specification requires.
func ParseTraceparent(v string) (tc TraceContext, ok bool) {
	// version "-" trace-id "-" parent-id "-" flags; later versions may append fields.
	if len(v) < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return tc, false
	}
	version, traceID, parentID, flags := v[0:2], v[3:35], v[36:52], v[53:55]
	if !isLowerHex(version) || version == "ff" || !isLowerHex(traceID) || !isLowerHex(parentID) || !isLowerHex(flags) {
		return tc, false
	}
	if version == "00" && len(v) != 55 || len(v) > 55 && v[55] != '-' {
		return tc, false
	}
	if strings.Trim(traceID, "0") == "" || strings.Trim(parentID, "0") == "" {
		return tc, false
	}
	return TraceContext{TraceID: traceID, ParentID: parentID, Sampled: hexNibble(flags[1])&1 == 1}, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

func hexNibble(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

// Trace returns the request's trace context, if the client sent a valid one.
func (r *Request) Trace() (TraceContext, bool) {
	return ParseTraceparent(r.Meta.Traceparent)
}

// traceAttrs are the log attributes that tie a line to the client's trace.
func (r *Request) traceAttrs() []slog.Attr {
	tc, ok := r.Trace()
	if !ok {
		return nil
	}
	return []slog.Attr{slog.String("trace_id", tc.TraceID), slog.String("span_id", tc.ParentID)}
}

// Logger returns the server's logger with this request's method, name and trace
// context attached, so a handler's log lines can be joined with the client's trace
// and the audit line. It never adds arguments or tokens.
func (r *Request) Logger() *slog.Logger {
	l := r.server.logger.With("method", r.Method)
	if r.Name != "" {
		l = l.With("name", r.Name)
	}
	for _, a := range r.traceAttrs() {
		l = l.With(a)
	}
	return l
}
