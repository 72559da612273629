package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"

	json "github.com/segmentio/encoding/json"
)

// The envelope items SDKs send when tracing or logs are on, besides error events:
//
//	transaction  an event of type "transaction": the root span in contexts.trace and
//	             its child spans in "spans" (every SDK; @sentry/node before 11)
//	span         one span as JSON (v1: what browser SDKs send on their own), or
//	             {"version":2,"items":[...]} with attributes typed {"value","type"}
//	             (content type application/vnd.sentry.items.span.v2+json: @sentry/node
//	             11 streams its spans so, instead of transactions)
//	log          {"items":[...]}: the current structured logs (sentry-go, @sentry/node,
//	             sentry-python from 2.28)
//	otel_log     one OpenTelemetry log record (sentry-python 2.23 to 2.27)
//
// The decoders are lenient about shapes the way ParseEvent is, and skip what cannot be
// placed (a span without a valid trace and span id, a log without a body) rather than
// refuse the envelope: the error event beside them matters more.

// maxItemsPerContainer bounds the spans or logs one item may hold.
const maxItemsPerContainer = 1000

type sdkSpanV1 struct {
	TraceID        event.FlexString            `json:"trace_id"`
	SpanID         event.FlexString            `json:"span_id"`
	ParentSpanID   event.FlexString            `json:"parent_span_id"`
	SegmentID      event.FlexString            `json:"segment_id"`
	IsSegment      event.FlexBool              `json:"is_segment"`
	Op             event.FlexString            `json:"op"`
	Description    event.FlexString            `json:"description"`
	Name           event.FlexString            `json:"name"` // v2
	Status         event.FlexString            `json:"status"`
	Origin         event.FlexString            `json:"origin"`
	StartTimestamp event.FlexTime              `json:"start_timestamp"`
	Timestamp      event.FlexTime              `json:"timestamp"`
	EndTimestamp   event.FlexTime              `json:"end_timestamp"` // v2
	Data           map[string]event.FlexString `json:"data"`
	Tags           event.FlexPairs             `json:"tags"`
	Attributes     map[string]typedValue       `json:"attributes"` // v2
}

// typedValue is an attribute of the v2 formats: {"value": ..., "type": "string"}.
type typedValue struct {
	Value event.FlexString `json:"value"`
}

type sdkTransaction struct {
	EventID        event.FlexString `json:"event_id"`
	Transaction    event.FlexString `json:"transaction"`
	StartTimestamp event.FlexTime   `json:"start_timestamp"`
	Timestamp      event.FlexTime   `json:"timestamp"`
	Release        event.FlexString `json:"release"`
	Environment    event.FlexString `json:"environment"`
	Platform       event.FlexString `json:"platform"`
	Tags           event.FlexPairs  `json:"tags"`
	Contexts       struct {
		Trace *sdkSpanV1 `json:"trace"`
	} `json:"contexts"`
	Spans []sdkSpanV1 `json:"spans"`
	SDK   *sdkInfo    `json:"sdk"`
}

// ParseTransaction decodes a transaction event into its spans: the root (segment)
// span first, named by the transaction, then its children. A transaction without a
// trace context has no trace to join and gives no spans.
func ParseTransaction(payload []byte, project string, received time.Time) ([]*event.Span, int, error) {
	var tx sdkTransaction
	if err := decodeObject(payload, &tx); err != nil {
		return nil, 0, fmt.Errorf("transaction payload is not a JSON object: %v", err)
	}
	root := tx.Contexts.Trace
	if root == nil {
		return nil, 1 + len(tx.Spans), nil
	}
	common := event.Span{
		Project:     project,
		Transaction: string(tx.Transaction),
		Release:     string(tx.Release),
		Environment: string(tx.Environment),
		Platform:    string(tx.Platform),
		Received:    received,
		EventID:     strings.ToLower(string(tx.EventID)),
	}
	if tx.SDK != nil {
		common.SDK = strings.TrimSpace(string(tx.SDK.Name) + " " + string(tx.SDK.Version))
	}
	root.StartTimestamp = firstTime(root.StartTimestamp, tx.StartTimestamp)
	root.Timestamp = firstTime(root.Timestamp, tx.Timestamp)
	if root.Description == "" {
		root.Description = tx.Transaction
	}
	seg, ok := spanV1(root, &common, tx.Tags)
	if !ok {
		return nil, 1 + len(tx.Spans), nil
	}
	seg.IsSegment, seg.SegmentID = true, seg.SpanID
	spans := []*event.Span{seg}
	skipped := 0
	for i := range tx.Spans {
		if len(spans) > event.MaxSpansPerTrace {
			skipped += len(tx.Spans) - i
			break
		}
		sp := &tx.Spans[i]
		if sp.TraceID == "" {
			sp.TraceID = event.FlexString(seg.TraceID)
		}
		s, ok := spanV1(sp, &common, nil)
		if !ok {
			skipped++
			continue
		}
		s.SegmentID = seg.SpanID
		spans = append(spans, s)
	}
	return spans, skipped, nil
}

