package errorserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
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
	title, culprit, typ, value, level, plat string
	message, environment, release, user     string
	ts, received                            int64
	tags                                    []tagPair
	tagsJSON, body                          []byte
}

// prepare groups and encodes one event, and decides its event time.
func (s *LocalStore) prepare(e *eventData, received time.Time) (*preparedEvent, error) {
	if e.IssueID == "" {
		deriveIssueFields(e)
		e.IssueID = issueIDFor(e.Project, groupingParts(e))
	}
	if e.Received.IsZero() {
		e.Received = received
	}
	if ts, clamped := s.fileTime(e.Timestamp, e.Received); clamped {
		e.ClientTimestamp, e.Timestamp = e.Timestamp, ts
	} else {
		e.Timestamp = ts
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	p := &preparedEvent{
		id: e.ID, issueID: e.IssueID, shortID: shortIDFor(e.Project, e.IssueID), project: e.Project,
		title: e.Title, culprit: e.Culprit, level: e.Level, plat: e.Platform,
		ts: e.Timestamp.UnixNano(), received: e.Received.UnixNano(), body: body,
	}
	if n := len(e.Exceptions); n > 0 {
		p.typ = capped(e.Exceptions[n-1].Type, 256)
		p.value = capped(firstLine(e.Exceptions[n-1].Value), summaryMessageCap)
	}
	p.message = capped(firstLine(firstNonEmpty(e.Message, p.value)), summaryMessageCap)
	p.tags = make([]tagPair, 0, len(e.Tags))
	flat := make([]string, 0, 2*len(e.Tags))
	for _, t := range e.Tags {
		v := redactValue(t.Key, t.Value)
		p.tags = append(p.tags, tagPair{Key: t.Key, Value: v})
		flat = append(flat, t.Key, v)
		switch t.Key {
		case "environment":
			p.environment = v
		case "release":
			p.release = v
		case "user":
			p.user = v
		}
	}
	if p.tagsJSON, err = json.Marshal(flat); err != nil {
		return nil, err
	}
	return p, nil
}

type ingestReq struct {
	events []*preparedEvent
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
	// issueN caches issue id -> row; cleared when retention deletes issues.
	issueN map[string]int64
}

func newWriter(s *LocalStore) *writer {
	return &writer{
		s: s, reqs: make(chan *ingestReq, 1024), retainC: make(chan chan struct{}),
		quit: make(chan struct{}), done: make(chan struct{}), issueN: map[string]int64{},
	}
}

var errStoreClosed = errors.New("the local store is closed")

func (w *writer) submit(ctx context.Context, events []*preparedEvent) error {
	r := &ingestReq{events: events, done: make(chan error, 1)}
	select {
	case w.reqs <- r:
	case <-w.quit:
		return errStoreClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, the request is committed or failed soon; wait for the answer even if
	// the client went away, so an acknowledgement is never sent for an unknown state.
	return <-r.done
}

func (w *writer) stop() {
	close(w.quit)
	<-w.done
}

// enforceRetention runs retention now on the writer (tests, and the periodic tick).
func (s *LocalStore) enforceRetention() {
	if s.w == nil {
		return
	}
	ack := make(chan struct{})
	select {
	case s.w.retainC <- ack:
		<-ack
	case <-s.w.done:
	}
}

func (w *writer) run() {
	defer close(w.done)
	tick := time.NewTicker(retentionInterval)
	defer tick.Stop()
	for {
		select {
		case r := <-w.reqs:
			w.commitBatch(w.gather(r))
		case ack := <-w.retainC:
			w.retain(true)
			close(ack)
		case <-tick.C:
			w.retain(true)
		case <-w.quit:
			// Commit what was queued before the close.
			for {
				select {
				case r := <-w.reqs:
					w.commitBatch(w.gather(r))
				default:
					return
				}
			}
		}
	}
}

func (w *writer) gather(first *ingestReq) []*ingestReq {
	batch := []*ingestReq{first}
	n := len(first.events)
	for n < maxBatchEvents {
		select {
		case r := <-w.reqs:
			batch = append(batch, r)
			n += len(r.events)
		default:
			return batch
		}
	}
	return batch
}

func (w *writer) commitBatch(batch []*ingestReq) {
	var events []*preparedEvent
	for _, r := range batch {
		events = append(events, r.events...)
	}
	err := w.failed
	if err == nil {
		err = w.write(events)
		if err != nil && isFatalWriteError(err) {
			w.failed = err
			w.s.logger.Error("local store: a write failed; refusing further writes until restart", "error", err.Error())
		}
	}
	if err != nil {
		err = fmt.Errorf("could not store durably: %w", err)
		w.issueN = map[string]int64{}
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
func (w *writer) write(events []*preparedEvent) error {
	ctx := context.Background()
	tx, err := w.s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insEvent, err := tx.PrepareContext(ctx, `INSERT INTO events (event_id, issue, ts, received, level, message, environment, release, user, size, tags, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`)
	if err != nil {
		return err
	}
	defer insEvent.Close()
	issues := map[int64]*issueDelta{}
	var order []int64
	buckets := map[bucketKey]int64{}
	values := map[tagValueKey]*tagValueDelta{}
	var valueOrder []tagValueKey
	stored, bytes := int64(0), int64(0)
	for _, p := range events {
		n, err := w.issueRow(ctx, tx, p)
		if err != nil {
			return err
		}
		size := int64(len(p.body) + len(p.tagsJSON) + len(p.message) + 96)
		res, err := insEvent.ExecContext(ctx, p.id, n, p.ts, p.received, p.level, p.message, p.environment, p.release, p.user, size, p.tagsJSON, p.body)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			continue // already stored: an SDK retrying a request whose answer it lost
		}
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
		for _, t := range p.tags {
			k := tagValueKey{n, t.Key, t.Value}
			v := values[k]
			if v == nil {
				v = &tagValueDelta{first: p.ts, last: p.ts}
				values[k] = v
				valueOrder = append(valueOrder, k)
			}
			v.n++
			v.first, v.last = min(v.first, p.ts), max(v.last, p.ts)
		}
	}
	if stored == 0 {
		return tx.Commit()
	}
	tagKeys := map[int64]int64{}
	for _, n := range order {
		keys, err := w.applyIssue(ctx, tx, issues[n])
		if err != nil {
			return err
		}
		tagKeys[n] = keys
	}
	for k, c := range buckets {
		if _, err := tx.ExecContext(ctx, `INSERT INTO issue_counts (span, bucket, issue, n) VALUES (?, ?, ?, ?)
			ON CONFLICT (span, bucket, issue) DO UPDATE SET n = n + excluded.n`, k.span, k.bucket, k.issue, c); err != nil {
			return err
		}
	}
	if err := applyTags(ctx, tx, valueOrder, values, tagKeys); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stats SET events = events + ?, bytes = bytes + ?`, stored, bytes); err != nil {
		return err
	}
	if err := w.retainTx(ctx, tx, false); err != nil {
		return err
	}
	return tx.Commit()
}

// issueRow returns the row of the event's issue, creating it on its first event.
func (w *writer) issueRow(ctx context.Context, tx *sql.Tx, p *preparedEvent) (int64, error) {
	if n, ok := w.issueN[p.issueID]; ok {
		return n, nil
	}
	var n int64
	err := tx.QueryRowContext(ctx, `SELECT n FROM issues WHERE id = ?`, p.issueID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, `INSERT INTO issues (id, short_id, project, first_seen, last_seen) VALUES (?, ?, ?, ?, ?) RETURNING n`,
			p.issueID, p.shortID, p.project, p.ts, p.ts).Scan(&n)
	}
	if err != nil {
		return 0, err
	}
	if len(w.issueN) > 100_000 {
		clear(w.issueN)
	}
	w.issueN[p.issueID] = n
	return n, nil
}

// applyIssue adds a batch's events to an issue row; the issue's text and level follow
// its latest event (by event time). It returns the issue's number of tag keys.
func (w *writer) applyIssue(ctx context.Context, tx *sql.Tx, d *issueDelta) (int64, error) {
	var title, culprit, typ, value, message string
	var lastSeen, timesSeen, tagKeys int64
	if err := tx.QueryRowContext(ctx, `SELECT title, culprit, type, value, message, last_seen, times_seen, tag_keys FROM issues WHERE n = ?`, d.n).
		Scan(&title, &culprit, &typ, &value, &message, &lastSeen, &timesSeen, &tagKeys); err != nil {
		return 0, err
	}
	p := d.latest
	if timesSeen == 0 || p.ts >= lastSeen {
		if _, err := tx.ExecContext(ctx, `UPDATE issues SET title = ?, culprit = ?, type = ?, value = ?, message = ?, level = ?, platform = ? WHERE n = ?`,
			p.title, p.culprit, p.typ, p.value, p.message, p.level, p.plat, d.n); err != nil {
			return 0, err
		}
		if timesSeen == 0 || title != p.title || culprit != p.culprit || typ != p.typ || value != p.value || message != p.message {
			text := strings.ToLower(strings.Join([]string{p.title, p.culprit, p.typ, p.value, p.message}, "\n"))
			if _, err := tx.ExecContext(ctx, `DELETE FROM issue_text WHERE rowid = ?`, d.n); err != nil {
				return 0, err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO issue_text (rowid, text) VALUES (?, ?)`, d.n, text); err != nil {
				return 0, err
			}
		}
	}
	first, last := d.min, d.max
	if timesSeen > 0 {
		last = max(last, lastSeen)
	}
	_, err := tx.ExecContext(ctx, `UPDATE issues SET times_seen = times_seen + ?, first_seen = CASE WHEN times_seen = 0 THEN ? ELSE min(first_seen, ?) END, last_seen = ? WHERE n = ?`,
		d.count, first, first, last, d.n)
	return tagKeys, err
}

