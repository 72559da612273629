package errorserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	json "github.com/segmentio/encoding/json"
)

// The trace tools over the local store (backend.TraceBackend).

// maxPercentileRows bounds the durations read for search_spans' percentiles.
const maxPercentileRows = 1_000_000

// GetTrace reads a trace's spans, its error events and its logs, and draws the
// waterfall (backend.BuildTrace).
func (s *LocalStore) GetTrace(ctx context.Context, in backend.GetTraceInput) (*backend.Trace, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	id, err := backend.CheckTraceID(in.TraceID)
	if err != nil {
		return nil, err
	}
	maxSpans, err := backend.ResolveMaxSpans(in.MaxSpans)
	if err != nil {
		return nil, err
	}
	var parts backend.TraceParts
	// The waterfall needs the columns and a span's frame, not its attributes: reading
	// them is a third of the time of decoding every span's JSON.
	rows, err := s.db.QueryContext(ctx, `SELECT span_id, parent_id, segment, txn, op, description, status, start, duration, body->'$.frame'
		FROM spans WHERE trace_id = ? ORDER BY start LIMIT ?`, id, event.MaxSpansPerTrace)
	if err != nil {
		return nil, queryFailed("get trace", err)
	}
	for rows.Next() {
		sp := event.Span{TraceID: id}
		var start, dur int64
		var frame *string
		if err := rows.Scan(&sp.SpanID, &sp.ParentSpanID, &sp.IsSegment, &sp.Transaction, &sp.Op, &sp.Description, &sp.Status, &start, &dur, &frame); err != nil {
			continue
		}
		sp.Start = time.Unix(0, start).UTC()
		sp.End = sp.Start.Add(time.Duration(dur))
		if frame != nil {
			var f event.Frame
			if json.Unmarshal([]byte(*frame), &f) == nil {
				sp.Frame = &f
			}
		}
		parts.Spans = append(parts.Spans, &sp)
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, `SELECT e.body, i.id FROM event_traces t JOIN events e ON e.event_id = t.event_id JOIN issues i ON i.n = e.issue
		WHERE t.trace_id = ? ORDER BY e.ts LIMIT 50`, id)
	if err != nil {
		return nil, queryFailed("get trace", err)
	}
	for rows.Next() {
		var body []byte
		var issue string
		var e event.Event
		if err := rows.Scan(&body, &issue); err != nil || json.Unmarshal(body, &e) != nil {
			continue
		}
		e.IssueID = issue
		parts.Errors = append(parts.Errors, &e)
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, `SELECT body FROM logs WHERE trace_id = ? ORDER BY ts, n LIMIT 100`, id)
	if err != nil {
		return nil, queryFailed("get trace", err)
	}
	for rows.Next() {
		var body []byte
		var l event.Log
		if err := rows.Scan(&body); err != nil || json.Unmarshal(body, &l) != nil {
			continue
		}
		parts.Logs = append(parts.Logs, &l)
	}
	rows.Close()
	if len(parts.Spans)+len(parts.Errors)+len(parts.Logs) == 0 {
		return nil, fmt.Errorf("%w: no span, error or log of trace %s is stored: its spans were not sent (tracing off, or not sampled) or were dropped by retention", backend.ErrNotFound, id)
	}
	parts.Codes = in.Codes
	return backend.BuildTrace(id, parts, maxSpans), nil
}

// telemetryQuery is a parsed search_spans or search_logs query.
type telemetryQuery struct {
	text  []string
	terms map[string][]string // key -> values (every one must hold)
	attrs []event.Pair
}

// parseTelemetryQuery splits free text from key:value terms (values may be quoted);
// the keys in fields are columns, every other key an attribute.
func parseTelemetryQuery(q string, fields map[string]string) (*telemetryQuery, error) {
	out := &telemetryQuery{terms: map[string][]string{}}
	for _, tok := range splitQuery(q) {
		k, v, ok := strings.Cut(tok, ":")
		if !ok || k == "" || strings.HasPrefix(tok, `"`) {
			if t := strings.Trim(tok, `"`); t != "" {
				out.text = append(out.text, strings.ToLower(t))
			}
			continue
		}
		if strings.HasPrefix(k, "!") {
			return nil, fmt.Errorf("%w: negation (%s) is not supported here: give the terms that must hold", backend.ErrInvalidInput, backend.TruncateForError(tok))
		}
		v = strings.Trim(v, `"`)
		if col, ok := fields[k]; ok {
			out.terms[col] = append(out.terms[col], v)
		} else {
			out.attrs = append(out.attrs, event.Pair{Key: k, Value: v})
		}
	}
	return out, nil
}

