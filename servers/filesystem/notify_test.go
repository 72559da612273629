package filesystem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// notifyTimeout is generous: these tests assert what arrives, never how fast (a
// loaded machine may take seconds to deliver inotify events).
const notifyTimeout = 30 * time.Second

// watchedServer builds the server over dir with change notifications running.
func watchedServer(t *testing.T, dir string) *mcpkit.Server {
	t.Helper()
	rs := openTestRoots(t, dir)
	s := New(Config{Logger: quietLogger()}, rs)
	w, err := WatchChanges(s, rs, WatchOptions{Debounce: 20 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s
}

type notification struct {
	Method string `json:"method"`
	Params struct {
		URI  string `json:"uri"`
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	} `json:"params"`
}

// waitAfter waits for a notification with method (and uri, when not empty) among
// those received after the first skip ones, and returns it decoded. WaitNotification
// hands each received notification to match once, in order, which is what lets the
// count skip the earlier ones.
func waitAfter(t *testing.T, c *mcpkittest.Client, skip int, method, uri string) notification {
	t.Helper()
	i := 0
	raw := c.WaitNotification(func(m string, params json.RawMessage) bool {
		i++
		if i <= skip || m != method {
			return false
		}
		if uri == "" {
			return true
		}
		var p struct {
			URI string `json:"uri"`
		}
		return json.Unmarshal(params, &p) == nil && p.URI == uri
	})
	var n notification
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// received lists the notifications so far, decoded.
func received(t *testing.T, c *mcpkittest.Client) []notification {
	t.Helper()
	var out []notification
	for _, raw := range c.Notifications() {
		var n notification
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestListenStreamReceivesFileChanges: a 2026-07-28 subscriptions/listen stream that
// asked for resource list changes and subscribed to the root's URI receives, carrying
// its subscription id: updated + list_changed when a file is created, updated when one
// is modified, updated + list_changed when one is deleted, and list_changed but no
// updated for a new directory.
func TestListenStreamReceivesFileChanges(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"existing.txt": "v1", "doomed.txt": "bye"})
	s := watchedServer(t, dir)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, &mcpkittest.Options{Timeout: notifyTimeout})
	root := openTestRoots(t, dir).List()[0]
	uri := func(rel string) string { return FileURI(root, filepath.FromSlash(rel)) }

	id := c.NextID()
	done := c.Send(id, "subscriptions/listen", c.WithMeta(map[string]any{"notifications": map[string]any{
		"resourcesListChanged":  true,
		"resourceSubscriptions": []string{FileURI(root, ".")},
	}}))
	ack := waitAfter(t, c, 0, "notifications/subscriptions/acknowledged", "")
	wantID, _ := json.Marshal(id)
	if string(ack.Params.Meta.SubscriptionID) != string(wantID) {
		t.Fatalf("acknowledgement carries subscription id %s; want %s", ack.Params.Meta.SubscriptionID, wantID)
	}
	check := func(n notification) {
		t.Helper()
		if string(n.Params.Meta.SubscriptionID) != string(wantID) {
			t.Errorf("%s %s carries subscription id %s; want %s", n.Method, n.Params.URI, n.Params.Meta.SubscriptionID, wantID)
		}
	}

	// Create.
	skip := len(c.Notifications())
	mustWrite(t, filepath.Join(dir, "new.txt"), "hello")
	check(waitAfter(t, c, skip, "notifications/resources/updated", uri("new.txt")))
	check(waitAfter(t, c, skip, "notifications/resources/list_changed", ""))

	// Modify.
	skip = len(c.Notifications())
	mustWrite(t, filepath.Join(dir, "existing.txt"), "v2")
	check(waitAfter(t, c, skip, "notifications/resources/updated", uri("existing.txt")))

	// Delete.
	skip = len(c.Notifications())
	if err := os.Remove(filepath.Join(dir, "doomed.txt")); err != nil {
		t.Fatal(err)
	}
	check(waitAfter(t, c, skip, "notifications/resources/updated", uri("doomed.txt")))
	check(waitAfter(t, c, skip, "notifications/resources/list_changed", ""))

	// A new directory is a list change, not an updated resource; a file created in it
	// afterwards is reported (the directory is watched as it appears). Changes are
	// delivered in order, so an update for the directory would arrive before the file's.
	skip = len(c.Notifications())
	if err := os.Mkdir(filepath.Join(dir, "newdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	check(waitAfter(t, c, skip, "notifications/resources/list_changed", ""))
	mustWrite(t, filepath.Join(dir, "newdir", "inner.txt"), "in")
	check(waitAfter(t, c, skip, "notifications/resources/updated", uri("newdir/inner.txt")))
	for _, n := range received(t, c)[skip:] {
		if n.Method == "notifications/resources/updated" && n.Params.URI == uri("newdir") {
			t.Errorf("a directory got resources/updated: %+v", n)
		}
	}
	select {
	case r := <-done:
		t.Errorf("the listen stream ended early: %s", r.Raw)
	default:
	}
}

// TestLegacySubscribeReceivesUpdates: a 2025-11-25 session that subscribed to one
// file with resources/subscribe gets resources/updated for it and not for a file it
// did not subscribe to, and gets list_changed when a file appears.
func TestLegacySubscribeReceivesUpdates(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"watched.txt": "v1", "other.txt": "v1"})
	s := watchedServer(t, dir)
	c := mcpkittest.Connect(t, s, mcpkit.Revision20251125, &mcpkittest.Options{Timeout: notifyTimeout})
	root := openTestRoots(t, dir).List()[0]
	watched := FileURI(root, "watched.txt")
	c.Call("resources/subscribe", map[string]any{"uri": watched})

	skip := len(c.Notifications())
	mustWrite(t, filepath.Join(dir, "other.txt"), "v2")
	mustWrite(t, filepath.Join(dir, "watched.txt"), "v2")
	n := waitAfter(t, c, skip, "notifications/resources/updated", watched)
	if len(n.Params.Meta.SubscriptionID) != 0 {
		t.Errorf("a legacy notification carries a 2026-07-28 subscription id: %+v", n)
	}
	for _, n := range received(t, c)[skip:] {
		if n.Method == "notifications/resources/updated" && n.Params.URI != watched {
			t.Errorf("update for %s, which the session did not subscribe to", n.Params.URI)
		}
	}

	skip = len(c.Notifications())
	mustWrite(t, filepath.Join(dir, "appeared.txt"), "new")
	waitAfter(t, c, skip, "notifications/resources/list_changed", "")

	c.Call("resources/unsubscribe", map[string]any{"uri": watched})
	skip = len(c.Notifications())
	mustWrite(t, filepath.Join(dir, "watched.txt"), "v3")
	mustWrite(t, filepath.Join(dir, "appeared2.txt"), "marker")
	waitAfter(t, c, skip, "notifications/resources/list_changed", "")
	for _, n := range received(t, c)[skip:] {
		if n.Method == "notifications/resources/updated" {
			t.Errorf("update after unsubscribing: %+v", n)
		}
	}
}

// TestWatchOnDemand: the watcher does not start for tool calls, starts on the first
// subscriptions/listen before acknowledging it (a change right after the
// acknowledgement is reported), and starts on a legacy resources/subscribe as well.
func TestWatchOnDemand(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"a.txt": "a"})
			rs := openTestRoots(t, dir)
			s := New(Config{Logger: quietLogger()}, rs)
			lw := WatchOnDemand(s, rs, WatchOptions{Debounce: 20 * time.Millisecond, Logger: quietLogger()})
			t.Cleanup(func() { lw.Close() })
			c := mcpkittest.Connect(t, s, rev, &mcpkittest.Options{Timeout: notifyTimeout})
			root := rs.List()[0]
			c.CallTool("read_text_file", map[string]any{"path": "a.txt"})
			c.CallTool("list_directory", map[string]any{})
			if lw.Started() {
				t.Fatal("the watcher started for tool calls")
			}
			if rev == mcpkit.Revision20260728 {
				c.Send(c.NextID(), "subscriptions/listen", c.WithMeta(map[string]any{"notifications": map[string]any{
					"resourceSubscriptions": []string{FileURI(root, ".")},
				}}))
				waitAfter(t, c, 0, "notifications/subscriptions/acknowledged", "")
			} else {
				c.Call("resources/subscribe", map[string]any{"uri": FileURI(root, ".")})
			}
			if !lw.Started() {
				t.Fatal("the watcher did not start for a subscription")
			}
			skip := len(c.Notifications())
			mustWrite(t, filepath.Join(dir, "a.txt"), "changed")
			waitAfter(t, c, skip, "notifications/resources/updated", FileURI(root, "a.txt"))
		})
	}
}
