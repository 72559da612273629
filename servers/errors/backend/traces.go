package backend

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/servers/errors/event"
)

// TraceBackend is what the trace tools (get_trace, search_spans, search_logs) call:
// a backend that keeps or reaches traces and logs. The local store is one.
type TraceBackend interface {
	GetTrace(ctx context.Context, in GetTraceInput) (*Trace, error)
	SearchSpans(ctx context.Context, in SearchSpansInput) (*SpanList, error)
	SearchLogs(ctx context.Context, in SearchLogsInput) (*LogList, error)
}

type GetTraceInput struct {
	Organization string `json:"organization,omitempty"`
	TraceID      string `json:"traceId" jsonschema_description:"32 hex digits: get_event's trace, a log's or a span's trace"`
	MaxSpans     int    `json:"maxSpans,omitempty" jsonschema_description:"Spans shown; when cut, the slowest and those around errors are kept" jsonschema:"minimum=0,maximum=300,default=60"`
	// Codes are the server's code mappings (set by the Presenter, never by a client).
	Codes *event.CodeMap `json:"-"`
}

type SearchSpansInput struct {
	Organization string `json:"organization,omitempty"`
	Query        string `json:"query,omitempty" jsonschema_description:"Free text (description) and key:value terms: op:db.query status:internal_error transaction:\"POST /checkout\" is:transaction (roots only), trace:ID, or any attribute"`
	StatsPeriod  string `json:"statsPeriod,omitempty" jsonschema_description:"Window ending now such as 90m, 24h, 3d. Not with start." jsonschema:"default=24h"`
	Start        string `json:"start,omitempty"`
	End          string `json:"end,omitempty"`
	Limit        int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=100,default=25"`
}

type SearchLogsInput struct {
	Organization string `json:"organization,omitempty"`
	Query        string `json:"query,omitempty" jsonschema_description:"Free text (the message) and key:value terms: level:error (or severity:), trace:ID, release:, environment:, or any attribute"`
	StatsPeriod  string `json:"statsPeriod,omitempty" jsonschema_description:"Window ending now such as 90m, 24h, 3d. Not with start." jsonschema:"default=24h"`
	Start        string `json:"start,omitempty"`
	End          string `json:"end,omitempty"`
	Limit        int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=100,default=25"`
}

// Trace is GetTrace's result: a compact waterfall.
type Trace struct {
	TraceID string `json:"traceId" jsonschema_description:"The trace id."`
	Start   string `json:"start,omitempty" jsonschema_description:"When the first span started."`
	Ms      int64  `json:"ms" jsonschema_description:"From the first start to the last end, in milliseconds."`
	// Spans in waterfall order (a parent before its children, siblings by start).
	Spans  []TraceSpan  `json:"spans" jsonschema_description:"The spans in waterfall order: a parent before its children, siblings by start."`
	Errors []TraceError `json:"errors,omitempty" jsonschema_description:"Error events of the trace: get_event with issueId and eventId."`
	Logs   []TraceLog   `json:"logs,omitempty" jsonschema_description:"Log lines of the trace, oldest first."`
	// SpanCount is every span stored for the trace; Cut says which were left out.
	SpanCount int    `json:"spanCount" jsonschema_description:"Spans stored for the trace."`
	Cut       string `json:"cut,omitempty" jsonschema_description:"What was left out and why."`
	Now       string `json:"now" jsonschema_description:"The server's current time (RFC 3339)."`
	mcpkit.Truncation
}

