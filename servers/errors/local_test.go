package errorserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
)

// ingestTestEvents stores n events directly (no HTTP), spread over issues by fn.
func ingestTestEvents(t testing.TB, s *LocalStore, from, n int, fn func(i int) (excType, function string, tags map[string]string)) {
	t.Helper()
	var batch []*event.Event
	for i := from; i < from+n; i++ {
		typ, function, tags := fn(i)
		e, err := ingest.ParseEvent([]byte(testEvent(hexID(i), typ, fmt.Sprintf("value %d", i), function, tags)), "42", s.now(), "")
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, e)
	}
	if err := s.Ingest(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

func TestLocalSearchSortsPagesAndBindsCursors(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) {
		c.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	defer store.Close()
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	// Issue "fn3" first (oldest), then fn0..fn2 with 1, 2, 3 events, then fn4 newest.
	ingestTestEvents(t, store, 100, 5, func(int) (string, string, map[string]string) { return "E", "fn3", nil })
	advance(time.Hour)
	for i := range 3 {
		ingestTestEvents(t, store, 200+i*10, i+1, func(int) (string, string, map[string]string) {
			return "E", fmt.Sprintf("fn%d", i), map[string]string{"user_hint": fmt.Sprint(i)}
		})
		advance(time.Minute)
	}
	advance(time.Hour)
	ingestTestEvents(t, store, 300, 1, func(int) (string, string, map[string]string) { return "E", "fn4", nil })
	ctx := context.Background()
	culprits := func(l *backend.IssueList) []string {
		var out []string
		for _, is := range l.Issues {
			out = append(out, strings.TrimPrefix(is.Culprit, "shop/checkout in "))
		}
		return out
	}
	for _, tc := range []struct {
		sort, period string
		want         []string
	}{
		{"date", "1d", []string{"fn4", "fn2", "fn1", "fn0", "fn3"}},
		{"new", "1d", []string{"fn4", "fn2", "fn1", "fn0", "fn3"}},
		{"freq", "1d", []string{"fn3", "fn2", "fn1", "fn0", "fn4"}},
		{"date", "90m", []string{"fn4", "fn2", "fn1", "fn0"}},
		{"date", "30m", []string{"fn4"}},
	} {
		res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Sort: tc.sort, StatsPeriod: tc.period})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, culprits(res)); diff != "" {
			t.Errorf("sort=%s statsPeriod=%s (-want +got):\n%s", tc.sort, tc.period, diff)
		}
	}
	// Counts are events in the window.
	res, _ := store.SearchIssues(ctx, backend.SearchIssuesInput{Sort: "freq", Start: now.Add(-3 * time.Hour).Format(time.RFC3339), End: now.Add(-90 * time.Minute).Format(time.RFC3339)})
	if diff := cmp.Diff([]string{"fn3"}, culprits(res)); diff != "" || res.Issues[0].Count != 5 {
		t.Errorf("absolute window: %v (-want +got):\n%s", res.Issues, diff)
	}

	// Pages of two: 2 + 2 + 1, each page bound to its query.
	var pages [][]string
	cursor := ""
	for range 5 {
		res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Sort: "freq", Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, culprits(res))
		if res.NextCursor == "" {
			if res.Truncated {
				t.Error("last page marked truncated")
			}
			break
		}
		if !res.Truncated || !strings.Contains(res.Hint, "more issues match") {
			t.Errorf("page with a next cursor: truncated=%v hint=%q", res.Truncated, res.Hint)
		}
		cursor = res.NextCursor
		if _, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Sort: "date", Limit: 2, Cursor: cursor}); !errors.Is(err, backend.ErrInvalidInput) {
			t.Errorf("cursor reused with another sort: %v, want ErrInvalidInput", err)
		}
	}
	if diff := cmp.Diff([][]string{{"fn3", "fn2"}, {"fn1", "fn0"}, {"fn4"}}, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if _, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Cursor: "not-a-cursor!"}); !errors.Is(err, backend.ErrInvalidInput) {
		t.Errorf("forged cursor: %v, want ErrInvalidInput", err)
	}
	if _, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Organization: "acme"}); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown organization: %v, want ErrNotFound", err)
	}
	ps, err := store.ListProjects(ctx, backend.ListProjectsInput{})
	if err != nil || len(ps.Projects) != 1 || ps.Projects[0].ID != "42" || ps.Projects[0].Issues != 5 || ps.Projects[0].Events != 12 {
		t.Errorf("ListProjects = %+v, %v; want project 42 with 5 issues and 12 events", ps, err)
	}
}

