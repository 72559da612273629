package errorserver

import (
	"context"
	"time"
)

// While the collector imports an earlier version's event log (100,000 events take a
// few seconds), a reader in another process sees the counts grow from 0. The meta
// key metaImporting is set for that time, and every reader's notice says so.
const metaImporting = "importing_since"

// markImporting records (or clears) that the store is importing.
func (s *LocalStore) markImporting(on bool) error {
	if on {
		_, err := s.wdb.Exec(`INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
			metaImporting, time.Now().UTC().Format(time.RFC3339))
		return err
	}
	_, err := s.wdb.Exec(`DELETE FROM meta WHERE key = ?`, metaImporting)
	return err
}

// importingNotice is the notice of a store still importing, or "".
func (s *LocalStore) importingNotice(ctx context.Context) string {
	var since string
	if s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaImporting).Scan(&since) != nil {
		return ""
	}
	return "The local store is still importing an earlier version's event log (since " + since + "): counts grow until it is done; ask again in a few seconds."
}

// joinNotices joins notices that are not empty.
func joinNotices(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}
