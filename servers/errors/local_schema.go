package errorserver

import (
	"context"
	"fmt"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// The store's schema. Times are Unix nanoseconds; "event time" is the time an event
// is filed by (its own timestamp, clamped: see LocalStore.fileTime).
//
//	meta            key/value: retention statistics, the collector's DSN and address
//	stats           one row: events stored and their encoded bytes
//	issues          one row per issue: its text (from its latest event), first and last
//	                event time, events stored (times_seen) and distinct tag keys
//	issue_text      FTS5 (trigram) over each issue's lower-cased text, for free-text
//	                search by substring
//	events          one row per event: the columns lists and filters need, the tag
//	                pairs as counted (JSON), and the whole normalised event (JSON)
//	issue_counts    events per issue per hour and per day of event time, so that the
//	                count in any window is a few hundred rows, not every event
//	issue_tag_keys  per issue and tag key: events with the key, distinct values counted,
//	                events whose value was past the per-issue cap
//	issue_tags      per issue, key and value: events, first and last event time
//
// PRAGMA user_version is the schema version. migrations[i] takes a database from
// version i to i+1; a database newer than this program is refused.
var migrations = []string{
	// 0 -> 1
	`
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE stats (one INTEGER PRIMARY KEY CHECK (one = 1), events INTEGER NOT NULL, bytes INTEGER NOT NULL);
INSERT INTO stats VALUES (1, 0, 0);
CREATE TABLE issues (
	n          INTEGER PRIMARY KEY,
	id         TEXT NOT NULL UNIQUE,
	short_id   TEXT NOT NULL,
	project    TEXT NOT NULL,
	title      TEXT NOT NULL DEFAULT '',
	culprit    TEXT NOT NULL DEFAULT '',
	type       TEXT NOT NULL DEFAULT '',
	value      TEXT NOT NULL DEFAULT '',
	message    TEXT NOT NULL DEFAULT '',
	level      TEXT NOT NULL DEFAULT '',
	platform   TEXT NOT NULL DEFAULT '',
	first_seen INTEGER NOT NULL,
	last_seen  INTEGER NOT NULL,
	times_seen INTEGER NOT NULL DEFAULT 0,
	tag_keys   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX issues_short_id ON issues (short_id COLLATE NOCASE);
CREATE INDEX issues_last_seen ON issues (last_seen);
CREATE VIRTUAL TABLE issue_text USING fts5 (text, tokenize = 'trigram');
CREATE TABLE events (
	n           INTEGER PRIMARY KEY,
	event_id    TEXT NOT NULL UNIQUE,
	issue       INTEGER NOT NULL,
	ts          INTEGER NOT NULL,
	received    INTEGER NOT NULL,
	level       TEXT NOT NULL DEFAULT '',
	message     TEXT NOT NULL DEFAULT '',
	environment TEXT NOT NULL DEFAULT '',
	release     TEXT NOT NULL DEFAULT '',
	user        TEXT NOT NULL DEFAULT '',
	size        INTEGER NOT NULL,
	tags        TEXT NOT NULL,
	body        BLOB NOT NULL
);
CREATE INDEX events_issue_ts ON events (issue, ts, n);
CREATE INDEX events_ts ON events (ts, issue);
CREATE TABLE issue_counts (span INTEGER NOT NULL, bucket INTEGER NOT NULL, issue INTEGER NOT NULL, n INTEGER NOT NULL,
	PRIMARY KEY (span, bucket, issue)) WITHOUT ROWID;
CREATE TABLE issue_tag_keys (issue INTEGER NOT NULL, key TEXT NOT NULL, total INTEGER NOT NULL, uniq INTEGER NOT NULL, overflow INTEGER NOT NULL,
	PRIMARY KEY (issue, key)) WITHOUT ROWID;
CREATE INDEX issue_tag_keys_key ON issue_tag_keys (key, issue);
CREATE TABLE issue_tags (issue INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, n INTEGER NOT NULL,
	first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
	PRIMARY KEY (issue, key, value)) WITHOUT ROWID;
CREATE INDEX issue_tags_value ON issue_tags (key, value, issue);
`,
}

// SchemaVersion is the schema version this program writes.
var SchemaVersion = len(migrations)

// Count buckets, in seconds of event time.
const (
	spanHour = 3600
	spanDay  = 86400
)

// migrate brings the schema to SchemaVersion in one immediate transaction (the first
// process to get there does it; the others find it done). Retention needs
// auto_vacuum=INCREMENTAL, which must be set before the first table.
func (s *LocalStore) migrate() error {
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	defer conn.Close()
	var version int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("%s is not a database this server can read (%v): move it out of the data directory", s.path, err)
	}
	if version > SchemaVersion {
		return fmt.Errorf("%w: %s has schema version %d, newer than this server's %d: run the newer mcp-server-errors that wrote it, or give this one another --data directory", backend.ErrConfig, s.path, version, SchemaVersion)
	}
	if version == SchemaVersion {
		return nil
	}
	if version == 0 {
		// The file already has its first page (WAL mode is recorded there), so the
		// auto_vacuum mode takes effect through a VACUUM, instant on an empty database.
		var tables int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
			return fmt.Errorf("prepare %s: %w", s.path, err)
		}
		if tables == 0 {
			for _, q := range []string{`PRAGMA auto_vacuum = INCREMENTAL`, `VACUUM`} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("prepare %s: %w", s.path, err)
				}
			}
		}
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("migrate %s: %w", s.path, err)
	}
	rollback := func(err error) error {
		conn.ExecContext(ctx, `ROLLBACK`)
		return err
	}
	// Read the version again under the write lock: another process may have migrated.
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return rollback(err)
	}
	for v := version; v < SchemaVersion; v++ {
		if _, err := conn.ExecContext(ctx, migrations[v]); err != nil {
			return rollback(fmt.Errorf("migrate %s from schema version %d to %d: %w", s.path, v, v+1, err))
		}
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion)); err != nil {
		return rollback(err)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return rollback(fmt.Errorf("migrate %s: %w", s.path, err))
	}
	if version < SchemaVersion {
		s.logger.Info("local store: schema migrated", "path", s.path, "from", version, "to", SchemaVersion)
	}
	return nil
}
