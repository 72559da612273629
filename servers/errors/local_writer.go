package errorserver

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
	json "github.com/segmentio/encoding/json"
)

// Bounds on what an issue's tag counts hold; values past them are counted as
// overflow (and reported as truncated) instead of growing with every unique request id.
const (
	maxTagKeysPerIssue   = 100
	maxTagValuesPerIssue = 1000
)

// summaryMessageCap bounds the message kept per event for list_issue_events.
const summaryMessageCap = 200

// preparedEvent is an event ready for the writer: grouped, encoded, its tags as
// counted (redacted by the same rule every view applies).
type preparedEvent struct {
	id, issueID, shortID, project           string
	legacyIssueID                           string // grouping version 1's id, when it differs (grouping_context.go)
	title, culprit, typ, value, level, plat string
	message, environment, release, user     string
	ts, received                            int64
	traceID                                 string // its trace context's (local_telemetry.go)
	tags                                    []event.Pair
	tagsJSON, body                          []byte
}

// prepare groups and encodes one event, and decides its event time.
func (s *LocalStore) prepare(e *event.Event, received time.Time) (*preparedEvent, error) {
	legacyID := ""
	if e.IssueID == "" {
		event.DeriveIssueFields(e)
		e.IssueID = event.IssueIDFor(e.Project, event.GroupingParts(e))
		legacyID = event.LegacyIssueID(e)
	}
	if e.Received.IsZero() {
		e.Received = received
	}
	if ts, clamped := s.fileTime(e.Timestamp, e.Received); clamped {
		e.ClientTimestamp, e.Timestamp = e.Timestamp, ts
	} else {
		e.Timestamp = ts
	}
	body, err := event.Marshal(e)
	if err != nil {
		return nil, err
	}
	p := &preparedEvent{
		id: e.ID, issueID: e.IssueID, shortID: event.ShortIDFor(e.Project, e.IssueID), project: e.Project, legacyIssueID: legacyID,
		title: e.Title, culprit: e.Culprit, level: e.Level, plat: e.Platform,
		ts: e.Timestamp.UnixNano(), received: e.Received.UnixNano(), body: body, traceID: eventTraceID(e),
	}
	if n := len(e.Exceptions); n > 0 {
		p.typ = event.Capped(e.Exceptions[n-1].Type, 256)
		p.value = event.Capped(event.FirstLine(e.Exceptions[n-1].Value), summaryMessageCap)
	}
	p.message = event.Capped(event.FirstLine(event.FirstNonEmpty(e.Message, p.value)), summaryMessageCap)
	p.tags = make([]event.Pair, 0, len(e.Tags))
	var seen map[string]bool // past a few tags; fewer are looked up in p.tags
	for _, t := range e.Tags {
		if hasTagKey(p.tags, seen, t.Key) {
			continue
		}
		if len(p.tags) == 32 {
			seen = make(map[string]bool, len(e.Tags))
			for _, q := range p.tags {
				seen[q.Key] = true
			}
		}
		if seen != nil {
			seen[t.Key] = true
		}
		p.tags = append(p.tags, event.Pair{Key: t.Key, Value: event.RedactValue(t.Key, t.Value)})
	}
	detachTags(p.tags)
	for _, t := range p.tags {
		switch t.Key {
		case "environment":
			p.environment = t.Value
		case "release":
			p.release = t.Value
		case "user":
			p.user = t.Value
		}
	}
	p.tagsJSON = event.MarshalTags(p.tags)
	return p, nil
}

// detachTags gives the tags' text one string of their own. The writer keeps tag keys
// in its caches and the tags in its pending counts long after the event is stored,
// and a tag decoded as a substring of the payload (see sdkDecoder) would keep the
// whole payload in memory with it.
func detachTags(tags []event.Pair) {
	n := 0
	for _, t := range tags {
		n += len(t.Key) + len(t.Value)
	}
	var b strings.Builder
	b.Grow(n)
	for _, t := range tags {
		b.WriteString(t.Key)
		b.WriteString(t.Value)
	}
	s := b.String()
	for i := range tags {
		k, v := len(tags[i].Key), len(tags[i].Value)
		tags[i] = event.Pair{Key: s[:k], Value: s[k : k+v]}
		s = s[k+v:]
	}
}

// hasTagKey reports whether tags (or seen, once there are many) hold key.
func hasTagKey(tags []event.Pair, seen map[string]bool, key string) bool {
	if seen != nil {
		return seen[key]
	}
	for _, t := range tags {
		if t.Key == key {
			return true
		}
	}
	return false
}

