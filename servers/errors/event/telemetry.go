package event

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Span is one timed operation of a trace: the root span of a transaction (its
// segment), one of the transaction's child spans, or a span an SDK sends on its own
// (a standalone `span` item). Like Event it is a storage format (add fields, never
// rename), and nothing in it is sanitised for display; ingest has bounded and
// redacted it (BoundSpan).
type Span struct {
	TraceID      string `json:"traceId"`                // 32 lower-case hex digits
	SpanID       string `json:"spanId"`                 // 16 lower-case hex digits
	ParentSpanID string `json:"parentSpanId,omitempty"` // empty for a trace's root
	// SegmentID is the span id of the transaction (segment) the span belongs to;
	// IsSegment marks that span itself, whose Description is the transaction's name.
	SegmentID   string    `json:"segmentId,omitempty"`
	IsSegment   bool      `json:"isSegment,omitempty"`
	Project     string    `json:"project,omitempty"`
	Transaction string    `json:"transaction,omitempty"` // the segment's name
	Op          string    `json:"op,omitempty"`
	Description string    `json:"description,omitempty"`
	Status      string    `json:"status,omitempty"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Received    time.Time `json:"received,omitzero"`
	Release     string    `json:"release,omitempty"`
	Environment string    `json:"environment,omitempty"`
	Platform    string    `json:"platform,omitempty"`
	SDK         string    `json:"sdk,omitempty"`
	// EventID is the id of the transaction event the span came in (empty for a
	// standalone span).
	EventID string `json:"eventId,omitempty"`
	// Attributes are the span's data, tags and attributes as text, sorted by key.
	Attributes []Pair `json:"attributes,omitempty"`
	// Frame is where the span was started, from the code.* attributes SDKs add (the
	// query source of a database span): a code mapping gives it a local path.
	Frame *Frame `json:"frame,omitempty"`
}

// Duration is the span's duration (zero when it ended before it started).
func (s *Span) Duration() time.Duration {
	if d := s.End.Sub(s.Start); d > 0 {
		return d
	}
	return 0
}

// Attr returns the value of the attribute with key k.
func (s *Span) Attr(k string) string { return pairValue(s.Attributes, k) }

// Log is one structured log line an SDK sends (`log` and `otel_log` items). A storage
// format like Event; bounded and redacted by BoundLog.
type Log struct {
	ID        string    `json:"id"` // 32 hex digits, given by the store's ingest
	Project   string    `json:"project,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	Received  time.Time `json:"received,omitzero"`
	TraceID   string    `json:"traceId,omitempty"`
	SpanID    string    `json:"spanId,omitempty"` // the span active when it was logged
	// Level is one of trace, debug, info, warn, error, fatal.
	Level       string `json:"level"`
	Severity    int    `json:"severity,omitempty"` // OpenTelemetry's severity number
	Body        string `json:"body"`
	Template    string `json:"template,omitempty"` // sentry.message.template
	Release     string `json:"release,omitempty"`
	Environment string `json:"environment,omitempty"`
	SDK         string `json:"sdk,omitempty"`
	// Attributes as text, sorted by key; those the fields above hold are left out.
	Attributes []Pair `json:"attributes,omitempty"`
}

// Attr returns the value of the attribute with key k.
func (l *Log) Attr(k string) string { return pairValue(l.Attributes, k) }

func pairValue(p []Pair, k string) string {
	for _, a := range p {
		if a.Key == k {
			return a.Value
		}
	}
	return ""
}

// Bounds on spans and logs, applied at ingest so one payload cannot make the store or
// an answer large.
const (
	MaxSpanText       = 2048 // a span's description, a log's body and template
	MaxAttributes     = 64
	MaxAttributeValue = 512
	MaxSpansPerTrace  = 10000 // what one trace may hold in the store
)

// BoundSpan caps a span's texts and attributes, redacts secrets in its description
// and attribute values (the same rule as tags: a secret-looking key hides the whole
// value), and reads its frame from the code.* attributes.
func BoundSpan(s *Span) {
	s.Transaction = Capped(RedactText(s.Transaction), 1024)
	s.Op = Capped(s.Op, 128)
	s.Description = Capped(RedactText(s.Description), MaxSpanText)
	s.Status = Capped(s.Status, 64)
	s.Release = Capped(s.Release, MaxTagValue)
	s.Environment = Capped(s.Environment, 64)
	s.Platform = Capped(s.Platform, 64)
	s.SDK = Capped(s.SDK, 128)
	s.Attributes = boundAttributes(s.Attributes)
	s.Frame = spanFrame(s.Attributes)
}

// BoundLog caps a log's texts and attributes and redacts secrets in its body,
// template and attribute values.
func BoundLog(l *Log) {
	l.Level = NormalizeLogLevel(l.Level, l.Severity)
	l.Body = Capped(RedactText(l.Body), MaxSpanText)
	l.Template = Capped(RedactText(l.Template), MaxSpanText)
	l.Release = Capped(l.Release, MaxTagValue)
	l.Environment = Capped(l.Environment, 64)
	l.SDK = Capped(l.SDK, 128)
	l.Attributes = boundAttributes(l.Attributes)
}

// boundAttributes sorts attributes by key, keeps the first of a repeated key and at
// most MaxAttributes, caps keys and values and redacts values.
func boundAttributes(in []Pair) []Pair {
	if len(in) == 0 {
		return nil
	}
	SortPairs(in)
	out := in[:0]
	for i, a := range in {
		if i > 0 && in[i-1].Key == a.Key || a.Key == "" {
			continue
		}
		if len(out) == MaxAttributes {
			break
		}
		out = append(out, Pair{Key: Capped(a.Key, MaxTagKey), Value: Capped(RedactValue(a.Key, a.Value), MaxAttributeValue)})
	}
	return slices.Clip(out)
}

// spanFrame is the frame of the code.* attributes: OpenTelemetry's current names
// (code.file.path, code.function.name, code.line.number) and the older ones SDKs send
// (code.filepath, code.function, code.lineno, code.namespace).
func spanFrame(attrs []Pair) *Frame {
	file := FirstNonEmpty(pairValue(attrs, "code.file.path"), pairValue(attrs, "code.filepath"))
	fn := FirstNonEmpty(pairValue(attrs, "code.function.name"), pairValue(attrs, "code.function"))
	if file == "" && fn == "" {
		return nil
	}
	line, _ := strconv.Atoi(FirstNonEmpty(pairValue(attrs, "code.line.number"), pairValue(attrs, "code.lineno")))
	return &Frame{Function: fn, Module: pairValue(attrs, "code.namespace"), Filename: file, AbsPath: file, Line: max(line, 0)}
}

// NormalizeLogLevel maps an SDK's level (or, without one, OpenTelemetry's severity
// number) to trace, debug, info, warn, error or fatal.
func NormalizeLogLevel(level string, severity int) string {
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "trace":
		return "trace"
	case "debug":
		return "debug"
	case "info", "information", "notice", "log":
		return "info"
	case "warn", "warning":
		return "warn"
	case "error", "err":
		return "error"
	case "fatal", "critical", "crit", "emergency", "alert":
		return "fatal"
	}
	switch {
	case severity >= 21:
		return "fatal"
	case severity >= 17:
		return "error"
	case severity >= 13:
		return "warn"
	case severity >= 9 || severity == 0:
		return "info"
	case severity >= 5:
		return "debug"
	}
	return "trace"
}

