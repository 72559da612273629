package errorserver

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// Retention drops the oldest events by event time: those older than MaxAge, and while
// the database is over MaxTotalBytes, enough of the oldest to bring it to 90% of the
// limit (so it does not run on every commit). It runs in the writer: after every
// commit (size), every minute and at open (both). What it dropped is logged and
// counted in the meta table, and the tools' results say so.

// Reasons recorded for a drop.
const (
	reasonBytes = "the store was over its byte limit"
	reasonAge   = "events were older than the age limit"
)

const dropChunk = 5000

// retain applies retention in its own transaction.
func (w *writer) retain(age bool) {
	if w.failed != nil {
		return
	}
	ctx := context.Background()
	if err := w.inTx(ctx, func() error { return w.retainTx(ctx, age) }); err != nil {
		w.s.logger.Warn("local store: retention failed; it is tried again in a minute", "error", err.Error())
	}
}

func (w *writer) retainTx(ctx context.Context, age bool) error {
	s := w.s
	if age && s.cfg.MaxAge > 0 {
		cutoff := s.now().Add(-s.cfg.MaxAge).UnixNano()
		for {
			n, err := w.drop(ctx, `SELECT n FROM events WHERE ts < ? ORDER BY ts, n LIMIT ?`, []any{cutoff, dropChunk}, reasonAge)
			if err != nil || n < dropChunk {
				if err != nil {
					return err
				}
				break
			}
		}
		if err := w.retainTelemetryAge(ctx, cutoff); err != nil {
			return err
		}
	}
	if s.cfg.MaxTotalBytes <= 0 {
		return nil
	}
	// After a commit, look at the size only once a hundredth of the limit (at most
	// 1 MiB) has been written since the last look.
	if !age && w.unchecked < min(s.cfg.MaxTotalBytes/100, 1<<20) {
		return nil
	}
	w.unchecked = 0
	used, err := usedBytes(ctx, w)
	if err != nil || used <= s.cfg.MaxTotalBytes {
		return err
	}
	target := s.cfg.MaxTotalBytes / 10 * 9
	for range 100 {
		var events int64
		if err := w.queryRow(ctx, `SELECT events FROM stats`).Scan(&events); err != nil {
			return err
		}
		if used <= target {
			break
		}
		avg := max(used/max(events, 1), 1)
		n := min(max((used-target+avg-1)/avg, 1), dropChunk)
		if tel, err := w.dropOldestTelemetry(ctx, max(n, 500)); err != nil {
			return err
		} else if !tel {
			if events == 0 {
				break
			}
			if _, err := w.drop(ctx, `SELECT n FROM events ORDER BY ts, n LIMIT ?`, []any{n}, reasonBytes); err != nil {
				return err
			}
		}
		if _, err := w.exec(ctx, `PRAGMA incremental_vacuum`); err != nil {
			return err
		}
		if used, err = usedBytes(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// rowQueryer is what usedBytes needs: the writer (prepared statements), *sql.DB.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (w *writer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return w.queryRow(ctx, q, args...)
}

// usedBytes is the database's size without its free pages.
func usedBytes(ctx context.Context, q rowQueryer) (int64, error) {
	var pages, free, size int64
	if err := q.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, err
	}
	return (pages - free) * size, nil
}

// drop deletes the events that pick selects and takes them out of every count.
func (w *writer) drop(ctx context.Context, pick string, args []any, reason string) (int, error) {
	// Count the pending tags first: the counts taken out below must be in.
	if err := w.countTags(ctx); err != nil {
		return 0, err
	}
	rows, err := w.conn.QueryContext(ctx, `DELETE FROM events WHERE n IN (`+pick+`) RETURNING issue, ts, size, tags`, args...)
	if err != nil {
		return 0, err
	}
	type issueDrop struct{ count, oldest, newest int64 }
	issues := map[int64]*issueDrop{}
	buckets := map[bucketKey]int64{}
	values := map[tagValueKey]int64{}
	var dropped, bytes int64
	for rows.Next() {
		var issue, ts, size int64
		var tags string
		if err := rows.Scan(&issue, &ts, &size, &tags); err != nil {
			rows.Close()
			return 0, err
		}
		dropped++
		bytes += size
		d := issues[issue]
		if d == nil {
			d = &issueDrop{oldest: ts, newest: ts}
			issues[issue] = d
		}
		d.count++
		d.oldest, d.newest = min(d.oldest, ts), max(d.newest, ts)
		sec := ts / int64(time.Second)
		buckets[bucketKey{spanHour, floorDiv(sec, spanHour), issue}]++
		buckets[bucketKey{spanDay, floorDiv(sec, spanDay), issue}]++
		for _, t := range decodeStoredTags(tags) {
			values[tagValueKey{issue, t.Key, t.Value}]++
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if dropped == 0 {
		return 0, nil
	}
	for k, c := range buckets {
		if _, err := w.exec(ctx, `UPDATE issue_counts SET n = n - ? WHERE span = ? AND bucket = ? AND issue = ?`, c, k.span, k.bucket, k.issue); err != nil {
			return 0, err
		}
		if _, err := w.exec(ctx, `DELETE FROM issue_counts WHERE span = ? AND bucket = ? AND issue = ? AND n <= 0`, k.span, k.bucket, k.issue); err != nil {
			return 0, err
		}
	}
	type keyDrop struct{ total, uniq, overflow int64 }
	keys := map[tagKeyKey]*keyDrop{}
	for vk, c := range values {
		kk := tagKeyKey{vk.issue, vk.key}
		kd := keys[kk]
		if kd == nil {
			kd = &keyDrop{}
			keys[kk] = kd
		}
		kd.total += c
		res, err := w.exec(ctx, `UPDATE issue_tags SET n = n - ? WHERE issue = ? AND key = ? AND value = ?`, c, vk.issue, vk.key, vk.value)
		if err != nil {
			return 0, err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			kd.overflow += c // counted past the cap, not by value
			continue
		}
		res, err = w.exec(ctx, `DELETE FROM issue_tags WHERE issue = ? AND key = ? AND value = ? AND n <= 0`, vk.issue, vk.key, vk.value)
		if err != nil {
			return 0, err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			kd.uniq++
		}
	}
	for kk, kd := range keys {
		if _, err := w.exec(ctx, `UPDATE issue_tag_keys SET total = total - ?, uniq = uniq - ?, overflow = max(0, overflow - ?) WHERE issue = ? AND key = ?`,
			kd.total, kd.uniq, kd.overflow, kk.issue, kk.key); err != nil {
			return 0, err
		}
		res, err := w.exec(ctx, `DELETE FROM issue_tag_keys WHERE issue = ? AND key = ? AND total <= 0`, kk.issue, kk.key)
		if err != nil {
			return 0, err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			if _, err := w.exec(ctx, `UPDATE issues SET tag_keys = max(0, tag_keys - 1) WHERE n = ?`, kk.issue); err != nil {
				return 0, err
			}
		}
	}
	var oldest, newest int64
	first := true
	emptied := 0
	for n, d := range issues {
		if first || d.oldest < oldest {
			oldest = d.oldest
		}
		if first || d.newest > newest {
			newest = d.newest
		}
		first = false
		var left int64
		if err := w.queryRow(ctx, `UPDATE issues SET times_seen = times_seen - ? WHERE n = ? RETURNING times_seen`, d.count, n).Scan(&left); err != nil {
			return 0, err
		}
		if left <= 0 {
			emptied++
			for _, q := range []string{`DELETE FROM issues WHERE n = ?`, `DELETE FROM issue_text WHERE rowid = ?`, `DELETE FROM issue_tags WHERE issue = ?`,
				`DELETE FROM issue_tag_keys WHERE issue = ?`, `DELETE FROM issue_counts WHERE issue = ?`} {
				if _, err := w.exec(ctx, q, n); err != nil {
					return 0, err
				}
			}
			continue
		}
		var firstSeen, lastSeen int64
		if err := w.queryRow(ctx, `SELECT (SELECT min(ts) FROM events WHERE issue = ?1), (SELECT max(ts) FROM events WHERE issue = ?1)`, n).Scan(&firstSeen, &lastSeen); err != nil {
			return 0, err
		}
		if _, err := w.exec(ctx, `UPDATE issues SET first_seen = ?, last_seen = ? WHERE n = ?`, firstSeen, lastSeen, n); err != nil {
			return 0, err
		}
		// A value's first-seen cannot be older than the issue's oldest stored event.
		if _, err := w.exec(ctx, `UPDATE issue_tags SET first_seen = ? WHERE issue = ? AND first_seen < ?`, firstSeen, n, firstSeen); err != nil {
			return 0, err
		}
	}
	w.clearCaches() // counts, issues and keys changed under the caches
	if _, err := w.exec(ctx, `UPDATE stats SET events = events - ?, bytes = bytes - ?`, dropped, bytes); err != nil {
		return 0, err
	}
	now := w.s.now()
	var total int64
	if err := w.queryRow(ctx, `SELECT value FROM meta WHERE key = 'dropped_events'`).Scan(&total); err != nil && err != sql.ErrNoRows {
		return 0, err
	}
	total += dropped
	for k, v := range map[string]string{"dropped_events": strconv.FormatInt(total, 10), "last_drop": now.UTC().Format(time.RFC3339Nano), "last_drop_reason": reason} {
		if _, err := w.exec(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return 0, err
		}
	}
	w.s.logger.Info("local store: retention dropped the oldest events", "events", dropped, "bytes", bytes, "issues_emptied", emptied,
		"reason", reason, "oldest", backend.FormatTime(time.Unix(0, oldest)), "newest", backend.FormatTime(time.Unix(0, newest)))
	return int(dropped), nil
}

// retentionStats is what retention has dropped since the store was created.
type retentionStats struct {
	DroppedEvents int64
	LastDrop      time.Time
	LastReason    string
}

func (s *LocalStore) retentionStats(ctx context.Context) retentionStats {
	var st retentionStats
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM meta WHERE key IN ('dropped_events', 'last_drop', 'last_drop_reason')`)
	if err != nil {
		return st
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) != nil {
			continue
		}
		switch k {
		case "dropped_events":
			st.DroppedEvents, _ = strconv.ParseInt(v, 10, 64)
		case "last_drop":
			st.LastDrop, _ = time.Parse(time.RFC3339Nano, v)
		case "last_drop_reason":
			st.LastReason = v
		}
	}
	return st
}

// notice says how much history retention removed, for tool results.
func (s *LocalStore) notice(ctx context.Context) string {
	st := s.retentionStats(ctx)
	if st.DroppedEvents == 0 {
		return s.importingNotice(ctx)
	}
	return joinNotices(s.importingNotice(ctx), fmt.Sprintf("%d events were dropped by retention (oldest first; last drop at %s because %s): counts and first-seen times cover the events still stored",
		st.DroppedEvents, backend.FormatTime(st.LastDrop), st.LastReason))
}