// pendingTags are the tag pairs of committed events not yet counted into issue_tags
// and issue_tag_keys. Counting them in every commit would cost the writer more than the
// events themselves (one upsert per distinct value), so the writer counts them a
// little later, many commits at once: when no request waits, every tagsDelay, before
// retention drops events, and when a test asks (syncTags). The events table holds
// every event's tags, and meta.tags_through says up to which event they are counted,
// so after a crash the next writer counts the rest at open. Queries, in this process
// or another, add the tags of the events past tags_through themselves (issueTags,
// pendingUsersSQL, the tag terms of search), so none waits for the writer.
type pendingTags struct {
	n, issue, ts int64
	tags         []event.Pair
}

const (
	tagsDelay       = 50 * time.Millisecond
	maxPendingTags  = 5000
	metaTagsThrough = "tags_through"
)

type ingestReq struct {
	events []*preparedEvent
	tel    *preparedTelemetry // spans, logs and item kinds (local_telemetry.go), or nil
	done   chan error
}

// writer is the one goroutine that writes the database: it takes every request
// queued, commits them in one transaction (one fsync for all: group commit), and only
// then answers them.
type writer struct {
	s       *LocalStore
	reqs    chan *ingestReq
	retainC chan chan struct{}
	quit    chan struct{}
	done    chan struct{}
	failed  error
	// conn is the writer's connection; transactions are BEGIN IMMEDIATE ... COMMIT on
	// it, and every statement is prepared once (stmts).
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// Caches of what the writer (the only one) wrote: issue id -> row, the issue rows'
	// state, the tag keys' state. Cleared when retention deletes or a write fails.
	issueN map[string]int64
	issues map[int64]*issueState
	keys   map[tagKeyKey]*keyState
	// pending are committed events whose tags are not counted yet (see pendingTags).
	pending   []pendingTags
	syncC     chan chan error
	tagsDelay time.Duration
	// unchecked is what was written since retention last looked at the size.
	unchecked int64
	// commits counts the transactions that committed events (the ingest benchmarks
	// report events per commit: how well group commit batches).
	commits atomic.Int64
	// What the writer does when the disk fails (store_faults.go): the file it opened,
	// when the last write failed, whether it stopped for good, and the logs of
	// failures retried.
	file              os.FileInfo
	failedAt          time.Time
	final             bool
	fatalOnce         sync.Once
	writeLog, tagsLog failLog
	damaged           atomic.Pointer[error] // found by checkInBackground
}

// issueState is what the writer needs of an issue row.
type issueState struct {
	lastSeen, timesSeen, tagKeys int64
	text                         string
}

// keyState is what the writer needs of an issue's tag key.
type keyState struct {
	exists bool
	uniq   int64
}

func (w *writer) clearCaches() {
	w.issueN = map[string]int64{}
	w.issues = map[int64]*issueState{}
	w.keys = map[tagKeyKey]*keyState{}
}

// stmt returns the prepared statement for q, preparing it on first use.
func (w *writer) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := w.stmts[q]; st != nil {
		return st, nil
	}
	st, err := w.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	w.stmts[q] = st
	return st, nil
}

