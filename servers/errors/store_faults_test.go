package errorserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// faultLoad posts events from 16 clients until stop is closed, each event a new id,
// and records the ids acknowledged with 200 and the statuses answered.
type faultLoad struct {
	acked    sync.Map // event id -> true
	statuses sync.Map // status -> *atomic.Int64
	next     atomic.Int64
	rounds   [16]atomic.Int64 // requests each client has had answered
	wg       sync.WaitGroup
	stop     chan struct{}
}

func startFaultLoad(t *testing.T, url string) *faultLoad {
	l := &faultLoad{stop: make(chan struct{})}
	client := &http.Client{Timeout: 30 * time.Second}
	for c := range 16 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				id := hexID(int(l.next.Add(1)))
				body := envelopeOf(id, [2]string{"event", testEvent(id, "DiskError", "v", "write", nil)})
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("X-Sentry-Auth", "Sentry sentry_key="+testKey)
				resp, err := client.Do(req)
				if err != nil {
					l.rounds[c].Add(1)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					l.acked.Store(id, true)
				}
				if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After")
				}
				n, _ := l.statuses.LoadOrStore(resp.StatusCode, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				l.rounds[c].Add(1)
				time.Sleep(time.Millisecond)
			}
		}()
	}
	return l
}

func (l *faultLoad) count(status int) int64 {
	if c, ok := l.statuses.Load(status); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func (l *faultLoad) finish() []string {
	close(l.stop)
	l.wg.Wait()
	var ids []string
	l.acked.Range(func(k, _ any) bool { ids = append(ids, k.(string)); return true })
	return ids
}

// storedIDs are the event ids stored in the database under dir, read by a fresh
// reader.
func storedIDs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	r, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.db.Query(`SELECT event_id FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids[id] = true
	}
	return ids
}

// readersAnswer asks the store as a reader would (search_issues) and fails the test
// when it does not answer.
func readersAnswer(t *testing.T, s *LocalStore, when string) {
	t.Helper()
	if _, err := s.SearchIssues(context.Background(), backend.SearchIssuesInput{StatsPeriod: "90d"}); err != nil {
		t.Errorf("%s: search_issues failed: %v", when, err)
	}
}

// TestDiskFaultsUnderLoad: 16 clients post events while writes fail as a read-only
// filesystem (EROFS, an I/O error) and a full disk (ENOSPC) make them fail: ingest
// answers 503 with Retry-After while they do, readers answer throughout, ingest
// comes back within 5 s of the fault clearing, and no acknowledged event is missing.
func TestDiskFaultsUnderLoad(t *testing.T) {
	dir := t.TempDir()
	store := openTestStore(t, dir)
	srv, _ := startIngest(t, store)
	load := startFaultLoad(t, srv.URL+"/api/42/envelope/")
	faults := []struct {
		name string
		err  error
	}{
		{"read-only filesystem (EROFS)", fmt.Errorf("disk I/O error (10): write events.db-wal: %w", syscall.EROFS)},
		{"full disk (ENOSPC)", fmt.Errorf("database or disk is full (13): %w", syscall.ENOSPC)},
	}
	for _, f := range faults {
		waitFor(t, "events acknowledged before the fault", func() bool { return load.count(http.StatusOK) > 50 })
		before503 := load.count(http.StatusServiceUnavailable)
		writeFault.Store(&f.err)
		waitFor(t, f.name+": 503 answers", func() bool { return load.count(http.StatusServiceUnavailable) > before503+20 })
		readersAnswer(t, store, f.name)
		writeFault.Store(nil)
		cleared := time.Now()
		okBefore := load.count(http.StatusOK)
		for load.count(http.StatusOK) <= okBefore+10 {
			if time.Since(cleared) > 5*time.Second {
				t.Fatalf("%s: ingest not back 5 s after the fault cleared", f.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
		readersAnswer(t, store, f.name+" cleared")
	}
	acked := load.finish()
	store.Close()
	stored := storedIDs(t, dir)
	missing := 0
	for _, id := range acked {
		if !stored[id] {
			missing++
		}
	}
	t.Logf("%d events acknowledged, %d answered 503, %d stored", len(acked), load.count(http.StatusServiceUnavailable), len(stored))
	if missing != 0 {
		t.Errorf("%d acknowledged events are not stored", missing)
	}
}

// TestDataDirectoryDeletedUnderLoad: the data directory deleted (and a new empty one
// made in its place) under a collector that 16 clients post to: no event is
// acknowledged after that (it would be stored nowhere the directory says), OnFatal
// is called so the collector exits for its service manager to restart it, readers
// still answer, and the restarted store ingests into the new directory.
func TestDataDirectoryDeletedUnderLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	fatal := make(chan error, 1)
	store := openTestStore(t, dir, func(c *LocalConfig) { c.OnFatal = func(err error) { fatal <- err } })
	srv, _ := startIngest(t, store)
	load := startFaultLoad(t, srv.URL+"/api/42/envelope/")
	waitFor(t, "events acknowledged", func() bool { return load.count(http.StatusOK) > 50 })
	var ackedBefore map[string]bool
	ackedBefore = map[string]bool{}
	load.acked.Range(func(k, _ any) bool { ackedBefore[k.(string)] = true; return true })
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	deleted := load.count(http.StatusOK)
	var err error
	select {
	case err = <-fatal:
	case <-time.After(20 * time.Second):
		t.Fatal("OnFatal was not called after the data directory was deleted")
	}
	if !errors.Is(err, ErrDatabaseReplaced) || !strings.Contains(err.Error(), dir) {
		t.Errorf("OnFatal(%v), want the file named and ErrDatabaseReplaced", err)
	}
	// A request in flight when OnFatal ran may still land; every request a client
	// sends after that one must be refused.
	var atFatal [16]int64
	for c := range atFatal {
		atFatal[c] = load.rounds[c].Load()
	}
	waitFor(t, "every client's next request answered", func() bool {
		for c := range atFatal {
			if load.rounds[c].Load() < atFatal[c]+2 {
				return false
			}
		}
		return true
	})
	after := load.count(http.StatusOK)
	waitFor(t, "503 answers", func() bool { return load.count(http.StatusServiceUnavailable) > 20 })
	readersAnswer(t, store, "after the deletion")
	acked := load.finish()
	// At most the requests in flight when the directory went: committed before the
	// deletion, answered after it.
	var lateAcks int
	for _, id := range acked {
		if !ackedBefore[id] {
			lateAcks++
		}
	}
	if final := load.count(http.StatusOK); final != after {
		t.Errorf("events acknowledged after OnFatal: %d (of %d in all)", final-after, final)
	}
	t.Logf("acknowledged before the deletion %d, between it and OnFatal %d (committed before it), after it %d", deleted, lateAcks, load.count(http.StatusOK)-after)
	store.Close()

	restarted := openTestStore(t, dir)
	defer restarted.Close()
	srv2, _ := startIngest(t, restarted)
	if code, body := postEnvelope(t, srv2.URL+"/api/42/envelope/", envelopeOf(hexID(1<<20), [2]string{"event", testEvent(hexID(1<<20), "E", "v", "f", nil)}), nil); code != http.StatusOK {
		t.Fatalf("the restarted store: %d %s", code, body)
	}
	if ids := storedIDs(t, dir); !ids[hexID(1<<20)] {
		t.Errorf("the restarted store's event is not in the new directory")
	}
}

// TestDamagedDatabaseIsRefusedAtOpen: four pages of events.db overwritten: opening it
// is refused with a message that names the file and what to do.
func TestDamagedDatabaseIsRefusedAtOpen(t *testing.T) {
	dir := t.TempDir()
	store := openTestStore(t, dir)
	ingestTestEvents(t, store, 1, 2000, func(i int) (string, string, map[string]string) {
		return fmt.Sprint("E", i%50), "f", map[string]string{"shard": fmt.Sprint(i)}
	})
	store.Close()
	path := filepath.Join(dir, DatabaseFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	pages := fi.Size() / 4096
	if pages < 12 {
		t.Fatalf("the database has %d pages; the test needs more", pages)
	}
	garbage := bytes.Repeat([]byte{0xA5}, 4*4096)
	if _, err := f.WriteAt(garbage, (pages/2)*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// The check at open, or, for a store it has not the time for (here: none), the
	// writer's check in the background, which stops the collector (OnFatal).
	for _, atOpen := range []time.Duration{10 * time.Second, time.Nanosecond} {
		t.Run(fmt.Sprintf("check at open for %s", atOpen), func(t *testing.T) {
			defer func(d time.Duration) { integrityCheckAtOpen = d }(integrityCheckAtOpen)
			integrityCheckAtOpen = atOpen
			fatal := make(chan error, 1)
			s, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger, OnFatal: func(err error) { fatal <- err }})
			if err == nil {
				defer s.Close()
				select {
				case err = <-fatal:
				case <-time.After(60 * time.Second):
					t.Fatal("a damaged database opened, and no check found it")
				}
			} else if atOpen == time.Nanosecond {
				t.Logf("refused at open although the check had no time: %v", err)
			}
			for _, want := range []string{path, "is damaged", "move the file aside", ".recover", "fresh store"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestMalformedWriteChecksTheFile: a write that fails as damaged (SQLITE_CORRUPT) on a
// database that quick_check finds whole is tried again (ingest resumes, no exit); the
// file is checked rather than trusted or given up on.
func TestMalformedWriteChecksTheFile(t *testing.T) {
	fatal := make(chan error, 1)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.OnFatal = func(err error) { fatal <- err } })
	defer store.Close()
	srv, _ := startIngest(t, store)
	url := srv.URL + "/api/42/envelope/"
	corrupt := errors.New("database disk image is malformed (11)")
	writeFault.Store(&corrupt)
	if code, _ := postEnvelope(t, url, envelopeOf(hexID(1), [2]string{"event", testEvent(hexID(1), "E", "v", "f", nil)}), nil); code != http.StatusServiceUnavailable {
		t.Fatalf("a write failing as damaged: %d, want 503", code)
	}
	writeFault.Store(nil)
	waitFor(t, "ingest back", func() bool {
		code, _ := postEnvelope(t, url, envelopeOf(hexID(2), [2]string{"event", testEvent(hexID(2), "E", "v", "f", nil)}), nil)
		return code == http.StatusOK
	})
	select {
	case err := <-fatal:
		t.Errorf("OnFatal(%v) for a database quick_check finds whole", err)
	default:
	}
}

// countHandler counts the records logged.
type countHandler struct{ n atomic.Int64 }

func (h *countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h *countHandler) Handle(context.Context, slog.Record) error { h.n.Add(1); return nil }
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h *countHandler) WithGroup(string) slog.Handler             { return h }

// TestFailLogBacksOff: a failure retried 20 times a second is logged once, with its
// cause, not 20 times; its retries wait the back-off; success is logged once.
func TestFailLogBacksOff(t *testing.T) {
	h := &countHandler{}
	logger := slog.New(h)
	var l failLog
	for range 200 {
		l.failed(logger, "counting tags failed", errors.New("disk I/O error"))
	}
	if n := h.n.Load(); n != 1 {
		t.Errorf("200 failures in a row logged %d times, want once", n)
	}
	if w := l.retryWait(50 * time.Millisecond); w < time.Second {
		t.Errorf("retry wait while failing %s, want the back-off (1 s or more)", w)
	}
	l.ok(logger, "succeeds again")
	l.ok(logger, "succeeds again")
	if n := h.n.Load(); n != 2 {
		t.Errorf("logged %d records, want the failure and one recovery", n)
	}
	if w := l.retryWait(50 * time.Millisecond); w != 50*time.Millisecond {
		t.Errorf("retry wait after success %s, want the usual 50ms", w)
	}
}