func firstTime(a, b event.FlexTime) event.FlexTime {
	if a.T.IsZero() {
		return b
	}
	return a
}

// ParseSpanItem decodes a `span` item: one v1 span, or a v2 container of spans.
func ParseSpanItem(payload []byte, project string, received time.Time) ([]*event.Span, int, error) {
	var probe struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := decodeObject(payload, &probe); err != nil {
		return nil, 0, fmt.Errorf("span payload is not a JSON object: %v", err)
	}
	raws := probe.Items
	if raws == nil {
		raws = []json.RawMessage{payload}
	}
	if len(raws) > maxItemsPerContainer {
		return nil, 0, fmt.Errorf("span item holds %d spans: at most %d are accepted in one item", len(raws), maxItemsPerContainer)
	}
	var spans []*event.Span
	skipped := 0
	for _, raw := range raws {
		var sp sdkSpanV1
		if err := decodeObject(raw, &sp); err != nil {
			skipped++
			continue
		}
		common := event.Span{Project: project, Received: received}
		s, ok := spanV1(&sp, &common, nil)
		if !ok {
			skipped++
			continue
		}
		spans = append(spans, s)
	}
	return spans, skipped, nil
}

// heldSpanAttributes are the v2 attributes a Span's own fields hold, and lists that
// say nothing about the request (the SDK's integrations).
var heldSpanAttributes = map[string]bool{
	"sentry.op": true, "sentry.release": true, "sentry.environment": true, "sentry.sdk.name": true,
	"sentry.sdk.version": true, "sentry.segment.name": true, "sentry.segment.id": true,
	"sentry.status.message": true, "sentry.sdk.integrations": true, "sentry.trace_lifecycle": true,
	"sentry.platform": true, "sentry.description": true,
}

// spanV1 normalises one span (either version) over the fields common to its
// transaction; false when it has no valid trace or span id.
func spanV1(sp *sdkSpanV1, common *event.Span, tags event.FlexPairs) (*event.Span, bool) {
	s := *common
	var ok bool
	if s.TraceID, ok = event.NormalizeID(string(sp.TraceID), 32); !ok {
		return nil, false
	}
	if s.SpanID, ok = event.NormalizeID(string(sp.SpanID), 16); !ok {
		return nil, false
	}
	s.ParentSpanID, _ = event.NormalizeID(string(sp.ParentSpanID), 16)
	s.SegmentID, _ = event.NormalizeID(string(sp.SegmentID), 16)
	if sp.IsSegment.V != nil && *sp.IsSegment.V {
		s.IsSegment = true
	}
	s.Op = string(sp.Op)
	s.Description = event.FirstNonEmpty(string(sp.Description), string(sp.Name))
	s.Status = string(sp.Status)
	s.Start = sp.StartTimestamp.T
	s.End = firstTime(sp.EndTimestamp, sp.Timestamp).T
	if s.Start.IsZero() {
		s.Start = s.End
	}
	if s.End.IsZero() {
		s.End = s.Start
	}
	if s.Start.IsZero() {
		s.Start, s.End = s.Received, s.Received
	}
	attrs := make([]event.Pair, 0, len(sp.Data)+len(sp.Attributes)+len(tags)+1)
	for k, v := range sp.Data {
		attrs = append(attrs, event.Pair{Key: k, Value: string(v)})
	}
	for k, v := range sp.Attributes {
		val := string(v.Value)
		switch k {
		case "sentry.op":
			s.Op = event.FirstNonEmpty(s.Op, val)
		case "sentry.release":
			s.Release = event.FirstNonEmpty(s.Release, val)
		case "sentry.environment":
			s.Environment = event.FirstNonEmpty(s.Environment, val)
		case "sentry.segment.name":
			s.Transaction = event.FirstNonEmpty(s.Transaction, val)
		case "sentry.segment.id":
			if id, ok := event.NormalizeID(val, 16); ok && s.SegmentID == "" {
				s.SegmentID = id
			}
		case "sentry.status.message":
			if val != "" {
				s.Status = val // internal_error says more than v2's "error"
			}
		case "sentry.platform":
			s.Platform = event.FirstNonEmpty(s.Platform, val)
		}
		if !heldSpanAttributes[k] {
			attrs = append(attrs, event.Pair{Key: k, Value: val})
		}
	}
	if name, version := sp.Attributes["sentry.sdk.name"].Value, sp.Attributes["sentry.sdk.version"].Value; s.SDK == "" && name != "" {
		s.SDK = strings.TrimSpace(string(name) + " " + string(version))
	}
	if sp.Origin != "" {
		attrs = append(attrs, event.Pair{Key: "sentry.origin", Value: string(sp.Origin)})
	}
	attrs = append(attrs, tags...)
	s.Attributes = attrs
	if s.IsSegment && s.SegmentID == "" {
		s.SegmentID = s.SpanID
	}
	if s.IsSegment && s.Transaction == "" {
		s.Transaction = s.Description
	}
	event.BoundSpan(&s)
	return &s, true
}