func (w *writer) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// queryRow is QueryRow on a prepared statement.
func (w *writer) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := w.stmt(ctx, q)
	if err != nil {
		return w.conn.QueryRowContext(ctx, q, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// inTx runs fn in an immediate transaction on the writer's connection. After a
// failure the caches and the pending tags are read again from the database.
func (w *writer) inTx(ctx context.Context, fn func() error) error {
	if _, err := w.exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	err := fn()
	if err == nil {
		err = injectedWriteFault()
	}
	if err == nil {
		_, err = w.exec(ctx, "COMMIT")
	}
	if err != nil {
		w.conn.ExecContext(ctx, "ROLLBACK")
		w.clearCaches()
		if lerr := w.loadPending(ctx); lerr != nil {
			w.s.logger.Warn("local store: could not read the events whose tags are not counted yet", "error", lerr.Error())
		}
	}
	return err
}

// loadPending reads the events whose tags are not counted yet.
func (w *writer) loadPending(ctx context.Context) error {
	w.pending = nil
	var through int64
	if err := w.conn.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`, metaTagsThrough).Scan(&through); err != nil {
		return err
	}
	rows, err := w.conn.QueryContext(ctx, `SELECT n, issue, ts, tags FROM events WHERE n > ? ORDER BY n`, through)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p pendingTags
		var tags string
		if err := rows.Scan(&p.n, &p.issue, &p.ts, &tags); err != nil {
			return err
		}
		p.tags = decodeStoredTags(tags)
		w.pending = append(w.pending, p)
	}
	return rows.Err()
}

// decodeStoredTags reads an events row's tags: a JSON object of key and value.
func decodeStoredTags(s string) []event.Pair {
	var obj map[string]string
	json.Unmarshal([]byte(s), &obj)
	out := make([]event.Pair, 0, len(obj))
	for k, v := range obj {
		out = append(out, event.Pair{Key: k, Value: v})
	}
	return out
}

// countTags counts the pending tags, in the current transaction.
func (w *writer) countTags(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	values := map[tagValueKey]*tagValueDelta{}
	var order []tagValueKey
	for _, p := range w.pending {
		for _, t := range p.tags {
			k := tagValueKey{p.issue, t.Key, t.Value}
			v := values[k]
			if v == nil {
				v = &tagValueDelta{first: p.ts, last: p.ts}
				values[k] = v
				order = append(order, k)
			}
			v.n++
			v.first, v.last = min(v.first, p.ts), max(v.last, p.ts)
		}
	}
	for _, k := range order {
		if w.issues[k.issue] == nil {
			if err := w.loadIssue(ctx, k.issue); err != nil {
				return err
			}
		}
	}
	if err := w.applyTags(ctx, order, values); err != nil {
		return err
	}
	if _, err := w.exec(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		metaTagsThrough, w.pending[len(w.pending)-1].n); err != nil {
		return err
	}
	w.pending = nil
	return nil
}

// flushTags counts the pending tags in a transaction of their own.
func (w *writer) flushTags() error {
	if len(w.pending) == 0 || w.failed != nil {
		return w.failed
	}
	ctx := context.Background()
	return w.inTx(ctx, func() error { return w.countTags(ctx) })
}

// syncTags makes every committed event's tags counted now (tests use it to set up a
// store whose counts are complete; queries need not: they add the uncounted tags).
func (s *LocalStore) syncTags(ctx context.Context) {
	w := s.w.Load()
	if w == nil {
		return
	}
	done := make(chan error, 1)
	select {
	case w.syncC <- done:
		select {
		case <-done:
		case <-ctx.Done():
		}
	case <-w.done:
	case <-ctx.Done():
	}
}

func newWriter(s *LocalStore) (*writer, error) {
	conn, err := s.wdb.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	w := &writer{
		s: s, reqs: make(chan *ingestReq, 1024), retainC: make(chan chan struct{}),
		quit: make(chan struct{}), done: make(chan struct{}), conn: conn, stmts: map[string]*sql.Stmt{},
		syncC: make(chan chan error), tagsDelay: cmp.Or(s.cfg.countTagsAfter, tagsDelay),
	}
	w.clearCaches()
	if err := w.loadPending(context.Background()); err != nil {
		conn.Close()
		return nil, err
	}
	w.file, _ = os.Stat(s.path)
	return w, nil
}

var errStoreClosed = errors.New("the local store is closed")

func (w *writer) submit(ctx context.Context, events []*preparedEvent) error {
	return w.submitReq(ctx, &ingestReq{events: events, done: make(chan error, 1)})
}

// submitReq queues r and waits until it is committed or failed.
func (w *writer) submitReq(ctx context.Context, r *ingestReq) error {
	select {
	case w.reqs <- r:
	case <-w.quit:
		return errStoreClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, the request is committed or failed soon; wait for the answer even if
	// the client went away, so an acknowledgement is never sent for an unknown state.
	// A request queued as the store closed, after the writer's last drain (the select
	// above may pick the send when quit is closed too), is never taken: it is refused
	// once the writer has exited. (An MCP server closes a store whose database was
	// replaced while ingest still sends to it: cmd/mcp-server-errors/reopen.go.)
	select {
	case err := <-r.done:
		return err
	case <-w.done:
		select {
		case err := <-r.done:
			return err
		default:
			return errStoreClosed
		}
	}
}

func (w *writer) stop() {
	close(w.quit)
	<-w.done
	for _, st := range w.stmts {
		st.Close()
	}
	w.conn.Close()
}

// enforceRetention runs retention now on the writer (tests, and the periodic tick).
func (s *LocalStore) enforceRetention() {
	w := s.w.Load()
	if w == nil {
		return
	}
	ack := make(chan struct{})
	select {
	case w.retainC <- ack:
		<-ack
	case <-w.done:
	}
}

func (w *writer) run() {
	defer close(w.done)
	tick := time.NewTicker(retentionInterval)
	defer tick.Stop()
	var tagsTimer *time.Timer
	flush := func() {
		if tagsTimer != nil {
			tagsTimer.Stop()
			tagsTimer = nil
		}
		if err := w.flushTags(); err != nil {
			w.tagsLog.failed(w.s.logger, "local store: counting tags failed; it is tried again", err)
		} else {
			w.tagsLog.ok(w.s.logger, "local store: counting tags succeeds again")
		}
	}
	for {
		var tagsC <-chan time.Time
		if len(w.pending) > 0 {
			if tagsTimer == nil {
				tagsTimer = time.NewTimer(w.tagsLog.retryWait(w.tagsDelay))
			}
			tagsC = tagsTimer.C
		}
		select {
		case r := <-w.reqs:
			w.commitBatch(w.gather(r))
			if len(w.pending) >= maxPendingTags || len(w.reqs) == 0 && len(w.pending) >= 1000 {
				flush()
			}
		case done := <-w.syncC:
			flush()
			done <- nil
		case <-tagsC:
			tagsTimer = nil
			flush()
		case ack := <-w.retainC:
			w.retain(true)
			close(ack)
		case <-tick.C:
			w.retain(true)
		case <-w.quit:
			// Commit what was queued before the close, and count its tags.
			for {
				select {
				case r := <-w.reqs:
					w.commitBatch(w.gather(r))
				default:
					flush()
					return
				}
			}
		}
	}
}

func (w *writer) gather(first *ingestReq) []*ingestReq {
	batch := []*ingestReq{first}
	n := len(first.events) + first.tel.items()
	for n < maxBatchEvents {
		select {
		case r := <-w.reqs:
			batch = append(batch, r)
			n += len(r.events) + r.tel.items()
		default:
			return batch
		}
	}
	return batch
}

func (w *writer) commitBatch(batch []*ingestReq) {
	var events []*preparedEvent
	var tel preparedTelemetry
	for _, r := range batch {
		events = append(events, r.events...)
		tel.add(r.tel)
	}
	if d := w.damaged.Load(); d != nil && !w.final {
		w.stopForGood(*d)
	}
	err := w.failed
	if err != nil {
		err = w.tryWriteAgain()
	}
	if err == nil {
		err = w.write(events, &tel)
		if err == nil {
			if ferr := w.checkFile(); ferr != nil {
				w.stopForGood(ferr)
				err = ferr
			} else {
				w.commits.Add(1)
				w.writeLog.ok(w.s.logger, "local store: writes succeed again; ingest resumed")
			}
		} else if isFatalWriteError(err) {
			w.failed, w.failedAt = err, time.Now()
			w.writeLog.failed(w.s.logger, "local store: a write failed; ingest answers 503 and writing is tried again", err)
		}
	}
	if err != nil {
		err = fmt.Errorf("could not store durably: %w", err)
	}
	for _, r := range batch {
		r.done <- err
	}
}

// isFatalWriteError: an I/O error leaves the file's state unknown; stop writing
// rather than acknowledge events that might not be there. A full disk or a lock held
// too long is worth retrying.
func isFatalWriteError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "disk I/O error") || strings.Contains(msg, "SQLITE_IOERR") || strings.Contains(msg, "malformed")
}

// Aggregates of one batch, applied with one statement per distinct key.
type issueDelta struct {
	n        int64
	count    int64
	min, max int64
	latest   *preparedEvent
}

type tagValueKey struct {
	issue      int64
	key, value string
}

type tagValueDelta struct {
	n, first, last int64
}

type tagKeyKey struct {
	issue int64
	key   string
}

type bucketKey struct {
	span, bucket, issue int64
}

// write commits events in one transaction: the events (a stored id is skipped), then
// the issue rows, count buckets and tag counts they change, then retention by size.
func (w *writer) write(events []*preparedEvent, tel *preparedTelemetry) error {
	ctx := context.Background()
	return w.inTx(ctx, func() error {
		if err := w.writeEvents(ctx, events); err != nil {
			return err
		}
		if err := w.writeEventTraces(ctx, events); err != nil {
			return err
		}
		if err := w.writeTelemetry(ctx, tel); err != nil {
			return err
		}
		return w.retainTx(ctx, false)
	})
}

func (w *writer) writeEvents(ctx context.Context, events []*preparedEvent) error {
	issues := map[int64]*issueDelta{}
	var order []int64
	buckets := map[bucketKey]int64{}
	stored, bytes := int64(0), int64(0)
	var pending []pendingTags
	for _, p := range events {
		n, err := w.issueRow(ctx, p)
		if err != nil {
			return err
		}
		size := int64(len(p.body) + len(p.tagsJSON) + len(p.message) + 96)
		res, err := w.exec(ctx, `INSERT INTO events (event_id, issue, ts, received, level, message, environment, release, user, size, tags, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`,
			p.id, n, p.ts, p.received, p.level, p.message, p.environment, p.release, p.user, size, p.tagsJSON, p.body)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			continue // already stored: an SDK retrying a request whose answer it lost
		}
		row, err := res.LastInsertId()
		if err != nil {
			return err
		}
		pending = append(pending, pendingTags{n: row, issue: n, ts: p.ts, tags: p.tags})
		stored++
		bytes += size
		d := issues[n]
		if d == nil {
			d = &issueDelta{n: n, min: p.ts, max: p.ts}
			issues[n] = d
			order = append(order, n)
		}
		d.count++
		d.min, d.max = min(d.min, p.ts), max(d.max, p.ts)
		if d.latest == nil || p.ts >= d.latest.ts {
			d.latest = p
		}
		sec := p.ts / int64(time.Second)
		buckets[bucketKey{spanHour, floorDiv(sec, spanHour), n}]++
		buckets[bucketKey{spanDay, floorDiv(sec, spanDay), n}]++
	}
	if stored == 0 {
		return nil
	}
	for _, n := range order {
		if err := w.applyIssue(ctx, issues[n]); err != nil {
			return err
		}
	}
	for k, c := range buckets {
		if _, err := w.exec(ctx, `INSERT INTO issue_counts (span, bucket, issue, n) VALUES (?, ?, ?, ?)
			ON CONFLICT (span, bucket, issue) DO UPDATE SET n = n + excluded.n`, k.span, k.bucket, k.issue, c); err != nil {
			return err
		}
	}
	if _, err := w.exec(ctx, `UPDATE stats SET events = events + ?, bytes = bytes + ?`, stored, bytes); err != nil {
		return err
	}
	w.pending = append(w.pending, pending...)
	w.unchecked += bytes
	return nil
}

// issueRow returns the row of the event's issue, creating it on its first event.
func (w *writer) issueRow(ctx context.Context, p *preparedEvent) (int64, error) {
	if n, ok := w.issueN[p.issueID]; ok {
		return n, nil
	}
	var n int64
	err := w.queryRow(ctx, `SELECT n FROM issues WHERE id = ?`, p.issueID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) && p.legacyIssueID != "" {
		err = w.queryRow(ctx, `SELECT n FROM issues WHERE id = ?`, p.legacyIssueID).Scan(&n)
	}
	if errors.Is(err, sql.ErrNoRows) {
		err = w.queryRow(ctx, `INSERT INTO issues (id, short_id, project, first_seen, last_seen) VALUES (?, ?, ?, ?, ?) RETURNING n`,
			p.issueID, p.shortID, p.project, p.ts, p.ts).Scan(&n)
	}
	if err != nil {
		return 0, err
	}
	if len(w.issueN) > 100_000 {
		w.clearCaches()
	}
	w.issueN[p.issueID] = n
	return n, nil
}

func issueText(p *preparedEvent) string {
	return strings.ToLower(strings.Join([]string{p.title, p.culprit, p.typ, p.value, p.message}, "\n"))
}

// applyIssue adds a batch's events to an issue row; the issue's text and level follow
// its latest event (by event time).
func (w *writer) applyIssue(ctx context.Context, d *issueDelta) error {
	if w.issues[d.n] == nil {
		if err := w.loadIssue(ctx, d.n); err != nil {
			return err
		}
	}
	st := w.issues[d.n]
	p := d.latest
	first := d.min
	last := d.max
	if st.timesSeen > 0 {
		last = max(last, st.lastSeen)
	}
	if st.timesSeen == 0 || p.ts >= st.lastSeen {
		if _, err := w.exec(ctx, `UPDATE issues SET times_seen = times_seen + ?, first_seen = CASE WHEN times_seen = 0 THEN ? ELSE min(first_seen, ?) END, last_seen = ?,
			title = ?, culprit = ?, type = ?, value = ?, message = ?, level = ?, platform = ? WHERE n = ?`,
			d.count, first, first, last, p.title, p.culprit, p.typ, p.value, p.message, p.level, p.plat, d.n); err != nil {
			return err
		}
		if text := issueText(p); st.timesSeen == 0 || text != st.text {
			if _, err := w.exec(ctx, `DELETE FROM issue_text WHERE rowid = ?`, d.n); err != nil {
				return err
			}
			if _, err := w.exec(ctx, `INSERT INTO issue_text (rowid, text) VALUES (?, ?)`, d.n, text); err != nil {
				return err
			}
			st.text = text
		}
	} else if _, err := w.exec(ctx, `UPDATE issues SET times_seen = times_seen + ?, first_seen = min(first_seen, ?), last_seen = ? WHERE n = ?`,
		d.count, first, last, d.n); err != nil {
		return err
	}
	st.timesSeen += d.count
	st.lastSeen = last
	return nil
}

// loadIssue reads an issue row's state into the cache.
func (w *writer) loadIssue(ctx context.Context, n int64) error {
	st := &issueState{}
	var title, culprit, typ, value, message string
	if err := w.queryRow(ctx, `SELECT title, culprit, type, value, message, last_seen, times_seen, tag_keys FROM issues WHERE n = ?`, n).
		Scan(&title, &culprit, &typ, &value, &message, &st.lastSeen, &st.timesSeen, &st.tagKeys); err != nil {
		return err
	}
	st.text = strings.ToLower(strings.Join([]string{title, culprit, typ, value, message}, "\n"))
	w.issues[n] = st
	return nil
}

// applyTags counts a batch's tag values into issue_tags and issue_tag_keys, within
// the per-issue caps.
func (w *writer) applyTags(ctx context.Context, order []tagValueKey, values map[tagValueKey]*tagValueDelta) error {
	type keyDelta struct {
		total, overflow int64
		dropped         bool // past the per-issue key cap: not counted
		isNew           bool
	}
	deltas := map[tagKeyKey]*keyDelta{}
	var keyOrder []tagKeyKey
	for _, vk := range order {
		kk := tagKeyKey{vk.issue, vk.key}
		kd := deltas[kk]
		if kd == nil {
			kd = &keyDelta{}
			deltas[kk] = kd
			keyOrder = append(keyOrder, kk)
			ks := w.keys[kk]
			if ks == nil {
				ks = &keyState{}
				err := w.queryRow(ctx, `SELECT uniq FROM issue_tag_keys WHERE issue = ? AND key = ?`, vk.issue, vk.key).Scan(&ks.uniq)
				switch {
				case err == nil:
					ks.exists = true
				case !errors.Is(err, sql.ErrNoRows):
					return err
				}
				w.keys[kk] = ks
			}
			if !ks.exists {
				if st := w.issues[vk.issue]; st != nil && st.tagKeys >= maxTagKeysPerIssue {
					kd.dropped = true
				} else {
					kd.isNew = true
				}
			}
		}
		if kd.dropped {
			continue
		}
		ks := w.keys[kk]
		d := values[vk]
		kd.total += d.n
		if ks.uniq < maxTagValuesPerIssue {
			var n int64
			if err := w.queryRow(ctx, `INSERT INTO issue_tags (issue, key, value, n, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (issue, key, value) DO UPDATE SET n = n + excluded.n, first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)
				RETURNING n`, vk.issue, vk.key, vk.value, d.n, d.first, d.last).Scan(&n); err != nil {
				return err
			}
			if n == d.n {
				ks.uniq++ // inserted: a new value
			}
			continue
		}
		res, err := w.exec(ctx, `UPDATE issue_tags SET n = n + ?, first_seen = min(first_seen, ?), last_seen = max(last_seen, ?) WHERE issue = ? AND key = ? AND value = ?`,
			d.n, d.first, d.last, vk.issue, vk.key, vk.value)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			kd.overflow += d.n
		}
	}
	for _, kk := range keyOrder {
		kd := deltas[kk]
		if kd.dropped {
			continue
		}
		ks := w.keys[kk]
		if _, err := w.exec(ctx, `INSERT INTO issue_tag_keys (issue, key, total, uniq, overflow) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (issue, key) DO UPDATE SET total = total + excluded.total, uniq = excluded.uniq, overflow = overflow + excluded.overflow`,
			kk.issue, kk.key, kd.total, ks.uniq, kd.overflow); err != nil {
			return err
		}
		if kd.isNew {
			ks.exists = true
			st := w.issues[kk.issue]
			st.tagKeys++
			if _, err := w.exec(ctx, `UPDATE issues SET tag_keys = ? WHERE n = ?`, st.tagKeys, kk.issue); err != nil {
				return err
			}
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