// applyTags counts a batch's tag values into issue_tags and issue_tag_keys, within
// the per-issue caps.
func applyTags(ctx context.Context, tx *sql.Tx, order []tagValueKey, values map[tagValueKey]*tagValueDelta, tagKeys map[int64]int64) error {
	type keyState struct {
		loaded, exists        bool
		total, uniq, overflow int64
		dropped               bool // past the per-issue key cap: not counted
	}
	keys := map[tagKeyKey]*keyState{}
	var keyOrder []tagKeyKey
	update, err := tx.PrepareContext(ctx, `UPDATE issue_tags SET n = n + ?, first_seen = min(first_seen, ?), last_seen = max(last_seen, ?) WHERE issue = ? AND key = ? AND value = ?`)
	if err != nil {
		return err
	}
	defer update.Close()
	insert, err := tx.PrepareContext(ctx, `INSERT INTO issue_tags (issue, key, value, n, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for _, vk := range order {
		kk := tagKeyKey{vk.issue, vk.key}
		ks := keys[kk]
		if ks == nil {
			ks = &keyState{}
			keys[kk] = ks
			keyOrder = append(keyOrder, kk)
			err := tx.QueryRowContext(ctx, `SELECT uniq FROM issue_tag_keys WHERE issue = ? AND key = ?`, vk.issue, vk.key).Scan(&ks.uniq)
			switch {
			case err == nil:
				ks.exists = true
			case errors.Is(err, sql.ErrNoRows):
				if tagKeys[vk.issue] >= maxTagKeysPerIssue {
					ks.dropped = true
				} else {
					tagKeys[vk.issue]++
				}
			default:
				return err
			}
		}
		if ks.dropped {
			continue
		}
		d := values[vk]
		ks.total += d.n
		res, err := update.ExecContext(ctx, d.n, d.first, d.last, vk.issue, vk.key, vk.value)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			continue
		}
		if ks.uniq >= maxTagValuesPerIssue {
			ks.overflow += d.n
			continue
		}
		if _, err := insert.ExecContext(ctx, vk.issue, vk.key, vk.value, d.n, d.first, d.last); err != nil {
			return err
		}
		ks.uniq++
	}
	touched := map[int64]bool{}
	for _, kk := range keyOrder {
		ks := keys[kk]
		if ks.dropped {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO issue_tag_keys (issue, key, total, uniq, overflow) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (issue, key) DO UPDATE SET total = total + excluded.total, uniq = excluded.uniq, overflow = overflow + excluded.overflow`,
			kk.issue, kk.key, ks.total, ks.uniq, ks.overflow); err != nil {
			return err
		}
		if !ks.exists {
			touched[kk.issue] = true
		}
	}
	for n := range touched {
		if _, err := tx.ExecContext(ctx, `UPDATE issues SET tag_keys = ? WHERE n = ?`, tagKeys[n], n); err != nil {
			return err
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