type sdkLog struct {
	Timestamp      event.FlexTime        `json:"timestamp"`
	TraceID        event.FlexString      `json:"trace_id"`
	SpanID         event.FlexString      `json:"span_id"`
	Level          event.FlexString      `json:"level"`
	SeverityNumber event.FlexInt         `json:"severity_number"`
	Body           event.FlexString      `json:"body"`
	Attributes     map[string]typedValue `json:"attributes"`
}

// heldLogAttributes are the attributes a Log's own fields hold.
var heldLogAttributes = map[string]bool{
	"sentry.release": true, "sentry.environment": true, "sentry.sdk.name": true, "sentry.sdk.version": true,
	"sentry.message.template": true, "sentry.trace.parent_span_id": true,
}

// ParseLogItem decodes a `log` item: {"items": [...]}, each a log line.
func ParseLogItem(payload []byte, project string, received time.Time) ([]*event.Log, int, error) {
	var c struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := decodeObject(payload, &c); err != nil {
		return nil, 0, fmt.Errorf("log payload is not a JSON object: %v", err)
	}
	if len(c.Items) > maxItemsPerContainer {
		return nil, 0, fmt.Errorf("log item holds %d logs: at most %d are accepted in one item", len(c.Items), maxItemsPerContainer)
	}
	logs := make([]*event.Log, 0, len(c.Items))
	skipped := 0
	for _, raw := range c.Items {
		var in sdkLog
		if err := decodeObject(raw, &in); err != nil {
			skipped++
			continue
		}
		l := &event.Log{
			ID:        logID(project, raw),
			Project:   project,
			Timestamp: in.Timestamp.T,
			Received:  received,
			Level:     string(in.Level),
			Severity:  int(in.SeverityNumber),
			Body:      string(in.Body),
		}
		l.TraceID, _ = event.NormalizeID(string(in.TraceID), 32)
		l.SpanID, _ = event.NormalizeID(string(in.SpanID), 16)
		attrs := make([]event.Pair, 0, len(in.Attributes))
		for k, v := range in.Attributes {
			attrs = append(attrs, event.Pair{Key: k, Value: string(v.Value)})
		}
		finishLog(l, attrs)
		logs = append(logs, l)
	}
	return logs, skipped, nil
}

// otelLog is an OpenTelemetry log record as sentry-python 2.23 to 2.27 sent it
// (camelCase, OTLP/JSON); the snake_case names of the protocol buffers are read too.
type otelLog struct {
	SeverityText    event.FlexString `json:"severityText"`
	SeverityText2   event.FlexString `json:"severity_text"`
	SeverityNumber  event.FlexInt    `json:"severityNumber"`
	SeverityNumber2 event.FlexInt    `json:"severity_number"`
	Body            otelAnyValue     `json:"body"`
	TimeUnixNano    event.FlexString `json:"timeUnixNano"`
	TimeUnixNano2   event.FlexString `json:"time_unix_nano"`
	TraceID         event.FlexString `json:"traceId"`
	TraceID2        event.FlexString `json:"trace_id"`
	SpanID          event.FlexString `json:"spanId"`
	SpanID2         event.FlexString `json:"span_id"`
	Attributes      []struct {
		Key   event.FlexString `json:"key"`
		Value otelAnyValue     `json:"value"`
	} `json:"attributes"`
}

// otelAnyValue is OTLP's AnyValue: one of stringValue, intValue, doubleValue,
// boolValue (or their snake_case names), or anything else as its JSON text.
type otelAnyValue struct{ Text string }

func (v *otelAnyValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		var s event.FlexString
		err := s.UnmarshalJSON(b)
		v.Text = string(s)
		return err
	}
	var m map[string]event.FlexString
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range []string{"stringValue", "string_value", "intValue", "int_value", "doubleValue", "double_value", "boolValue", "bool_value"} {
		if s, ok := m[k]; ok {
			v.Text = string(s)
			return nil
		}
	}
	var s event.FlexString
	err := s.UnmarshalJSON(b)
	v.Text = string(s)
	return err
}