func TestLocalIssueLookupsAndTagValuePages(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	ingestTestEvents(t, store, 1, 30, func(i int) (string, string, map[string]string) {
		return "E", "pay", map[string]string{"shard": fmt.Sprintf("s%02d", i%7), "secret_token": "abc"}
	})
	ctx := context.Background()
	res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{})
	if err != nil || len(res.Issues) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	is := res.Issues[0]
	byShort, err := store.GetIssue(ctx, backend.GetIssueInput{IssueID: strings.ToLower(is.ShortID)})
	if err != nil || byShort.ID != is.ID {
		t.Fatalf("lookup by short id %s: %v", is.ShortID, err)
	}
	for _, ts := range byShort.Tags {
		if ts.Key == "secret_token" && (len(ts.TopValues) != 1 || ts.TopValues[0].Value != event.Redacted) {
			t.Errorf("secret-looking tag stored as %+v, want its value redacted", ts.TopValues)
		}
	}
	var all []string
	cursor := ""
	for range 10 {
		tv, err := store.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: is.ID, Key: "shard", Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tv.Values {
			all = append(all, fmt.Sprintf("%s=%d", v.Value, v.Count))
		}
		if tv.TotalValues != 30 || tv.UniqueValues != 7 {
			t.Errorf("totals %d/%d, want 30/7", tv.TotalValues, tv.UniqueValues)
		}
		if cursor = tv.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{"s01=5", "s02=5", "s00=4", "s03=4", "s04=4", "s05=4", "s06=4"}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("tag values most frequent first, across pages (-want +got):\n%s", diff)
	}
	if _, err := store.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: is.ID, Key: "nope"}); !errors.Is(err, backend.ErrNotFound) || !strings.Contains(err.Error(), "shard") {
		t.Errorf("unknown tag: %v, want ErrNotFound listing the issue's tags", err)
	}
	if _, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: is.ID, EventID: hexID(999)}); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown event: %v, want ErrNotFound", err)
	}
	oldest, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: is.ID, EventID: "oldest"})
	if err != nil || oldest.ID != hexID(1) {
		t.Errorf("oldest = %v, %v; want %s", oldest, err, hexID(1))
	}
	if _, err := store.GetIssue(ctx, backend.GetIssueInput{IssueID: "../etc"}); !errors.Is(err, backend.ErrInvalidInput) {
		t.Errorf("path-like issue id: %v, want ErrInvalidInput", err)
	}
}

func TestLocalRetentionDropsOldestAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	store := openTestStore(t, dir, func(c *LocalConfig) { c.MaxTotalBytes = 256 << 10 })
	// Early events in their own issue, later ones in another: retention must empty the first.
	ingestTestEvents(t, store, 1, 100, func(int) (string, string, map[string]string) { return "Old", "early", nil })
	for i := range 20 {
		ingestTestEvents(t, store, 1000+i*50, 50, func(int) (string, string, map[string]string) { return "New", "late", nil })
	}
	ctx := context.Background()
	res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	var kept int64
	for _, is := range res.Issues {
		titles = append(titles, is.Type)
		kept += is.Count
	}
	if diff := cmp.Diff([]string{"New"}, titles); diff != "" {
		t.Errorf("issues after retention (-want +got):\n%s", diff)
	}
	dropped := store.retentionStats(ctx).DroppedEvents
	if dropped == 0 || int64(dropped)+kept != 1100 {
		t.Errorf("dropped %d + kept %d != 1100 ingested", dropped, kept)
	}
	if !strings.Contains(res.Notice, fmt.Sprintf("%d events were dropped by retention", dropped)) || !strings.Contains(res.Notice, "byte limit") {
		t.Errorf("notice = %q", res.Notice)
	}
	if used, err := usedBytes(ctx, store.db); err != nil || used > 256<<10 {
		t.Errorf("store holds %d bytes (%v), limit %d", used, err, 256<<10)
	}
	var pages, free int64
	store.db.QueryRow(`PRAGMA page_count`).Scan(&pages)
	store.db.QueryRow(`PRAGMA freelist_count`).Scan(&free)
	if pages*4096 > 300<<10 || free > pages/4 {
		t.Errorf("database of %d pages with %d free after retention: the file does not shrink", pages, free)
	}
	if kept+dropped != store.eventCount(t)+dropped || store.eventCount(t) != kept {
		t.Errorf("%d events stored, %d counted in issues", store.eventCount(t), kept)
	}
	store.Close()
	reopened := openTestStore(t, dir, func(c *LocalConfig) { c.MaxTotalBytes = 256 << 10 })
	defer reopened.Close()
	res2, err := reopened.SearchIssues(ctx, backend.SearchIssuesInput{})
	if err != nil || len(res2.Issues) != 1 || res2.Issues[0].Count != kept || res2.Notice != res.Notice {
		t.Errorf("after reopen: %+v, %v; want the same issue, count %d and notice", res2, err, kept)
	}
}

func TestLocalRetentionByAge(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.MaxAge = 24 * time.Hour; c.Now = clock })
	defer store.Close()
	ingestTestEvents(t, store, 1, 10, func(int) (string, string, map[string]string) { return "E", "a", nil })
	mu.Lock()
	now = now.Add(25 * time.Hour)
	mu.Unlock()
	store.enforceRetention()
	ingestTestEvents(t, store, 100, 2, func(int) (string, string, map[string]string) { return "E", "b", nil })
	res, err := store.SearchIssues(context.Background(), backend.SearchIssuesInput{StatsPeriod: "30d"})
	if err != nil {
		t.Fatal(err)
	}
	dropped := store.retentionStats(context.Background()).DroppedEvents
	if len(res.Issues) != 1 || res.Issues[0].Culprit != "shop/checkout in b" || dropped != 10 || !strings.Contains(res.Notice, "age limit") {
		t.Errorf("after the age limit: issues %+v, dropped %d, notice %q", res.Issues, dropped, res.Notice)
	}
}

func TestOpenLocalConfigErrors(t *testing.T) {
	if _, err := OpenLocal(LocalConfig{PublicKeys: []string{"k"}}); !errors.Is(err, backend.ErrConfig) {
		t.Errorf("no data dir: %v", err)
	}
	if _, err := OpenLocal(LocalConfig{DataDir: t.TempDir(), PublicKeys: []string{" "}}); !errors.Is(err, backend.ErrConfig) {
		t.Errorf("no key: %v", err)
	}
	dir := t.TempDir()
	s := openTestStore(t, dir)
	defer s.Close()
	if _, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{"k"}, Logger: quietLogger}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second store on one directory: %v, want 'in use'", err)
	}
}

// TestStoreSchemaVersion: a new store is at the current schema version; a store
// written by a newer version, or a file that is not a database, is refused with a
// message that says what to do; readers in other processes open the store at once.
func TestStoreSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("user_version %d, %v; want %d", v, err, SchemaVersion)
	}
	if err := s.db.QueryRow(`PRAGMA auto_vacuum`).Scan(&v); err != nil || v != 2 {
		t.Fatalf("auto_vacuum %d, %v; want 2 (incremental), so that retention can shrink the file", v, err)
	}
	reader, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger})
	if err != nil {
		t.Fatalf("a reader beside the writer: %v", err)
	}
	reader.Close()
	if _, err := s.wdb.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := OpenLocal(LocalConfig{DataDir: dir, PublicKeys: []string{testKey}, Logger: quietLogger}); !errors.Is(err, backend.ErrConfig) || !strings.Contains(err.Error(), "newer than this server's") {
		t.Errorf("a store of a newer version: %v; want a refusal that says so", err)
	}

	junk := t.TempDir()
	if err := os.WriteFile(filepath.Join(junk, DatabaseFile), bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLocal(LocalConfig{DataDir: junk, PublicKeys: []string{testKey}, Logger: quietLogger}); err == nil || !strings.Contains(err.Error(), "move it out of the data directory") {
		t.Errorf("a file that is not a database: %v; want a refusal that says what to do", err)
	}
}

