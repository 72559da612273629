package errorserver

import (
	"context"
	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/ingest"
	"strings"
	"testing"
)

// TestListProjectsPlatformByMajority: list_projects reports the platform most of a
// project's events have, not the latest event's nor the greatest name (issue #25: a
// project of 35 Go events and one Python one was reported as python).
func TestListProjectsPlatformByMajority(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	ingestTestEvents(t, store, 1, 35, func(int) (string, string, map[string]string) { return "GoErr", "charge", nil })
	py := strings.Replace(testEvent(hexID(100), "ValueError", "bad", "handler", nil), `"platform":"go"`, `"platform":"python"`, 1)
	py = strings.Replace(py, `"timestamp":"2026-01-01T00:00:00Z"`, `"timestamp":"2026-01-02T00:00:00Z"`, 1)
	e, err := ingest.ParseEvent([]byte(py), "42", store.now(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Ingest(context.Background(), []*event.Event{e}); err != nil {
		t.Fatal(err)
	}
	ps, err := store.ListProjects(context.Background(), backend.ListProjectsInput{})
	if err != nil || len(ps.Projects) != 1 {
		t.Fatalf("ListProjects = %+v, %v; want one project", ps, err)
	}
	if p := ps.Projects[0]; p.Platform != "go" || p.Events != 36 {
		t.Errorf("project %+v; want platform go (35 of its 36 events)", p)
	}
}