// TraceSpan is one line of the waterfall.
type TraceSpan struct {
	ID     string `json:"id" jsonschema_description:"Span id."`
	Parent string `json:"parent,omitempty" jsonschema_description:"Parent span id; empty for a root, ... when the parent was cut."`
	Op     string `json:"op,omitempty" jsonschema_description:"Operation such as http.server or db.query."`
	Desc   string `json:"desc,omitempty" jsonschema_description:"Description (a root's: the transaction)."`
	Status string `json:"status,omitempty" jsonschema_description:"Left out when ok."`
	At     int64  `json:"at" jsonschema_description:"Start, in milliseconds after the trace's start."`
	Ms     int64  `json:"ms" jsonschema_description:"Duration in milliseconds."`
	Error  bool   `json:"error,omitempty" jsonschema_description:"An error event or an error log happened in this span."`
	File   string `json:"file,omitempty" jsonschema_description:"Where the span was started (path on this machine with a code mapping), file:line."`
}

type TraceError struct {
	EventID string `json:"eventId" jsonschema_description:"Event id for get_event."`
	IssueID string `json:"issueId" jsonschema_description:"Issue id for get_event and get_issue."`
	Title   string `json:"title" jsonschema_description:"The error's title."`
	Span    string `json:"span,omitempty" jsonschema_description:"The span it happened in."`
}

type TraceLog struct {
	At    int64  `json:"at" jsonschema_description:"Milliseconds after the trace's start."`
	Level string `json:"level" jsonschema_description:"trace, debug, info, warn, error or fatal."`
	Body  string `json:"body" jsonschema_description:"The message."`
	Span  string `json:"span,omitempty" jsonschema_description:"The span it was logged in."`
}

// SpanList is SearchSpans' result: slowest first, with percentiles of every match.
type SpanList struct {
	Spans []FoundSpan `json:"spans" jsonschema_description:"Matching spans, slowest first."`
	// Matched counts every span in the window that matches; the percentiles are of
	// their durations, in milliseconds.
	Matched int64            `json:"matched" jsonschema_description:"Spans in the window that match."`
	P       map[string]int64 `json:"p,omitempty" jsonschema_description:"Duration percentiles (p50, p75, p95, p99) of every match, in milliseconds."`
	Now     string           `json:"now" jsonschema_description:"The server's current time (RFC 3339)."`
	mcpkit.Truncation
}

type FoundSpan struct {
	Trace       string `json:"trace" jsonschema_description:"Trace id for get_trace."`
	ID          string `json:"id" jsonschema_description:"Span id."`
	Op          string `json:"op,omitempty" jsonschema_description:"Operation."`
	Desc        string `json:"desc,omitempty" jsonschema_description:"Description."`
	Transaction string `json:"transaction,omitempty" jsonschema_description:"The transaction it belongs to."`
	Status      string `json:"status,omitempty" jsonschema_description:"Left out when ok."`
	Start       string `json:"start" jsonschema_description:"When it started (RFC 3339)."`
	Ms          int64  `json:"ms" jsonschema_description:"Duration in milliseconds."`
	Project     string `json:"project,omitempty" jsonschema_description:"Project id."`
}

// LogList is SearchLogs' result, newest first.
type LogList struct {
	Logs []FoundLog `json:"logs" jsonschema_description:"Matching log lines, newest first."`
	Now  string     `json:"now" jsonschema_description:"The server's current time (RFC 3339)."`
	mcpkit.Truncation
}

type FoundLog struct {
	Time        string            `json:"time" jsonschema_description:"When it was logged (RFC 3339)."`
	Level       string            `json:"level" jsonschema_description:"trace, debug, info, warn, error or fatal."`
	Body        string            `json:"body" jsonschema_description:"The message."`
	Trace       string            `json:"trace,omitempty" jsonschema_description:"Trace id for get_trace."`
	Span        string            `json:"span,omitempty" jsonschema_description:"The span it was logged in."`
	Release     string            `json:"release,omitempty" jsonschema_description:"Release."`
	Environment string            `json:"environment,omitempty" jsonschema_description:"Environment."`
	Project     string            `json:"project,omitempty" jsonschema_description:"Project id."`
	Attributes  map[string]string `json:"attributes,omitempty" jsonschema_description:"The application's attributes (secret-looking keys redacted)."`
}

