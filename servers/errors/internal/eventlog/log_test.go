package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type replayed struct {
	Pos     Pos
	Payload string
}

func openLog(t testing.TB, dir string, opts Options) (*Log, []replayed, ReplayStats) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	var got []replayed
	l, stats, err := Open(dir, opts, func(r Record) {
		got = append(got, replayed{r.Pos, string(r.Payload)})
	})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return l, got, stats
}

func appendAll(t *testing.T, l *Log, payloads ...string) []Pos {
	t.Helper()
	entries := make([]Entry, len(payloads))
	for i, p := range payloads {
		entries[i] = Entry{Time: time.Unix(1700000000, int64(i)), Payload: []byte(p)}
	}
	var got []Pos
	if err := l.Append(context.Background(), entries, func(p []Pos) { got = p }); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(got) != len(payloads) {
		t.Fatalf("commit got %d positions for %d entries", len(got), len(payloads))
	}
	return got
}

func payloadsOf(rs []replayed) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Payload)
	}
	return out
}

func TestAppendReadReplayRoundTrip(t *testing.T) {
	dir := t.TempDir()
	l, got, _ := openLog(t, dir, Options{})
	if len(got) != 0 {
		t.Fatalf("fresh log replayed %d records", len(got))
	}
	want := []string{"first", "", "third record with\nnewlines\x00and NUL", strings.Repeat("x", 100000)}
	var positions []Pos
	for _, p := range want {
		positions = append(positions, appendAll(t, l, p)...)
	}
	for i, p := range positions {
		b, err := l.Read(p)
		if err != nil {
			t.Fatalf("Read(%v): %v", p, err)
		}
		if string(b) != want[i] {
			t.Errorf("Read(%v) = %q, want %q", p, b, want[i])
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, got, stats := openLog(t, dir, Options{})
	defer l.Close()
	if diff := cmp.Diff(want, payloadsOf(got)); diff != "" {
		t.Errorf("replay after reopen (-want +got):\n%s", diff)
	}
	for i, r := range got {
		if r.Pos != positions[i] {
			t.Errorf("record %d replayed at %v, was appended at %v", i, r.Pos, positions[i])
		}
	}
	if stats.TruncatedBytes != 0 || len(stats.DamagedSegments) != 0 {
		t.Errorf("clean log reported damage: %+v", stats)
	}
}

func lastSegmentPath(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no segments in %s: %v", dir, err)
	}
	return m[len(m)-1]
}

func TestTornTailIsTruncatedAndEarlierRecordsKept(t *testing.T) {
	cases := []struct {
		name string
		// damage the file holding three records; the third starts at offset third
		damage func(t *testing.T, path string, third int64, size int64)
	}{
		{"cut inside the header", func(t *testing.T, path string, third, size int64) {
			truncate(t, path, third+7)
		}},
		{"cut inside the payload", func(t *testing.T, path string, third, size int64) {
			truncate(t, path, size-3)
		}},
		{"garbage appended after a whole record", func(t *testing.T, path string, third, size int64) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("\x05\x00\x00\x00garbage"))
			f.Close()
		}},
		{"flipped payload byte in the last record", func(t *testing.T, path string, third, size int64) {
			flip(t, path, size-2)
		}},
		{"length field beyond the limit", func(t *testing.T, path string, third, size int64) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte{0xff, 0xff, 0xff, 0x7f}, third)
			f.Close()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, _, _ := openLog(t, dir, Options{})
			pos := appendAll(t, l, "one", "two")
			third := appendAll(t, l, "three")[0]
			l.Close()
			path := lastSegmentPath(t, dir)
			fi, _ := os.Stat(path)
			tc.damage(t, path, third.Offset, fi.Size())

			l, got, stats := openLog(t, dir, Options{})
			wantKept := []string{"one", "two"}
			if tc.name == "garbage appended after a whole record" {
				wantKept = []string{"one", "two", "three"}
			}
			if diff := cmp.Diff(wantKept, payloadsOf(got)); diff != "" {
				t.Errorf("records kept (-want +got):\n%s", diff)
			}
			if stats.TruncatedBytes == 0 {
				t.Errorf("TruncatedBytes = 0, want the torn tail reported")
			}
			for i, p := range pos {
				if b, err := l.Read(p); err != nil || string(b) != wantKept[i] {
					t.Errorf("Read(%v) = %q, %v", p, b, err)
				}
			}
			appendAll(t, l, "four")
			l.Close()
			l, got, stats = openLog(t, dir, Options{})
			defer l.Close()
			if diff := cmp.Diff(append(wantKept, "four"), payloadsOf(got)); diff != "" {
				t.Errorf("after repair and a new append (-want +got):\n%s", diff)
			}
			if stats.TruncatedBytes != 0 {
				t.Errorf("second reopen truncated %d more bytes", stats.TruncatedBytes)
			}
		})
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func TestDamageInAnOlderSegmentKeepsLaterSegments(t *testing.T) {
	dir := t.TempDir()
	opts := Options{MaxSegmentBytes: minSegmentBytes}
	l, _, _ := openLog(t, dir, opts)
	big := strings.Repeat("a", 1500)
	var want []string
	var positions []Pos
	for i := range 8 {
		p := fmt.Sprintf("%d%s", i, big)
		want = append(want, p)
		positions = append(positions, appendAll(t, l, p)...)
	}
	l.Close()
	if positions[0].Segment == positions[len(positions)-1].Segment {
		t.Fatalf("test needs several segments, all records landed in %d", positions[0].Segment)
	}
	// Damage the second record of the first segment.
	second := positions[1]
	if second.Segment != positions[0].Segment {
		t.Fatalf("first segment holds one record only")
	}
	flip(t, filepath.Join(dir, segmentName(second.Segment)), second.Offset+recordHeaderSize+10)

	l, got, stats := openLog(t, dir, opts)
	defer l.Close()
	var wantKept []string
	for i, p := range positions {
		if p.Segment == second.Segment && i >= 1 {
			continue
		}
		wantKept = append(wantKept, want[i])
	}
	if diff := cmp.Diff(wantKept, payloadsOf(got)); diff != "" {
		t.Errorf("records kept (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{second.Segment}, stats.DamagedSegments); diff != "" {
		t.Errorf("DamagedSegments (-want +got):\n%s", diff)
	}
}

func TestForeignSegmentFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, segmentName(1)), []byte("not ours at all, keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := Open(dir, Options{Logger: quiet}, func(Record) {})
	if err == nil || !strings.Contains(err.Error(), "not written by this event log") {
		t.Fatalf("Open = %v, want a refusal naming the foreign segment", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, segmentName(1)))
	if string(b) != "not ours at all, keep me" {
		t.Errorf("foreign file was modified: %q", b)
	}
}