// ParseOtelLog decodes an `otel_log` item: one log record.
func ParseOtelLog(payload []byte, project string, received time.Time) (*event.Log, error) {
	var in otelLog
	if err := decodeObject(payload, &in); err != nil {
		return nil, fmt.Errorf("otel_log payload is not a JSON object: %v", err)
	}
	l := &event.Log{
		ID:       logID(project, payload),
		Project:  project,
		Received: received,
		Level:    event.FirstNonEmpty(string(in.SeverityText), string(in.SeverityText2)),
		Severity: int(in.SeverityNumber) + int(in.SeverityNumber2),
		Body:     in.Body.Text,
	}
	if ns, err := strconv.ParseInt(strings.TrimSpace(event.FirstNonEmpty(string(in.TimeUnixNano), string(in.TimeUnixNano2))), 10, 64); err == nil && ns > 0 {
		l.Timestamp = time.Unix(0, ns).UTC()
	}
	l.TraceID, _ = event.NormalizeID(event.FirstNonEmpty(string(in.TraceID), string(in.TraceID2)), 32)
	l.SpanID, _ = event.NormalizeID(event.FirstNonEmpty(string(in.SpanID), string(in.SpanID2)), 16)
	attrs := make([]event.Pair, 0, len(in.Attributes))
	for _, a := range in.Attributes {
		attrs = append(attrs, event.Pair{Key: string(a.Key), Value: a.Value.Text})
	}
	finishLog(l, attrs)
	return l, nil
}

// finishLog moves the attributes a Log holds in fields there and bounds the log.
func finishLog(l *event.Log, attrs []event.Pair) {
	var sdkName, sdkVersion string
	kept := attrs[:0]
	for _, a := range attrs {
		switch a.Key {
		case "sentry.release":
			l.Release = a.Value
		case "sentry.environment":
			l.Environment = a.Value
		case "sentry.sdk.name":
			sdkName = a.Value
		case "sentry.sdk.version":
			sdkVersion = a.Value
		case "sentry.message.template":
			l.Template = a.Value
		case "sentry.trace.parent_span_id":
			if l.SpanID == "" {
				l.SpanID, _ = event.NormalizeID(a.Value, 16)
			}
		}
		if !heldLogAttributes[a.Key] {
			kept = append(kept, a)
		}
	}
	l.SDK = strings.TrimSpace(sdkName + " " + sdkVersion)
	if l.Timestamp.IsZero() {
		l.Timestamp = l.Received
	}
	l.Attributes = kept
	event.BoundLog(l)
}

// logID names a log line by its project and its JSON as sent, so an envelope sent
// again (an SDK's retry) stores each line once; two lines differ in their timestamp
// or sequence attribute.
func logID(project string, raw []byte) string {
	h := sha256.New()
	h.Write([]byte(project))
	h.Write([]byte{0})
	h.Write(bytes.TrimSpace(raw))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// telemetryItem decodes a transaction, span, log or otel_log item into t when the
// sink keeps them; false for every other item (and for these when it does not).
func (s handler) telemetryItem(t *event.Telemetry, item envelopeItem, project string) (bool, error) {
	if _, ok := s.Sink.(TelemetrySink); !ok {
		return false, nil
	}
	t.Project = project
	if knownItemTypes[item.Type] || item.Type == "event" {
		t.CountKind(item.Type)
	} else {
		t.CountKind("unknown")
	}
	now := s.Now()
	switch item.Type {
	case "transaction":
		spans, skipped, err := ParseTransaction(item.Payload, project, now)
		t.Spans, t.Skipped = append(t.Spans, spans...), t.Skipped+skipped
		return true, err
	case "span":
		spans, skipped, err := ParseSpanItem(item.Payload, project, now)
		t.Spans, t.Skipped = append(t.Spans, spans...), t.Skipped+skipped
		return true, err
	case "log":
		logs, skipped, err := ParseLogItem(item.Payload, project, now)
		t.Logs, t.Skipped = append(t.Logs, logs...), t.Skipped+skipped
		return true, err
	case "otel_log":
		l, err := ParseOtelLog(item.Payload, project, now)
		if err == nil {
			t.Logs = append(t.Logs, l)
		}
		return true, err
	}
	return false, nil
}

// ingest hands what the request carried to the sink: events, spans and logs in one
// call to a TelemetrySink, the events alone to any other.
func (s handler) ingest(ctx context.Context, events []*event.Event, t *event.Telemetry) error {
	if ts, ok := s.Sink.(TelemetrySink); ok && len(t.Kinds) > 0 {
		if t.Skipped > 0 {
			s.Logger().Debug("ingest: spans or logs without ids skipped", "count", t.Skipped)
		}
		return ts.IngestTelemetry(ctx, events, t)
	}
	return s.Ingest(ctx, events)
}