// Limits of the trace tools.
const (
	DefaultTraceSpans  = 60
	MaxTraceSpans      = 300
	DefaultTraceWindow = "24h"
	maxTraceLogs       = 20
	maxTraceErrors     = 10
	capSpanText        = 160
	capLogText         = 300
	maxLogAttributes   = 12
)

// ResolveMaxSpans checks GetTraceInput.MaxSpans.
func ResolveMaxSpans(n int) (int, error) {
	if n < 0 || n > MaxTraceSpans {
		return 0, fmt.Errorf("%w: maxSpans %d is out of range: give 1 to %d (0 means %d)", ErrInvalidInput, n, MaxTraceSpans, DefaultTraceSpans)
	}
	if n == 0 {
		return DefaultTraceSpans, nil
	}
	return n, nil
}

// CheckTraceID normalises a trace id or says what one is.
func CheckTraceID(id string) (string, error) {
	if t, ok := event.NormalizeID(id, 32); ok {
		return t, nil
	}
	return "", fmt.Errorf("%w: traceId %q is not a trace id: give its 32 hex digits, as get_event's trace or a log's trace shows it", ErrInvalidInput, TruncateForError(id))
}

// TraceParts is what a backend found of a trace, for BuildTrace.
type TraceParts struct {
	Spans  []*event.Span
	Errors []*event.Event // the error events whose trace context names the trace
	Logs   []*event.Log
	Codes  *event.CodeMap
}

// BuildTrace draws the compact waterfall of a trace. When there are more spans than
// maxSpans, it keeps the spans with an error (an error event, an error log, a status
// other than ok) and their neighbours (parent and children), then the slowest, and
// every kept span's ancestors so the tree stays whole; Cut says what was left out.
//
// The result is held under MaxTraceBytes of JSON: when the spans asked for do not fit,
// fewer are kept (by the same choice) and Cut says so.
func BuildTrace(traceID string, parts TraceParts, maxSpans int) *Trace {
	out := buildTrace(traceID, parts, maxSpans)
	for range 5 {
		b, err := json.Marshal(out)
		if err != nil || len(b) < MaxTraceBytes || len(out.Spans) <= 5 {
			break
		}
		fit := max(len(out.Spans)*(MaxTraceBytes-1024)/len(b), 5)
		out = buildTrace(traceID, parts, fit)
		if out.Cut != "" {
			out.Cut += fmt.Sprintf("; %d spans fit in %d bytes", len(out.Spans), MaxTraceBytes)
		}
	}
	return out
}

// MaxTraceBytes bounds get_trace's result.
const MaxTraceBytes = 8000

