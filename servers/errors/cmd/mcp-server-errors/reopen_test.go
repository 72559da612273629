package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	errorserver "github.com/mcpkit/reference/servers/errors"
	"github.com/mcpkit/reference/servers/errors/backend"
)

// postEvent posts one event, a message, to the ingest endpoint of dsn and returns the
// answer's status and its Retry-After header.
func postEvent(t *testing.T, dsn, id, message string) (int, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"event_id":%q,"message":%q,"level":"error","platform":"go"}`, id, message)
	body := fmt.Sprintf("{\"event_id\":%q}\n{\"type\":\"event\",\"length\":%d}\n%s\n", id, len(payload), payload)
	req, _ := http.NewRequest(http.MethodPost, "http://"+u.Host+"/api/1/envelope/", strings.NewReader(body))
	req.Header.Set("X-Sentry-Auth", "Sentry sentry_version=7, sentry_key="+u.User.Username())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post %s: %v", id, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestServerReopensItsStore: an MCP server that ingests (not the collector), whose
// data directory is deleted, replaced by another, or keeps its directory but loses its
// database file, neither exits (that would end its host's session) nor refuses events
// for ever: the event whose commit finds the database gone is refused (503 with
// Retry-After, as is every event until the store is open again), the store is opened
// again at --data, and from then on events are acknowledged, stored in the database
// at --data and found by the server's tools, on the same DSN.
func TestServerReopensItsStore(t *testing.T) {
	removeDatabase := func(t *testing.T, dir string) {
		for _, f := range []string{"events.db", "events.db-wal", "events.db-shm"} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name    string
		fault   func(t *testing.T, dir string)
		keyFile bool // the DSN key is written back into the directory
	}{
		{"data directory deleted", func(t *testing.T, dir string) { os.RemoveAll(dir) }, true},
		{"data directory replaced by an empty one", func(t *testing.T, dir string) {
			other := dir + ".new"
			if err := os.Mkdir(other, 0o700); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(dir)
			if err := os.Rename(other, dir); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"database file deleted, directory kept", removeDatabase, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			r := start(t, []string{"--data", dir, "--ingest", "127.0.0.1:0"}, map[string]string{"HOME": t.TempDir()}, "2026-07-28")
			dsn := r.dsn(t)
			key, _ := url.Parse(dsn)
			if code, _ := postEvent(t, dsn, fmt.Sprintf("%032x", 1), "before the fault"); code != http.StatusOK {
				t.Fatalf("before the fault: %d", code)
			}

			tc.fault(t, dir)
			var acked []string
			refused := 0
			for n := 2; len(acked) < 3; n++ {
				if n > 2000 {
					t.Fatalf("no event acknowledged after the fault (%d refused); log:\n%s", refused, r.stderr.String())
				}
				id := fmt.Sprintf("%032x", n)
				switch code, retry := postEvent(t, dsn, id, "after the fault"); code {
				case http.StatusOK:
					acked = append(acked, id)
				case http.StatusServiceUnavailable:
					if len(acked) > 0 {
						t.Fatalf("event %s refused after ingest resumed", id)
					}
					if retry == "" {
						t.Errorf("503 without Retry-After")
					}
					refused++
					time.Sleep(20 * time.Millisecond)
				default:
					t.Fatalf("event %s: status %d, want 200 or 503", id, code)
				}
			}
			if refused == 0 {
				t.Errorf("no event was refused: the commit that found the database gone acknowledged its events")
			}
			if !strings.Contains(r.stderr.String(), "opened again at the data directory") {
				t.Errorf("no reopen logged:\n%s", r.stderr.String())
			}

			// The server's tools answer over the store opened again.
			res := r.client.CallTool(errorserver.ToolSearchIssues, map[string]any{"query": "after the fault"})
			if res.IsError || !strings.Contains(res.Text(), `"title":"after the fault"`) {
				t.Errorf("search_issues after the reopen: %s", res.Text())
			}
			// Every event acknowledged is in the database at --data.
			store, err := errorserver.OpenLocal(errorserver.LocalConfig{DataDir: dir, ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			issue := firstIssue(t, store)
			for _, id := range acked {
				if _, err := store.GetEvent(context.Background(), backend.GetEventInput{IssueID: issue, EventID: id}); err != nil {
					t.Errorf("acknowledged event %s is not in %s: %v", id, dir, err)
				}
			}
			if store.Meta(metaDSN) != dsn {
				t.Errorf("DSN recorded for readers %q, want %q", store.Meta(metaDSN), dsn)
			}
			if b, err := os.ReadFile(filepath.Join(dir, dsnKeyFile)); tc.keyFile && (err != nil || strings.TrimSpace(string(b)) != key.User.Username()) {
				t.Errorf("DSN key file after the reopen: %q, %v; want %s", b, err, key.User.Username())
			}
			if err := r.stop(); err != nil {
				t.Errorf("stop: %v", err)
			}
		})
	}
}