// NormalizeID returns id as n lower-case hex digits (a trace id is 32, a span id 16),
// accepting upper case and a UUID's dashes, or false when it is not one.
func NormalizeID(id string, n int) (string, bool) {
	id = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(id), "-", ""))
	if len(id) != n {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	if strings.Trim(id, "0") == "" {
		return "", false // the all-zero id is OpenTelemetry's "none"
	}
	return id, true
}

// Telemetry is what one request to the ingest endpoint holds besides error events:
// its spans and logs, and how many items of each envelope item type it carried (what
// list_projects reports a project sends, kept or dropped).
type Telemetry struct {
	Project string
	Spans   []*Span
	Logs    []*Log
	// Kinds counts the request's items by envelope item type ("event", "transaction",
	// "session", ...; "unknown" for a type this server does not know).
	Kinds map[string]int
	// Skipped counts the spans and logs that could not be placed (no valid ids).
	Skipped int
}

// CountKind counts one item of type kind.
func (t *Telemetry) CountKind(kind string) {
	if t.Kinds == nil {
		t.Kinds = map[string]int{}
	}
	t.Kinds[kind]++
}

// KeptKinds are the envelope item types the local store keeps; it acknowledges and
// drops every other.
var KeptKinds = map[string]bool{"event": true, "transaction": true, "span": true, "log": true, "otel_log": true}