// TestLocalReaderTagCountsIncludeUncounted: the writing process counts tags a moment
// after the commit (pendingTags); a reader in another process must still see every
// event in get_issue's tag summary (everyEvent) and in get_tag_values, not the part
// counted so far (13 of 30).
func TestLocalReaderTagCountsIncludeUncounted(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	w := openTestStore(t, dir, func(c *LocalConfig) { c.Now = func() time.Time { return now }; c.countTagsAfter = time.Hour })
	defer w.Close()
	tags := func(i int) (string, string, map[string]string) {
		return "E", "pay", map[string]string{"currency": "EUR", "shard": fmt.Sprint("s", i%4), "user": fmt.Sprint("id:u", i%5)}
	}
	ingestTestEvents(t, w, 1, 13, tags)
	w.syncTags(context.Background()) // the first 13 counted
	ingestTestEvents(t, w, 14, 17, tags)
	var counted int64
	if err := w.db.QueryRow(`SELECT total FROM issue_tag_keys WHERE key = 'currency'`).Scan(&counted); err != nil || counted != 13 {
		t.Fatalf("counted before the reader asks: %d, %v; want 13 (the test holds the rest)", counted, err)
	}
	reader, err := OpenLocal(LocalConfig{DataDir: dir, ReadOnly: true, Logger: quietLogger, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ctx := context.Background()
	list, err := reader.SearchIssues(ctx, backend.SearchIssuesInput{Query: "currency:EUR"})
	if err != nil || len(list.Issues) != 1 {
		t.Fatalf("search: %+v, %v", list, err)
	}
	id := list.Issues[0].ID
	if list.Issues[0].Count != 30 || list.Issues[0].UserCount != 5 {
		t.Errorf("search: %d events of %d users; want 30 of 5", list.Issues[0].Count, list.Issues[0].UserCount)
	}
	p := backend.NewPresenter(reader, nil, nil, "", func() time.Time { return now })
	d, err := p.GetIssue(ctx, backend.GetIssueInput{IssueID: id})
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 30 || d.UserCount != 5 || d.EveryEvent["currency"] != "EUR" {
		t.Errorf("get_issue: count %d, users %d, everyEvent %v, tags %+v; want currency=EUR on every one of 30 events, 5 users", d.Count, d.UserCount, d.EveryEvent, d.Tags)
	}
	for _, ts := range d.Tags {
		if ts.Key == "shard" && (ts.TotalValues != 30 || ts.UniqueValues != 4) {
			t.Errorf("get_issue shard summary: %+v; want 30 events, 4 values", ts)
		}
	}
	for _, key := range []string{"currency", "shard"} {
		tv, err := reader.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: id, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, v := range tv.Values {
			sum += v.Count
		}
		if tv.TotalValues != 30 || sum != 30 {
			t.Errorf("get_tag_values %s: total %d, values %+v; want all 30 events counted", key, tv.TotalValues, tv.Values)
		}
	}
	page, err := reader.GetTagValues(ctx, backend.GetTagValuesInput{IssueID: id, Key: "shard", Limit: 3})
	if err != nil || len(page.Values) != 3 || page.NextCursor == "" || page.Values[0].Value != "s1" || page.Values[0].Count != 8 {
		t.Errorf("get_tag_values shard, 3 a page: %+v, %v; want s1 (8 events) first and a cursor", page, err)
	}
}
