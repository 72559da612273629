package errorserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	json "github.com/segmentio/encoding/json"
)

// Spans and logs in the local store (#28): written by the same writer, in the same
// transactions as events (group commit; acknowledged only after the commit), dropped
// by the same retention (age, and size: the oldest of events, spans and logs first).

// preparedTelemetry is what one or more requests carry besides events, ready for the
// writer.
type preparedTelemetry struct {
	spans []*preparedSpan
	logs  []*preparedLog
	kinds []kindCount
}

type preparedSpan struct {
	s    *event.Span
	body []byte
}

type preparedLog struct {
	l    *event.Log
	ts   int64
	body []byte
}

type kindCount struct {
	project, kind string
	n             int
	at            int64
}

// items is how many rows the writer will write for t (nil: none).
func (t *preparedTelemetry) items() int {
	if t == nil {
		return 0
	}
	return len(t.spans) + len(t.logs)
}

func (t *preparedTelemetry) add(o *preparedTelemetry) {
	if o == nil {
		return
	}
	t.spans = append(t.spans, o.spans...)
	t.logs = append(t.logs, o.logs...)
	t.kinds = append(t.kinds, o.kinds...)
}

// IngestTelemetry keeps the events, spans and logs of one request in one commit
// (ingest.TelemetrySink), and counts the request's items by kind for list_projects.
func (s *LocalStore) IngestTelemetry(ctx context.Context, events []*event.Event, t *event.Telemetry) error {
	w := s.w.Load()
	if w == nil {
		return fmt.Errorf("%w: this store is open to read only", backend.ErrUnavailable)
	}
	received := s.now()
	r := &ingestReq{done: make(chan error, 1), tel: &preparedTelemetry{}}
	for _, e := range events {
		p, err := s.prepare(e, received)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		r.events = append(r.events, p)
	}
	for _, sp := range t.Spans {
		if sp.Received.IsZero() {
			sp.Received = received
		}
		body, err := json.Marshal(sp)
		if err != nil {
			return fmt.Errorf("encode span: %w", err)
		}
		r.tel.spans = append(r.tel.spans, &preparedSpan{s: sp, body: body})
	}
	for _, l := range t.Logs {
		if l.Received.IsZero() {
			l.Received = received
		}
		ts, _ := s.fileTime(l.Timestamp, l.Received)
		body, err := json.Marshal(l)
		if err != nil {
			return fmt.Errorf("encode log: %w", err)
		}
		r.tel.logs = append(r.tel.logs, &preparedLog{l: l, ts: ts.UnixNano(), body: body})
	}
	kinds := make([]string, 0, len(t.Kinds))
	for k := range t.Kinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if k == "event" {
			continue // the issues table says which projects send events: no write per request
		}
		r.tel.kinds = append(r.tel.kinds, kindCount{project: t.Project, kind: k, n: t.Kinds[k], at: received.UnixNano()})
	}
	if len(r.events) == 0 && r.tel.items() == 0 && len(r.tel.kinds) == 0 {
		return nil
	}
	return w.submitReq(ctx, r)
}

// writeTelemetry writes spans (a stored trace and span id is skipped: an SDK's retry),
// logs (a stored log id is skipped) and the item counts, inside the writer's
// transaction.
func (w *writer) writeTelemetry(ctx context.Context, t *preparedTelemetry) error {
	if t == nil {
		return nil
	}
	for _, p := range t.spans {
		s := p.s
		seg := 0
		if s.IsSegment {
			seg = 1
		}
		res, err := w.exec(ctx, `INSERT INTO spans (trace_id, span_id, parent_id, segment, project, txn, op, description, status, environment, release, start, duration, received, size, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (trace_id, span_id) DO NOTHING`,
			s.TraceID, s.SpanID, s.ParentSpanID, seg, s.Project, s.Transaction, s.Op, s.Description, s.Status, s.Environment, s.Release,
			s.Start.UnixNano(), s.Duration().Nanoseconds(), s.Received.UnixNano(), len(p.body), string(p.body))
		if err != nil {
			return fmt.Errorf("store span: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			w.unchecked += int64(len(p.body))
		}
	}
	for _, p := range t.logs {
		l := p.l
		var n int64
		err := w.queryRow(ctx, `INSERT INTO logs (log_id, project, ts, received, trace_id, span_id, level, environment, release, size, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (log_id) DO NOTHING RETURNING n`,
			l.ID, l.Project, p.ts, l.Received.UnixNano(), l.TraceID, l.SpanID, l.Level, l.Environment, l.Release, len(p.body), string(p.body)).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			continue // stored before
		}
		if err != nil {
			return fmt.Errorf("store log: %w", err)
		}
		if _, err := w.exec(ctx, `INSERT INTO log_text (rowid, text) VALUES (?, ?)`, n, strings.ToLower(l.Body)); err != nil {
			return fmt.Errorf("index log: %w", err)
		}
		w.unchecked += int64(len(p.body))
	}
	// One row per project and kind for the whole batch: a busy collector commits many
	// requests at once, each counting its "event" items.
	merged := t.kinds[:0:0]
	at := map[[2]string]int{}
	for _, k := range t.kinds {
		if i, ok := at[[2]string{k.project, k.kind}]; ok {
			merged[i].n += k.n
			merged[i].at = max(merged[i].at, k.at)
			continue
		}
		at[[2]string{k.project, k.kind}] = len(merged)
		merged = append(merged, k)
	}
	for _, k := range merged {
		kept := 0
		if event.KeptKinds[k.kind] {
			kept = 1
		}
		if _, err := w.exec(ctx, `INSERT INTO item_kinds (project, kind, kept, items, last_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (project, kind) DO UPDATE SET items = items + excluded.items, kept = excluded.kept, last_seen = max(last_seen, excluded.last_seen)`,
			k.project, k.kind, kept, k.n, k.at); err != nil {
			return fmt.Errorf("count item kinds: %w", err)
		}
	}
	return nil
}