func buildTrace(traceID string, parts TraceParts, maxSpans int) *Trace {
	v := &Viewer{codes: parts.Codes}
	out := &Trace{TraceID: traceID, Spans: []TraceSpan{}, SpanCount: len(parts.Spans)}
	if len(parts.Spans) == 0 && len(parts.Errors) == 0 && len(parts.Logs) == 0 {
		return out
	}
	var start, end time.Time
	widen := func(a, b time.Time) {
		if start.IsZero() || a.Before(start) {
			start = a
		}
		if b.After(end) {
			end = b
		}
	}
	for _, s := range parts.Spans {
		widen(s.Start, s.End)
	}
	if start.IsZero() {
		for _, l := range parts.Logs {
			widen(l.Timestamp, l.Timestamp)
		}
		for _, e := range parts.Errors {
			widen(e.Timestamp, e.Timestamp)
		}
	}
	out.Start, out.Ms = FormatTime(start), end.Sub(start).Milliseconds()
	byID := make(map[string]*event.Span, len(parts.Spans))
	children := map[string][]*event.Span{}
	for _, s := range parts.Spans {
		byID[s.SpanID] = s
	}
	var roots []*event.Span
	for _, s := range parts.Spans {
		if s.ParentSpanID != "" && byID[s.ParentSpanID] != nil && s.ParentSpanID != s.SpanID {
			children[s.ParentSpanID] = append(children[s.ParentSpanID], s)
		} else {
			roots = append(roots, s)
		}
	}
	errSpan := map[string]bool{}
	for _, e := range parts.Errors {
		if id, _ := e.Contexts["trace"]["span_id"].(string); id != "" {
			errSpan[id] = true
		}
	}
	for _, l := range parts.Logs {
		if (l.Level == "error" || l.Level == "fatal") && l.SpanID != "" {
			errSpan[l.SpanID] = true
		}
	}
	failed := func(s *event.Span) bool {
		return errSpan[s.SpanID] || s.Status != "" && s.Status != "ok" && s.Status != "unset"
	}
	keep := map[string]bool{}
	if len(parts.Spans) > maxSpans {
		add := func(s *event.Span) bool {
			if s == nil || keep[s.SpanID] {
				return true
			}
			// a span and the ancestors it needs
			var need []*event.Span
			for p := s; p != nil && !keep[p.SpanID] && len(need) <= len(parts.Spans); p = byID[p.ParentSpanID] {
				need = append(need, p)
				if p.ParentSpanID == p.SpanID {
					break
				}
			}
			if len(keep)+len(need) > maxSpans {
				return false
			}
			for _, n := range need {
				keep[n.SpanID] = true
			}
			return true
		}
		for _, r := range roots {
			if len(keep) < maxSpans/4 {
				add(r)
			}
		}
		for _, s := range parts.Spans {
			if failed(s) {
				add(s)
				add(byID[s.ParentSpanID])
				for _, c := range children[s.SpanID] {
					add(c)
				}
			}
		}
		slowest := slices.Clone(parts.Spans)
		slices.SortStableFunc(slowest, func(a, b *event.Span) int { return cmp.Compare(b.Duration(), a.Duration()) })
		for _, s := range slowest {
			if len(keep) >= maxSpans {
				break
			}
			add(s)
		}
		out.Cut = fmt.Sprintf("%d of %d spans left out (kept: the roots, spans with errors and their parents and children, then the slowest; raise maxSpans up to %d for more)", len(parts.Spans)-len(keep), len(parts.Spans), MaxTraceSpans)
	}
	ms := func(t time.Time) int64 { return t.Sub(start).Milliseconds() }
	byStart := func(a, b *event.Span) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.SpanID, b.SpanID))
	}
	slices.SortFunc(roots, byStart)
	var walk func(s *event.Span, depth int)
	seen := map[string]bool{}
	walk = func(s *event.Span, depth int) {
		if seen[s.SpanID] || depth > 1000 {
			return
		}
		seen[s.SpanID] = true
		if keep == nil || len(keep) == 0 || keep[s.SpanID] {
			ts := TraceSpan{
				ID: s.SpanID, Parent: s.ParentSpanID, Op: v.Text(s.Op, CapName),
				Desc: v.Text(s.Description, capSpanText), At: ms(s.Start), Ms: s.Duration().Milliseconds(), Error: failed(s),
			}
			if s.Status != "ok" {
				ts.Status = v.Text(s.Status, CapName)
			}
			if s.Frame != nil {
				f := v.codes.LocalPath(s.Frame)
				if f == "" {
					f = s.Frame.Filename
				}
				if f != "" && s.Frame.Line > 0 {
					f = fmt.Sprintf("%s:%d", f, s.Frame.Line)
				}
				ts.File = v.Text(f, CapName)
			}
			out.Spans = append(out.Spans, ts)
		}
		kids := children[s.SpanID]
		slices.SortFunc(kids, byStart)
		for _, c := range kids {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	for i, e := range parts.Errors {
		if i == maxTraceErrors {
			v.hints = append(v.hints, fmt.Sprintf("%d more error events in the trace", len(parts.Errors)-i))
			break
		}
		span, _ := e.Contexts["trace"]["span_id"].(string)
		out.Errors = append(out.Errors, TraceError{EventID: e.ID, IssueID: e.IssueID, Title: v.Text(e.Title, CapTitle), Span: v.Text(span, 16)})
	}
	for i, l := range parts.Logs {
		if i == maxTraceLogs {
			v.hints = append(v.hints, fmt.Sprintf("%d more log lines in the trace: search_logs with trace:%s", len(parts.Logs)-i, traceID))
			break
		}
		out.Logs = append(out.Logs, TraceLog{At: ms(l.Timestamp), Level: l.Level, Body: v.Text(l.Body, capLogText), Span: l.SpanID})
	}
	v.Finish(&out.Truncation)
	return out
}

// Percentiles are p50, p75, p95 and p99 of sorted durations (nearest rank), in ms.
func Percentiles(sorted []time.Duration) map[string]int64 {
	if len(sorted) == 0 {
		return nil
	}
	p := map[string]int64{}
	for _, q := range []int{50, 75, 95, 99} {
		i := int(math.Ceil(float64(q)/100*float64(len(sorted)))) - 1
		p[fmt.Sprintf("p%d", q)] = sorted[max(i, 0)].Milliseconds()
	}
	return p
}

// ViewSpan is a found span for a result.
func ViewSpan(v *Viewer, s *event.Span) FoundSpan {
	f := FoundSpan{Trace: s.TraceID, ID: s.SpanID, Op: v.Text(s.Op, CapName), Desc: v.Text(s.Description, capSpanText),
		Transaction: v.Text(s.Transaction, CapName), Start: FormatTime(s.Start), Ms: s.Duration().Milliseconds(), Project: v.Text(s.Project, CapName)}
	if s.Status != "ok" {
		f.Status = v.Text(s.Status, CapName)
	}
	return f
}

// ViewLog is a found log line for a result.
func ViewLog(v *Viewer, l *event.Log) FoundLog {
	f := FoundLog{Time: FormatTime(l.Timestamp), Level: l.Level, Body: v.Text(l.Body, capLogText), Trace: l.TraceID, Span: l.SpanID,
		Release: v.Text(l.Release, CapName), Environment: v.Text(l.Environment, CapName), Project: v.Text(l.Project, CapName)}
	for i, a := range l.Attributes {
		if i == maxLogAttributes {
			v.hints = append(v.hints, "some log attributes were left out")
			break
		}
		if strings.HasPrefix(a.Key, "sentry.") {
			continue // the SDK's bookkeeping (origin, sequence): not the application's
		}
		if f.Attributes == nil {
			f.Attributes = map[string]string{}
		}
		f.Attributes[v.Text(a.Key, CapName)] = v.TagValue(a.Key, a.Value)
	}
	return f
}

// Traces is the Presenter's TraceBackend: the wrapped backend's, or nil when it
// keeps or reaches no traces.
func (p *Presenter) Traces() TraceBackend {
	if _, ok := p.Backend.(TraceBackend); !ok {
		return nil
	}
	return presentedTraces{p}
}

// presentedTraces adds the code mappings and the server's time to the trace tools.
type presentedTraces struct{ p *Presenter }

func (t presentedTraces) GetTrace(ctx context.Context, in GetTraceInput) (*Trace, error) {
	in.Codes = t.p.Codes
	out, err := t.p.Backend.(TraceBackend).GetTrace(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = t.p.stamp()
	return out, nil
}

func (t presentedTraces) SearchSpans(ctx context.Context, in SearchSpansInput) (*SpanList, error) {
	out, err := t.p.Backend.(TraceBackend).SearchSpans(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = t.p.stamp()
	return out, nil
}

func (t presentedTraces) SearchLogs(ctx context.Context, in SearchLogsInput) (*LogList, error) {
	out, err := t.p.Backend.(TraceBackend).SearchLogs(ctx, in)
	if err != nil {
		return out, err
	}
	out.Now = t.p.stamp()
	return out, nil
}