func TestEmptyLastSegmentFromACrashedCreation(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := openLog(t, dir, Options{})
	appendAll(t, l, "kept")
	l.Close()
	if err := os.WriteFile(filepath.Join(dir, segmentName(2)), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, got, _ := openLog(t, dir, Options{})
	appendAll(t, l, "after")
	l.Close()
	l, got, _ = openLog(t, dir, Options{})
	defer l.Close()
	if diff := cmp.Diff([]string{"kept", "after"}, payloadsOf(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSecondOpenOfTheSameDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := openLog(t, dir, Options{})
	defer l.Close()
	_, _, err := Open(dir, Options{Logger: quiet}, func(Record) {})
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second Open = %v, want 'in use by another process'", err)
	}
}

func TestAppendAfterCloseFails(t *testing.T) {
	l, _, _ := openLog(t, t.TempDir(), Options{})
	l.Close()
	err := l.Append(context.Background(), []Entry{{Payload: []byte("x")}}, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
}

func TestRetentionByBytesDropsOldestSegmentsFirst(t *testing.T) {
	dir := t.TempDir()
	var drops []Dropped
	opts := Options{MaxTotalBytes: 64 << 10, OnDrop: func(d Dropped) { drops = append(drops, d) }}
	l, _, _ := openLog(t, dir, opts)
	rec := strings.Repeat("r", 1000)
	var positions []Pos
	for i := range 200 {
		positions = append(positions, appendAll(t, l, fmt.Sprintf("%03d%s", i, rec))...)
	}
	st := l.Stats()
	if st.Bytes > opts.MaxTotalBytes {
		t.Errorf("log holds %d bytes, limit %d", st.Bytes, opts.MaxTotalBytes)
	}
	if len(drops) == 0 {
		t.Fatal("no segment was dropped")
	}
	dropped := 0
	for i, d := range drops {
		if d.Reason != ReasonBytes {
			t.Errorf("drop %d reason %q, want %q", i, d.Reason, ReasonBytes)
		}
		if i > 0 && d.Segment <= drops[i-1].Segment {
			t.Errorf("drops out of order: %d after %d", d.Segment, drops[i-1].Segment)
		}
		dropped += d.Records
	}
	if dropped+st.Records != 200 {
		t.Errorf("dropped %d + kept %d != 200 appended", dropped, st.Records)
	}
	if _, err := l.Read(positions[0]); !errors.Is(err, ErrDropped) {
		t.Errorf("Read of a dropped record = %v, want ErrDropped", err)
	}
	if b, err := l.Read(positions[199]); err != nil || !strings.HasPrefix(string(b), "199") {
		t.Errorf("Read of the newest record = %q, %v", b, err)
	}
	l.Close()
	l, got, _ := openLog(t, dir, Options{})
	defer l.Close()
	if len(got) != st.Records || !strings.HasPrefix(got[len(got)-1].Payload, "199") || !strings.HasPrefix(got[0].Payload, fmt.Sprintf("%03d", dropped)) {
		t.Errorf("replay after retention: %d records, first %.3q; want %d records starting at %03d", len(got), got[0].Payload, st.Records, dropped)
	}
}

func TestRetentionByAgeDropsIdleOldSegments(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1700000000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var drops []Dropped
	l, _, _ := openLog(t, dir, Options{MaxAge: time.Hour, Now: clock, OnDrop: func(d Dropped) { drops = append(drops, d) }})
	defer l.Close()
	old := Entry{Time: now.Add(-30 * time.Minute), Payload: []byte("old")}
	var oldPos []Pos
	if err := l.Append(context.Background(), []Entry{old}, func(p []Pos) { oldPos = p }); err != nil {
		t.Fatal(err)
	}
	l.EnforceRetention()
	if len(drops) != 0 {
		t.Fatalf("dropped %v before the age limit", drops)
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	l.EnforceRetention()
	if len(drops) != 1 || drops[0].Reason != ReasonAge || drops[0].Records != 1 {
		t.Fatalf("drops = %+v, want one segment with one record dropped for age", drops)
	}
	if _, err := l.Read(oldPos[0]); !errors.Is(err, ErrDropped) {
		t.Errorf("Read(old) = %v, want ErrDropped", err)
	}
	p := appendAll(t, l, "new")
	if b, err := l.Read(p[0]); err != nil || string(b) != "new" {
		t.Errorf("append after an age drop: %q, %v", b, err)
	}
}

func TestConcurrentAppendsAllCommitInLogOrder(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := openLog(t, dir, Options{MaxSegmentBytes: 64 << 10})
	const writers, each = 16, 40
	var mu sync.Mutex
	var order []Pos
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := Entry{Time: time.Now(), Payload: fmt.Appendf(nil, "w%02d-%03d", w, i)}
				err := l.Append(context.Background(), []Entry{e}, func(p []Pos) {
					mu.Lock()
					order = append(order, p...)
					mu.Unlock()
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := 1; i < len(order); i++ {
		a, b := order[i-1], order[i]
		if b.Segment < a.Segment || (b.Segment == a.Segment && b.Offset <= a.Offset) {
			t.Fatalf("commit %d at %v came after %v: commits out of log order", i, b, a)
		}
	}
	l.Close()
	l, got, _ := openLog(t, dir, Options{})
	defer l.Close()
	if len(got) != writers*each {
		t.Fatalf("replayed %d records, want %d", len(got), writers*each)
	}
	seen := map[string]bool{}
	for _, r := range got {
		seen[r.Payload] = true
	}
	if len(seen) != writers*each {
		t.Errorf("replayed %d distinct records, want %d", len(seen), writers*each)
	}
}

// BenchmarkAppendConcurrent: 32 writers appending one 1 KiB record each per op; the
// appends/fsync metric shows how many acknowledgements one fsync buys.
func BenchmarkAppendConcurrent(b *testing.B) {
	l, _, _ := openLog(b, b.TempDir(), Options{})
	defer l.Close()
	payload := []byte(strings.Repeat("e", 1024))
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Append(context.Background(), []Entry{{Time: time.Now(), Payload: payload}}, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	st := l.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
	b.ReportMetric(float64(st.Appends)/float64(max(st.Syncs, 1)), "appends/fsync")
}

// BenchmarkAppendSerial: one writer, so one fsync per append: the disk's fsync latency.
func BenchmarkAppendSerial(b *testing.B) {
	l, _, _ := openLog(b, b.TempDir(), Options{})
	defer l.Close()
	payload := []byte(strings.Repeat("e", 1024))
	for b.Loop() {
		if err := l.Append(context.Background(), []Entry{{Time: time.Now(), Payload: payload}}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
