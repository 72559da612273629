package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults used when Options leaves a field zero.
const (
	DefaultMaxSegmentBytes = 16 << 20
	minSegmentBytes        = 4 << 10
)

var (
	// ErrClosed is returned by Append after Close.
	ErrClosed = errors.New("event log is closed")
	// ErrDropped is returned by Read for a record whose segment retention removed.
	ErrDropped = errors.New("record was dropped by retention")
)

// Options configures a Log. Zero values mean: default segment size, no byte limit,
// no age limit, the real clock, the default logger.
type Options struct {
	// MaxSegmentBytes starts a new segment once the active one would grow past it.
	// Retention works in whole segments, so this is also its granularity.
	MaxSegmentBytes int64
	// MaxTotalBytes drops the oldest segments while the log is larger. 0: no limit.
	MaxTotalBytes int64
	// MaxAge drops a segment once its newest record is older. 0: no limit.
	MaxAge time.Duration
	// Now is the clock used for retention; tests move it.
	Now func() time.Time
	// Logger receives replay, truncation and retention reports.
	Logger *slog.Logger
	// OnDrop is told about every segment that retention removed, after its records
	// became unreadable. It runs on the log's writer and must not call Append.
	OnDrop func(Dropped)
}

// Pos locates one record: its segment, the offset of its frame in the segment file
// and the payload length.
type Pos struct {
	Segment uint64
	Offset  int64
	Length  uint32
}

// Entry is one record to append.
type Entry struct {
	Time    time.Time
	Payload []byte
}

// Record is a record read back on replay. Payload is only valid during the callback.
type Record struct {
	Pos     Pos
	Time    time.Time
	Payload []byte
}

// Dropped describes a segment removed by retention.
type Dropped struct {
	Segment uint64
	Records int
	Bytes   int64
	Oldest  time.Time
	Newest  time.Time
	Reason  string
}

// ReplayStats says what Open found.
type ReplayStats struct {
	Segments int
	Records  int
	// TruncatedBytes were cut from the end of the last segment: a write torn by a crash.
	TruncatedBytes int64
	// DamagedSegments are older segments whose reading stopped at a damaged record.
	DamagedSegments []uint64
}

// Stats is the log's current size, and how many fsyncs acknowledged how many appends
// since Open (their ratio shows how well group commit batches).
type Stats struct {
	Segments int
	Records  int
	Bytes    int64
	Syncs    int64
	Appends  int64
}

type segment struct {
	seq     uint64
	name    string
	f       *os.File
	size    int64
	records int
	oldest  time.Time
	newest  time.Time
}

type appendReq struct {
	entries []Entry
	commit  func([]Pos)
	done    chan error
}

// Log is an append-only, segmented, crash-safe record log. It is safe for concurrent use.
type Log struct {
	root   *os.Root
	lock   *os.File
	opts   Options
	logger *slog.Logger

	// segMu guards segs and bySeq for readers; the writer changes them only while
	// also holding wmu.
	segMu sync.RWMutex
	segs  []*segment
	bySeq map[uint64]*segment

	// wmu serialises everything that writes: commits, rotation, retention.
	wmu     sync.Mutex
	total   int64
	failed  error
	buf     []byte
	syncs   int64
	appends int64

	closeMu sync.RWMutex
	closed  bool
	reqs    chan *appendReq
	quit    chan struct{}
	stopped chan struct{}
}

// Open opens (creating if needed) the log in dir, calls replay for every intact record
// in order, truncates a torn tail of the last segment, and starts the committer.
func Open(dir string, opts Options, replay func(Record)) (*Log, ReplayStats, error) {
	var stats ReplayStats
	if opts.MaxSegmentBytes <= 0 {
		opts.MaxSegmentBytes = DefaultMaxSegmentBytes
	}
	if opts.MaxTotalBytes > 0 && opts.MaxSegmentBytes > opts.MaxTotalBytes/4 {
		// Retention needs several segments under the byte limit to drop the oldest.
		opts.MaxSegmentBytes = max(opts.MaxTotalBytes/4, minSegmentBytes)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, stats, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, stats, fmt.Errorf("open data directory %s: %w", dir, err)
	}
	lock, err := root.OpenFile("LOCK", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		root.Close()
		return nil, stats, fmt.Errorf("open lock file in %s: %w", dir, err)
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		root.Close()
		return nil, stats, fmt.Errorf("data directory %s is in use by another process (%v): give each server its own data directory", dir, err)
	}
	l := &Log{
		root:    root,
		lock:    lock,
		opts:    opts,
		logger:  opts.Logger,
		bySeq:   map[uint64]*segment{},
		reqs:    make(chan *appendReq, 256),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	if err := l.replay(&stats, replay); err != nil {
		l.closeFiles()
		return nil, stats, err
	}
	if len(l.segs) == 0 {
		if err := l.addSegment(1); err != nil {
			l.closeFiles()
			return nil, stats, err
		}
	}
	stats.Segments = len(l.segs)
	go l.committer()
	l.wmu.Lock()
	l.enforceRetentionLocked()
	l.wmu.Unlock()
	return l, stats, nil
}

func segmentName(seq uint64) string { return fmt.Sprintf("%020d.seg", seq) }

func parseSegmentName(name string) (uint64, bool) {
	base, ok := strings.CutSuffix(name, ".seg")
	if !ok || len(base) != 20 {
		return 0, false
	}
	seq, err := strconv.ParseUint(base, 10, 64)
	return seq, err == nil && seq > 0
}

func (l *Log) listSegments() ([]uint64, error) {
	d, err := l.root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("list data directory: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list data directory: %w", err)
	}
	var seqs []uint64
	for _, n := range names {
		if seq, ok := parseSegmentName(n); ok {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

func (l *Log) replay(stats *ReplayStats, fn func(Record)) error {
	seqs, err := l.listSegments()
	if err != nil {
		return err
	}
	for i, seq := range seqs {
		last := i == len(seqs)-1
		name := segmentName(seq)
		f, err := l.root.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("open segment %s: %w", name, err)
		}
		data, err := readWhole(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("read segment %s: %w", name, err)
		}
		if len(data) < len(segmentMagic) && segmentMagic[:len(data)] == string(data) {
			// A crash between creating the file and writing its magic: nothing in it.
			if !last {
				f.Close()
				l.logger.Warn("event log: removing an empty segment", "segment", name)
				if err := l.root.Remove(name); err != nil {
					return fmt.Errorf("remove empty segment %s: %w", name, err)
				}
				continue
			}
			if err := f.Truncate(0); err == nil {
				_, err = f.WriteAt([]byte(segmentMagic), 0)
				if err == nil {
					err = f.Sync()
				}
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("repair segment %s: %w", name, err)
			}
			data = []byte(segmentMagic)
		}
		if string(data[:len(segmentMagic)]) != segmentMagic {
			f.Close()
			return fmt.Errorf("segment %s does not start with this server's segment header: it was not written by this event log; move it out of the data directory", name)
		}
		seg := &segment{seq: seq, name: name, f: f, size: int64(len(data))}
		off := len(segmentMagic)
		for off < len(data) {
			payload, t, size, err := decodeRecord(data[off:])
			if err != nil {
				if last {
					cut := int64(len(data) - off)
					l.logger.Warn("event log: truncating a torn write at the end of the last segment",
						"segment", name, "offset", off, "bytes", cut, "reason", err.Error())
					if err := f.Truncate(int64(off)); err != nil {
						f.Close()
						return fmt.Errorf("truncate torn tail of %s: %w", name, err)
					}
					if err := f.Sync(); err != nil {
						f.Close()
						return fmt.Errorf("sync %s after truncation: %w", name, err)
					}
					stats.TruncatedBytes += cut
					seg.size = int64(off)
				} else {
					l.logger.Error("event log: damaged record in an older segment; the records after it in that segment are unreadable",
						"segment", name, "offset", off, "reason", err.Error())
					stats.DamagedSegments = append(stats.DamagedSegments, seq)
				}
				break
			}
			fn(Record{Pos: Pos{Segment: seq, Offset: int64(off), Length: uint32(len(payload))}, Time: t, Payload: payload})
			seg.records++
			if seg.oldest.IsZero() || t.Before(seg.oldest) {
				seg.oldest = t
			}
			if t.After(seg.newest) {
				seg.newest = t
			}
			stats.Records++
			off += size
		}
		l.segs = append(l.segs, seg)
		l.bySeq[seq] = seg
		l.total += seg.size
	}
	return nil
}

// readWhole reads a segment in one allocation of its size.
func readWhole(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err == io.ErrUnexpectedEOF {
		err = nil // the file shrank while we read it: use what is there
	}
	return data[:n], err
}

// addSegment creates segment seq, writes its magic durably and makes it active.
// The caller holds wmu (or is Open).
func (l *Log) addSegment(seq uint64) error {
	name := segmentName(seq)
	f, err := l.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create segment %s: %w", name, err)
	}
	if _, err := f.WriteAt([]byte(segmentMagic), 0); err != nil {
		f.Close()
		return fmt.Errorf("write segment %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync segment %s: %w", name, err)
	}
	if err := l.syncDir(); err != nil {
		f.Close()
		return err
	}
	seg := &segment{seq: seq, name: name, f: f, size: int64(len(segmentMagic))}
	l.segMu.Lock()
	l.segs = append(l.segs, seg)
	l.bySeq[seq] = seg
	l.segMu.Unlock()
	l.total += seg.size
	return nil
}

// syncDir makes creations and removals of segment files durable.
func (l *Log) syncDir() error {
	d, err := l.root.Open(".")
	if err != nil {
		return fmt.Errorf("open data directory for sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync data directory: %w", err)
	}
	return nil
}

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

// Append writes entries as consecutive records, waits until they are on disk, then
// calls commit with their positions (on the log's writer, in log order, before any
// later Append's commit) and returns. On error nothing is acknowledged; the records
// may still have been written (at-least-once).
func (l *Log) Append(ctx context.Context, entries []Entry, commit func([]Pos)) error {
	for _, e := range entries {
		if len(e.Payload) > MaxRecordBytes {
			return fmt.Errorf("record of %d bytes is over the %d byte limit", len(e.Payload), MaxRecordBytes)
		}
	}
	r := &appendReq{entries: entries, commit: commit, done: make(chan error, 1)}
	l.closeMu.RLock()
	if l.closed {
		l.closeMu.RUnlock()
		return ErrClosed
	}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		l.closeMu.RUnlock()
		return ctx.Err()
	}
	l.closeMu.RUnlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// committer takes whatever requests are waiting, writes them together and syncs once.
func (l *Log) committer() {
	defer close(l.stopped)
	for {
		select {
		case r := <-l.reqs:
			l.commitBatch(l.gather(r))
		case <-l.quit:
			for {
				select {
				case r := <-l.reqs:
					l.commitBatch(l.gather(r))
				default:
					return
				}
			}
		}
	}
}

func (l *Log) gather(first *appendReq) []*appendReq {
	batch := []*appendReq{first}
	for len(batch) < 1024 {
		select {
		case r := <-l.reqs:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// pending is the part of a batch not yet written to the active segment.
type pending struct {
	buf     []byte
	records int
	oldest  time.Time
	newest  time.Time
}

func (l *Log) flush(p *pending, sync bool) error {
	seg := l.active()
	if len(p.buf) > 0 {
		if _, err := seg.f.WriteAt(p.buf, seg.size); err != nil {
			return fmt.Errorf("write segment %s: %w", seg.name, err)
		}
	}
	if sync {
		if err := seg.f.Sync(); err != nil {
			return fmt.Errorf("sync segment %s: %w", seg.name, err)
		}
		l.syncs++
	}
	seg.size += int64(len(p.buf))
	l.total += int64(len(p.buf))
	seg.records += p.records
	if p.records > 0 {
		if seg.oldest.IsZero() || p.oldest.Before(seg.oldest) {
			seg.oldest = p.oldest
		}
		if p.newest.After(seg.newest) {
			seg.newest = p.newest
		}
	}
	*p = pending{buf: p.buf[:0]}
	return nil
}

func (l *Log) commitBatch(batch []*appendReq) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.failed != nil {
		for _, r := range batch {
			r.done <- fmt.Errorf("event log stopped accepting writes after an earlier write error (%v); restart the server", l.failed)
		}
		return
	}
	p := pending{buf: l.buf[:0]}
	need := 0
	for _, r := range batch {
		for _, e := range r.entries {
			need += recordHeaderSize + len(e.Payload)
		}
	}
	p.buf = slices.Grow(p.buf, min(need, int(l.opts.MaxSegmentBytes)))
	positions := make([][]Pos, len(batch))
	err := func() error {
		for i, r := range batch {
			positions[i] = make([]Pos, len(r.entries))
			for j, e := range r.entries {
				framed := int64(recordHeaderSize + len(e.Payload))
				seg := l.active()
				if seg.records+p.records > 0 && seg.size+int64(len(p.buf))+framed > l.opts.MaxSegmentBytes {
					if err := l.flush(&p, true); err != nil {
						return err
					}
					if err := l.addSegment(seg.seq + 1); err != nil {
						return err
					}
					seg = l.active()
				}
				positions[i][j] = Pos{Segment: seg.seq, Offset: seg.size + int64(len(p.buf)), Length: uint32(len(e.Payload))}
				p.buf = encodeRecord(p.buf, e.Time, e.Payload)
				if p.records == 0 || e.Time.Before(p.oldest) {
					p.oldest = e.Time
				}
				if e.Time.After(p.newest) {
					p.newest = e.Time
				}
				p.records++
			}
		}
		return l.flush(&p, true)
	}()
	if cap(p.buf) <= 4<<20 {
		l.buf = p.buf[:0]
	} else {
		l.buf = nil
	}
	if err != nil {
		// After a failed write or fsync the file's state is unknown: stop writing
		// rather than acknowledge events that might not be there.
		l.failed = err
		l.logger.Error("event log write failed; refusing further writes until restart", "error", err.Error())
		for _, r := range batch {
			r.done <- fmt.Errorf("could not store durably: %w", err)
		}
		return
	}
	l.appends += int64(len(batch))
	for i, r := range batch {
		if r.commit != nil {
			r.commit(positions[i])
		}
	}
	// Retention runs before the acknowledgements, so that when Append returns the log
	// is back within its limits (it only costs time when a segment is actually dropped).
	l.enforceRetentionLocked()
	for _, r := range batch {
		r.done <- nil
	}
}

// Read returns the payload of the record at p, verifying its checksum.
func (l *Log) Read(p Pos) ([]byte, error) {
	buf := make([]byte, recordHeaderSize+int(p.Length))
	l.segMu.RLock()
	seg := l.bySeq[p.Segment]
	if seg == nil {
		l.segMu.RUnlock()
		return nil, ErrDropped
	}
	_, err := seg.f.ReadAt(buf, p.Offset)
	l.segMu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("read record at %s offset %d: %w", segmentName(p.Segment), p.Offset, err)
	}
	payload, _, _, err := decodeRecord(buf)
	if err != nil {
		return nil, fmt.Errorf("read record at %s offset %d: %w", segmentName(p.Segment), p.Offset, err)
	}
	if len(payload) != int(p.Length) {
		return nil, fmt.Errorf("read record at %s offset %d: length %d, expected %d", segmentName(p.Segment), p.Offset, len(payload), p.Length)
	}
	return payload, nil
}

// Stats reports the log's size now.
func (l *Log) Stats() Stats {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	s := Stats{Segments: len(l.segs), Bytes: l.total, Syncs: l.syncs, Appends: l.appends}
	for _, seg := range l.segs {
		s.Records += seg.records
	}
	return s
}

// Close commits what is queued, syncs and closes every file and releases the lock.
func (l *Log) Close() error {
	l.closeMu.Lock()
	if l.closed {
		l.closeMu.Unlock()
		return nil
	}
	l.closed = true
	l.closeMu.Unlock()
	close(l.quit)
	<-l.stopped
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var errs []error
	if l.failed == nil && len(l.segs) > 0 {
		if err := l.active().f.Sync(); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, l.closeFiles())
	return errors.Join(errs...)
}

func (l *Log) closeFiles() error {
	var errs []error
	l.segMu.Lock()
	for _, s := range l.segs {
		errs = append(errs, s.f.Close())
	}
	l.segs = nil
	l.bySeq = map[uint64]*segment{}
	l.segMu.Unlock()
	errs = append(errs, l.lock.Close(), l.root.Close())
	return errors.Join(errs...)
}