// splitQuery splits on spaces outside double quotes.
func splitQuery(q string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case (r == ' ' || r == '\t' || r == '\n') && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// attrSQL is the condition that the row's JSON body has attribute k = v.
func attrSQL(table string) string {
	return `EXISTS (SELECT 1 FROM json_each(` + table + `.body, '$.attributes') a WHERE a.value->>0 = ? AND a.value->>1 = ?)`
}

func window(in struct{ period, start, end string }, now time.Time) (backend.TimeWindow, error) {
	p := in.period
	if p == "" && in.start == "" {
		p = backend.DefaultTraceWindow
	}
	return backend.ResolveWindow(p, in.start, in.end, now)
}

var spanFields = map[string]string{"op": "op", "status": "status", "transaction": "txn", "trace": "trace_id", "trace_id": "trace_id",
	"release": "release", "environment": "environment", "project": "project", "is": "is", "description": "description", "span.op": "op", "span.description": "description"}

// SearchSpans finds spans in a window, slowest first, with the percentiles of the
// durations of every match.
func (s *LocalStore) SearchSpans(ctx context.Context, in backend.SearchSpansInput) (*backend.SpanList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	w, err := window(struct{ period, start, end string }{in.StatsPeriod, in.Start, in.End}, s.now())
	if err != nil {
		return nil, err
	}
	q, err := parseTelemetryQuery(in.Query, spanFields)
	if err != nil {
		return nil, err
	}
	where := []string{`start >= ?`, `start <= ?`}
	args := []any{w.Start.UnixNano(), w.End.UnixNano()}
	for col, vals := range q.terms {
		for _, v := range vals {
			switch col {
			case "is":
				if v != "transaction" && v != "segment" {
					return nil, fmt.Errorf("%w: is:%s: spans take is:transaction (the roots of transactions) only", backend.ErrInvalidInput, backend.TruncateForError(v))
				}
				where = append(where, `segment = 1`)
			case "description":
				where = append(where, `instr(lower(description), ?) > 0`)
				args = append(args, strings.ToLower(v))
			case "trace_id":
				id, err := backend.CheckTraceID(v)
				if err != nil {
					return nil, err
				}
				where = append(where, `trace_id = ?`)
				args = append(args, id)
			default:
				where = append(where, col+` = ?`)
				args = append(args, v)
			}
		}
	}
	for _, t := range q.text {
		where = append(where, `instr(lower(description), ?) > 0`)
		args = append(args, t)
	}
	for _, a := range q.attrs {
		where = append(where, attrSQL("spans"))
		args = append(args, a.Key, a.Value)
	}
	cond := strings.Join(where, " AND ")
	out := &backend.SpanList{Spans: []backend.FoundSpan{}}
	rows, err := s.db.QueryContext(ctx, `SELECT body FROM spans WHERE `+cond+` ORDER BY duration DESC, n LIMIT ?`, append(slices.Clone(args), limit)...)
	if err != nil {
		return nil, queryFailed("search spans", err)
	}
	v := &backend.Viewer{}
	for rows.Next() {
		var body []byte
		var sp event.Span
		if err := rows.Scan(&body); err != nil || json.Unmarshal(body, &sp) != nil {
			continue
		}
		out.Spans = append(out.Spans, backend.ViewSpan(v, &sp))
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, `SELECT duration FROM spans WHERE `+cond+` ORDER BY duration LIMIT ?`, append(args, maxPercentileRows)...)
	if err != nil {
		return nil, queryFailed("search spans", err)
	}
	var durs []time.Duration
	for rows.Next() {
		var d int64
		if rows.Scan(&d) == nil {
			durs = append(durs, time.Duration(d))
		}
	}
	rows.Close()
	out.Matched, out.P = int64(len(durs)), backend.Percentiles(durs)
	if len(durs) == maxPercentileRows {
		out.Cut(fmt.Sprintf("over %d spans match: the percentiles are of the %d fastest; narrow the window or the query", maxPercentileRows, maxPercentileRows))
	}
	if int64(len(out.Spans)) < out.Matched {
		out.Cut(fmt.Sprintf("%d of %d matching spans shown, slowest first", len(out.Spans), out.Matched))
	}
	v.Finish(&out.Truncation)
	return out, nil
}

var logFields = map[string]string{"level": "level", "severity": "level", "trace": "trace_id", "trace_id": "trace_id", "release": "release",
	"environment": "environment", "project": "project", "message": "message"}

// SearchLogs finds log lines in a window, newest first.
func (s *LocalStore) SearchLogs(ctx context.Context, in backend.SearchLogsInput) (*backend.LogList, error) {
	if err := checkLocalOrg(in.Organization); err != nil {
		return nil, err
	}
	limit, err := backend.ResolveLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	w, err := window(struct{ period, start, end string }{in.StatsPeriod, in.Start, in.End}, s.now())
	if err != nil {
		return nil, err
	}
	q, err := parseTelemetryQuery(in.Query, logFields)
	if err != nil {
		return nil, err
	}
	where := []string{`ts >= ?`, `ts <= ?`}
	args := []any{w.Start.UnixNano(), w.End.UnixNano()}
	text := q.text
	for col, vals := range q.terms {
		for _, v := range vals {
			switch col {
			case "message":
				text = append(text, strings.ToLower(v))
			case "level":
				where = append(where, `level = ?`)
				args = append(args, event.NormalizeLogLevel(v, 0))
			case "trace_id":
				id, err := backend.CheckTraceID(v)
				if err != nil {
					return nil, err
				}
				// != '' lets SQLite use the partial index logs_trace.
				where = append(where, `trace_id = ? AND trace_id != ''`)
				args = append(args, id)
			default:
				where = append(where, col+` = ?`)
				args = append(args, v)
			}
		}
	}
	for _, a := range q.attrs {
		where = append(where, attrSQL("logs"))
		args = append(args, a.Key, a.Value)
	}
	// Text is looked for two ways. Common text is found fastest by reading the newest
	// lines of the window and stopping at the page: if the newest recentLogs lines
	// hold a page of matches, they are the newest matches. Otherwise the trigram index
	// finds the lines (the phrase as it is), which is fast for rare text, where a scan
	// would read the whole window.
	scan, index := slices.Clone(where), slices.Clone(where)
	scanArgs, indexArgs := slices.Clone(args), slices.Clone(args)
	for _, t := range text {
		scan = append(scan, `instr(lower(body->>'$.body'), ?) > 0`)
		scanArgs = append(scanArgs, t)
		if len(t) >= 3 {
			index = append(index, `n IN (SELECT rowid FROM log_text WHERE log_text MATCH ?)`)
			indexArgs = append(indexArgs, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		} else {
			index = append(index, `instr(lower(body->>'$.body'), ?) > 0`)
			indexArgs = append(indexArgs, t)
		}
	}
	bodies, err := s.logBodies(ctx, `SELECT body FROM (SELECT * FROM logs WHERE ts >= ? AND ts <= ? ORDER BY ts DESC, n DESC LIMIT ?) AS logs WHERE `+strings.Join(scan, " AND ")+` ORDER BY ts DESC, n DESC LIMIT ?`,
		append(append([]any{w.Start.UnixNano(), w.End.UnixNano(), recentLogs}, scanArgs...), limit+1))
	if err != nil {
		return nil, err
	}
	if len(text) > 0 && len(bodies) <= limit {
		if bodies, err = s.logBodies(ctx, `SELECT body FROM logs WHERE `+strings.Join(index, " AND ")+` ORDER BY ts DESC, n DESC LIMIT ?`, append(indexArgs, limit+1)); err != nil {
			return nil, err
		}
	} else if len(text) == 0 && len(bodies) <= limit {
		if bodies, err = s.logBodies(ctx, `SELECT body FROM logs WHERE `+strings.Join(where, " AND ")+` ORDER BY ts DESC, n DESC LIMIT ?`, append(args, limit+1)); err != nil {
			return nil, err
		}
	}
	out := &backend.LogList{Logs: []backend.FoundLog{}}
	v := &backend.Viewer{}
	for _, body := range bodies {
		var l event.Log
		if json.Unmarshal(body, &l) != nil {
			continue
		}
		if len(out.Logs) == limit {
			out.Cut(fmt.Sprintf("more than %d lines match: the newest are shown; narrow the window (statsPeriod, start and end) or the query", limit))
			break
		}
		out.Logs = append(out.Logs, backend.ViewLog(v, &l))
	}
	v.Finish(&out.Truncation)
	return out, nil
}

// recentLogs is how many of a window's newest lines search_logs reads before it asks
// the indexes.
const recentLogs = 5000

// logBodies runs a query of log bodies.
func (s *LocalStore) logBodies(ctx context.Context, q string, args []any) ([][]byte, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, queryFailed("search logs", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, queryFailed("search logs", err)
		}
		out = append(out, body)
	}
	if err := rows.Err(); err != nil {
		return nil, queryFailed("search logs", err)
	}
	return out, nil
}

// traceSpans counts the stored spans of a trace (get_event's link to it).
func (s *LocalStore) traceSpans(ctx context.Context, traceID string) int {
	var n int
	s.db.QueryRowContext(ctx, `SELECT count(*) FROM spans WHERE trace_id = ?`, traceID).Scan(&n)
	return n
}
