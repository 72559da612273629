package errorserver

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
)

func TestIngestRefusesBadInputAndKeepsTheStore(t *testing.T) {
	dir := t.TempDir()
	store := openTestStore(t, dir)
	srv, _ := startIngest(t, store)
	envURL := srv.URL + "/api/42/envelope/"
	storeURL := srv.URL + "/api/42/store/"

	// Two good events first: they must survive everything below.
	for i := 1; i <= 2; i++ {
		code, body := postEnvelope(t, envURL, envelopeOf(hexID(i), [2]string{"event", testEvent(hexID(i), "ValueError", "bad", "pay", nil)}), nil)
		if code != http.StatusOK || !strings.Contains(body, hexID(i)) {
			t.Fatalf("good event %d: %d %s", i, code, body)
		}
	}

	fullGzip := gzipBytes(envelopeOf(hexID(90), [2]string{"event", testEvent(hexID(90), "E", "v", "f", nil)}))
	bomb := gzipBytes(bytes.Repeat([]byte("a"), 21<<20))
	big := bytes.Repeat([]byte("x"), 50<<20)

	cases := []struct {
		name       string
		url        string
		body       []byte
		hdr        map[string]string
		chunked    bool
		wantStatus int
		wantDetail string
	}{
		{name: "store endpoint: not JSON", url: storeURL, body: []byte("hello, world"), wantStatus: 400, wantDetail: "not a JSON object"},
		{name: "store endpoint: broken JSON", url: storeURL, body: []byte(`{"event_id": "` + hexID(80) + `", "level": `), wantStatus: 400, wantDetail: "not valid JSON"},
		{name: "envelope: event item not JSON", url: envURL, body: envelopeOf(hexID(81), [2]string{"event", "not json at all"}), wantStatus: 400, wantDetail: "item 1 (event)"},
		{name: "envelope: header not JSON", url: envURL, body: []byte("garbage\n{\"type\":\"event\"}\n{}\n"), wantStatus: 400, wantDetail: "envelope header"},
		{name: "envelope: length beyond the body", url: envURL, body: []byte(`{}` + "\n" + `{"type":"event","length":500}` + "\n{}"), wantStatus: 400, wantDetail: "truncated"},
		{name: "envelope: bad event id", url: envURL, body: envelopeOf("", [2]string{"event", `{"event_id":"not-hex"}`}), wantStatus: 400, wantDetail: "event_id"},
		{name: "wrong key", url: envURL, body: envelopeOf(hexID(82), [2]string{"event", testEvent(hexID(82), "E", "v", "f", nil)}), hdr: map[string]string{"X-Sentry-Auth": "Sentry sentry_key=wrongkey"}, wantStatus: 403, wantDetail: "not one this store accepts"},
		{name: "wrong key in the envelope dsn", url: envURL, body: []byte(`{"dsn":"http://wrongkey@127.0.0.1/42"}` + "\n"), hdr: map[string]string{"X-Sentry-Auth": ""}, wantStatus: 403, wantDetail: "not one this store accepts"},
		{name: "no key at all", url: envURL, body: envelopeOf(hexID(83), [2]string{"event", testEvent(hexID(83), "E", "v", "f", nil)}), hdr: map[string]string{"X-Sentry-Auth": ""}, wantStatus: 401, wantDetail: "no DSN public key"},
		{name: "truncated gzip", url: envURL, body: fullGzip[:len(fullGzip)/2], hdr: map[string]string{"Content-Encoding": "gzip"}, wantStatus: 400, wantDetail: "truncated"},
		{name: "gzip header on plain text", url: envURL, body: []byte("plain"), hdr: map[string]string{"Content-Encoding": "gzip"}, wantStatus: 400, wantDetail: "not gzip"},
		{name: "50 MiB body", url: envURL, body: big, wantStatus: 413, wantDetail: "over the"},
		{name: "50 MiB body without Content-Length", url: envURL, body: big, chunked: true, wantStatus: 413, wantDetail: "over the"},
		{name: "gzip bomb", url: envURL, body: bomb, hdr: map[string]string{"Content-Encoding": "gzip"}, wantStatus: 413, wantDetail: "decompressed body"},
		{name: "unsupported encoding", url: envURL, body: []byte("x"), hdr: map[string]string{"Content-Encoding": "zstd"}, wantStatus: 415, wantDetail: "not supported"},
		{name: "bad project", url: srv.URL + "/api/a.b/envelope/", body: []byte("{}\n"), wantStatus: 400, wantDetail: "project"},
		{name: "unknown path", url: srv.URL + "/api/42/minidump/", body: []byte("{}\n"), wantStatus: 404, wantDetail: "envelope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r io.Reader = bytes.NewReader(tc.body)
			if tc.chunked {
				r = io.MultiReader(r) // hides the length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, tc.url, r)
			req.Header.Set("X-Sentry-Auth", "Sentry sentry_key="+testKey)
			for k, v := range tc.hdr {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("request failed instead of a clear status: %v", err)
			}
			defer resp.Body.Close()
			var body struct {
				Detail string `json:"detail"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(body.Detail, tc.wantDetail) {
				t.Errorf("status %d detail %q, want %d and a detail containing %q", resp.StatusCode, body.Detail, tc.wantStatus, tc.wantDetail)
			}
		})
	}

	t.Run("GET is refused", func(t *testing.T) {
		resp, err := http.Get(envURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
			t.Errorf("GET: %d Allow=%q, want 405 with Allow", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})

	t.Run("unknown item types are skipped", func(t *testing.T) {
		body := []byte(`{"event_id":"` + hexID(84) + `"}` + "\n" +
			`{"type":"hologram","length":5}` + "\nabcde\n" +
			`{"type":"session"}` + "\n" + `{"sid":"1","status":"ok"}` + "\n" +
			`{"type":"attachment","length":3,"filename":"a.txt"}` + "\nx\ny\n" +
			`{"type":"client_report"}` + "\n{}\n")
		code, resp := postEnvelope(t, envURL, body, nil)
		if code != http.StatusOK || !strings.Contains(resp, hexID(84)) {
			t.Errorf("envelope of unknown items: %d %s, want 200 acknowledging the envelope", code, resp)
		}
		// Unknown items next to an event: the event is stored.
		_, items, _ := bytes.Cut(envelopeOf(hexID(85), [2]string{"event", testEvent(hexID(85), "KeyError", "k", "lookup", nil)}), []byte("\n"))
		body = append([]byte(`{}`+"\n"+`{"type":"hologram"}`+"\n"+`{"x":1}`+"\n"), items...)
		code, resp = postEnvelope(t, envURL, body, nil)
		if code != http.StatusOK || !strings.Contains(resp, hexID(85)) {
			t.Errorf("event among unknown items: %d %s", code, resp)
		}
	})

	t.Run("gzip, deflate, store endpoint and sentry_key query all work", func(t *testing.T) {
		var zbuf bytes.Buffer
		zw := newZlibWriter(&zbuf)
		zw.Write(envelopeOf(hexID(86), [2]string{"event", testEvent(hexID(86), "E", "v", "f", nil)}))
		zw.Close()
		for _, c := range []struct {
			url  string
			body []byte
			hdr  map[string]string
		}{
			{envURL, gzipBytes(envelopeOf(hexID(87), [2]string{"event", testEvent(hexID(87), "E", "v", "f", nil)})), map[string]string{"Content-Encoding": "gzip"}},
			{envURL, zbuf.Bytes(), map[string]string{"Content-Encoding": "deflate"}},
			{storeURL + "?sentry_key=" + testKey, []byte(testEvent(hexID(88), "E", "v", "f", nil)), map[string]string{"X-Sentry-Auth": ""}},
			{envURL, []byte(`{"dsn":"http://` + testKey + `@localhost/42","event_id":"` + hexID(89) + `"}` + "\n" + `{"type":"event"}` + "\n" + `{"message":"no length header"}` + "\n"), map[string]string{"X-Sentry-Auth": ""}},
		} {
			if code, resp := postEnvelope(t, c.url, c.body, c.hdr); code != http.StatusOK {
				t.Errorf("POST %s %v: %d %s", c.url, c.hdr, code, resp)
			}
		}
	})

	wantIDs := map[string]bool{}
	for _, n := range []int{1, 2, 85, 86, 87, 88, 89} {
		wantIDs[hexID(n)] = true
	}
	if diff := cmp.Diff(wantIDs, allEventIDs(t, store)); diff != "" {
		t.Errorf("stored events (-want +got):\n%s", diff)
	}
	store.Close()
	reopened := openTestStore(t, dir)
	defer reopened.Close()
	if diff := cmp.Diff(wantIDs, allEventIDs(t, reopened)); diff != "" {
		t.Errorf("stored events after reopen (-want +got):\n%s", diff)
	}
}

func TestIngestDeduplicatesRetriedEvents(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	srv, _ := startIngest(t, store)
	env := envelopeOf(hexID(7), [2]string{"event", testEvent(hexID(7), "E", "v", "f", nil)})
	for range 3 {
		if code, body := postEnvelope(t, srv.URL+"/api/42/envelope/", env, nil); code != 200 {
			t.Fatalf("%d %s", code, body)
		}
	}
	res, err := store.SearchIssues(context.Background(), backend.SearchIssuesInput{})
	if err != nil || len(res.Issues) != 1 || res.Issues[0].Count != 1 {
		t.Fatalf("after three sends of one event: %+v, %v; want one issue with count 1", res, err)
	}
}

// writeLegacyLog writes an event log in the format of the earlier version (segments
// of CRC-framed records in DIR/events) holding the given events, and cuts the last
// record in half, as a crash during a write would have left it.
func writeLegacyLog(t *testing.T, dir string, events []*event.Event) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, legacyDir), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, legacyDir, "LOCK"), nil, 0o600)
	seg := []byte(legacyMagic)
	var lastStart int
	for _, e := range events {
		event.DeriveIssueFields(e)
		e.IssueID = event.IssueIDFor(e.Project, event.GroupingParts(e))
		detail, _ := json.Marshal(e)
		sum, _ := json.Marshal(map[string]any{"id": e.ID, "issue": e.IssueID, "project": e.Project})
		payload := append([]byte{1}, binary.AppendUvarint(nil, uint64(len(sum)))...)
		payload = append(append(payload, sum...), detail...)
		var h [legacyHeaderSize]byte
		binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
		binary.LittleEndian.PutUint64(h[8:16], uint64(time.Now().UnixNano()))
		c := crc32.Update(0, legacyCRC(), h[0:4])
		c = crc32.Update(c, legacyCRC(), h[8:16])
		binary.LittleEndian.PutUint32(h[4:8], crc32.Update(c, legacyCRC(), payload))
		lastStart = len(seg)
		seg = append(append(seg, h[:]...), payload...)
	}
	seg = seg[:lastStart+(len(seg)-lastStart)/2]
	if err := os.WriteFile(filepath.Join(dir, legacyDir, "00000000000000000001.seg"), seg, 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, legacyRetention), []byte(`{"droppedEvents":3,"droppedSegments":1,"lastDrop":"2026-05-01T00:00:00Z","lastReason":"over the byte limit"}`), 0o600)
}

// TestLegacyEventLogIsImported opens a data directory of the earlier version: its
// events (all but the torn last one) and retention statistics are imported into the
// database, the old log is kept aside as events.imported, and the torn event can be
// sent again. While an earlier version still holds the old log, the store refuses to
// open, saying why.
func TestLegacyEventLogIsImported(t *testing.T) {
	dir := t.TempDir()
	var events []*event.Event
	for i := 1; i <= 5; i++ {
		e, err := ingest.ParseEvent([]byte(testEvent(hexID(i), "E", fmt.Sprint(i), "f", map[string]string{"shard": fmt.Sprint(i % 2)})), "42", time.Now(), "")
		if err != nil {
			t.Fatal(err)
		}
		e.Timestamp = time.Now().Add(-time.Duration(10-i) * time.Minute)
		events = append(events, e)
	}
	writeLegacyLog(t, dir, events)

	held, err := os.OpenFile(filepath.Join(dir, legacyDir, "LOCK"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := tryLock(held); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger}); !errors.Is(err, backend.ErrConfig) || !strings.Contains(err.Error(), "earlier version of mcp-server-errors is running") {
		t.Errorf("open while the earlier version runs: %v; want a refusal that says so", err)
	}
	held.Close()

	store := openTestStore(t, dir)
	defer store.Close()
	want := map[string]bool{hexID(1): true, hexID(2): true, hexID(3): true, hexID(4): true}
	if diff := cmp.Diff(want, allEventIDs(t, store)); diff != "" {
		t.Fatalf("events imported from the earlier version's log (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	issue := store.issueOfEvent(t, hexID(2))
	if issue != events[1].IssueID {
		t.Errorf("imported event in issue %q, want the issue id it had: %q", issue, events[1].IssueID)
	}
	got, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: issue, EventID: "oldest"})
	if err != nil || got.ID != hexID(1) {
		t.Errorf("oldest imported event: %+v, %v", got, err)
	}
	res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Query: "shard:1"})
	if err != nil || len(res.Issues) != 1 || res.Issues[0].Count != 4 || !strings.Contains(res.Notice, "3 events were dropped by retention") {
		t.Errorf("search after import: %+v, %v; want the issue with 4 events and the earlier drops in the notice", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old event log is still in place after the import: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyImportedDir, "00000000000000000001.seg")); err != nil {
		t.Errorf("the old event log is not kept aside: %v", err)
	}
	// The torn event can be sent again and is stored this time.
	srv, _ := startIngest(t, store)
	if code, body := postEnvelope(t, srv.URL+"/api/42/envelope/", envelopeOf(hexID(5), [2]string{"event", testEvent(hexID(5), "E", "5", "f", nil)}), nil); code != 200 {
		t.Fatalf("resend: %d %s", code, body)
	}
	if store.issueOfEvent(t, hexID(5)) == "" {
		t.Error("resent event not stored")
	}
	// Reopening does not import again.
	store.Close()
	again := openTestStore(t, dir)
	defer again.Close()
	if n := again.eventCount(t); n != 5 {
		t.Errorf("%d events after reopening, want 5", n)
	}
}

func newZlibWriter(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }
