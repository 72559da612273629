package errorserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
)

// TestReaderSaysTheStoreIsImporting: while the writer imports an earlier version's
// log (marked in meta), a reader in another process says so in its notice; once the
// import is done, it does not.
func TestReaderSaysTheStoreIsImporting(t *testing.T) {
	dir := t.TempDir()
	e, err := ingest.ParseEvent([]byte(testEvent(hexID(1), "E", "v", "f", nil)), "42", time.Now(), "")
	if err != nil {
		t.Fatal(err)
	}
	writeLegacyLog(t, dir, []*event.Event{e})
	w := openTestStore(t, dir) // imports the log, and clears the mark
	defer w.Close()
	reader, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ctx := context.Background()
	notice := func() string {
		res, err := reader.SearchIssues(ctx, backend.SearchIssuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Notice
	}
	if n := notice(); strings.Contains(n, "importing") {
		t.Errorf("after the import: notice %q", n)
	}
	if err := w.markImporting(true); err != nil {
		t.Fatal(err)
	}
	if n := notice(); !strings.Contains(n, "still importing an earlier version's event log") {
		t.Errorf("while importing: notice %q, want it said", n)
	}
}