// writeEventTraces notes the trace of each event that names one, so a trace finds
// its errors (a stored event id is skipped).
func (w *writer) writeEventTraces(ctx context.Context, events []*preparedEvent) error {
	for _, p := range events {
		if p.traceID == "" {
			continue
		}
		if _, err := w.exec(ctx, `INSERT INTO event_traces (trace_id, event_id, ts) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, p.traceID, p.id, p.ts); err != nil {
			return fmt.Errorf("note the event's trace: %w", err)
		}
	}
	return nil
}

// eventTraceID is the trace id of an event's trace context, normalised; "" without one.
func eventTraceID(e *event.Event) string {
	id, _ := e.Contexts["trace"]["trace_id"].(string)
	id, _ = event.NormalizeID(id, 32)
	return id
}

// retainTelemetryAge drops spans that started, and logs filed, before cutoff.
func (w *writer) retainTelemetryAge(ctx context.Context, cutoff int64) error {
	if _, err := w.exec(ctx, `DELETE FROM spans WHERE start < ?`, cutoff); err != nil {
		return err
	}
	if _, err := w.exec(ctx, `DELETE FROM event_traces WHERE ts < ?`, cutoff); err != nil {
		return err
	}
	return w.dropLogs(ctx, `SELECT n FROM logs WHERE ts < ?`, cutoff)
}

// dropLogs deletes the logs pick selects, and their text.
func (w *writer) dropLogs(ctx context.Context, pick string, args ...any) error {
	if _, err := w.exec(ctx, `DELETE FROM log_text WHERE rowid IN (`+pick+`)`, args...); err != nil {
		return err
	}
	_, err := w.exec(ctx, `DELETE FROM logs WHERE n IN (`+pick+`)`, args...)
	return err
}

// dropOldestTelemetry is retention by size's step for spans and logs: when the oldest
// stored item is a span or a log (not an event), it drops up to n of the oldest of
// that kind and reports true; otherwise the events' turn (false).
func (w *writer) dropOldestTelemetry(ctx context.Context, n int64) (bool, error) {
	const none = int64(1) << 62
	oldest := func(q string) (int64, error) {
		var t *int64
		if err := w.queryRow(ctx, q).Scan(&t); err != nil {
			return 0, err
		}
		if t == nil {
			return none, nil
		}
		return *t, nil
	}
	ev, err := oldest(`SELECT min(ts) FROM events`)
	if err != nil {
		return false, err
	}
	sp, err := oldest(`SELECT min(start) FROM spans`)
	if err != nil {
		return false, err
	}
	lg, err := oldest(`SELECT min(ts) FROM logs`)
	if err != nil {
		return false, err
	}
	switch {
	case sp == none && lg == none, ev <= sp && ev <= lg:
		return false, nil
	case sp <= lg:
		_, err = w.exec(ctx, `DELETE FROM spans WHERE n IN (SELECT n FROM spans ORDER BY start LIMIT ?)`, n)
	default:
		err = w.dropLogs(ctx, `SELECT n FROM logs ORDER BY ts LIMIT ?`, n)
	}
	if err == nil {
		w.s.logger.Info("local store: dropped the oldest spans or logs", "reason", reasonBytes, "count", n)
	}
	return err == nil, err
}

// itemKind is one row of item_kinds: what a project sends.
type itemKind struct {
	Kind     string
	Kept     bool
	Items    int64
	LastSeen time.Time
}

// itemKinds reads what each project sends, by kind.
func (s *LocalStore) itemKinds(ctx context.Context) (map[string][]itemKind, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT project, kind, kept, items, last_seen FROM item_kinds ORDER BY project, kind`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]itemKind{}
	for rows.Next() {
		var p string
		var k itemKind
		var last int64
		if err := rows.Scan(&p, &k.Kind, &k.Kept, &k.Items, &last); err != nil {
			return nil, err
		}
		k.LastSeen = time.Unix(0, last).UTC()
		out[p] = append(out[p], k)
	}
	return out, rows.Err()
}

// addItemKinds says per project which item types it sends that the store keeps and
// which it drops, and lists the projects that sent only spans, logs or dropped kinds.
func (s *LocalStore) addItemKinds(ctx context.Context, v *backend.Viewer, out *backend.ProjectList) error {
	kinds, err := s.itemKinds(ctx)
	if err != nil {
		return err
	}
	listed := map[string]int{}
	for i, p := range out.Projects {
		listed[p.ID] = i
	}
	names := make([]string, 0, len(kinds))
	for p := range kinds {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range out.Projects {
		if p.Events > 0 && kinds[p.ID] == nil {
			names = append(names, p.ID)
		}
	}
	sort.Strings(names)
	for _, p := range names {
		name := v.Text(p, backend.CapName)
		i, ok := listed[name]
		if !ok {
			out.Projects = append(out.Projects, backend.Project{ID: name, Slug: name, Name: name, Organization: LocalOrganization})
			i = len(out.Projects) - 1
		}
		if out.Projects[i].Events > 0 {
			out.Projects[i].Receives = append(out.Projects[i].Receives, "event")
		}
		for _, k := range kinds[p] {
			if k.Kept {
				out.Projects[i].Receives = append(out.Projects[i].Receives, k.Kind)
			} else {
				out.Projects[i].Drops = append(out.Projects[i].Drops, k.Kind)
			}
		}
	}
	sort.SliceStable(out.Projects, func(a, b int) bool { return out.Projects[a].ID < out.Projects[b].ID })
	return nil
}
