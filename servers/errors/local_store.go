package errorserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/eventlog"
)

// Local store defaults.
const (
	DefaultMaxBodyBytes    = 20 << 20
	DefaultMaxTotalBytes   = 1 << 30
	DefaultMaxAge          = 30 * 24 * time.Hour
	DefaultMaxSegmentBytes = eventlog.DefaultMaxSegmentBytes
	retentionInterval      = time.Minute
	retentionFile          = "retention.json"
)

// LocalConfig configures the local event store.
type LocalConfig struct {
	// DataDir holds the event log (DataDir/events) and retention.json. Required.
	DataDir string
	// PublicKeys are the DSN public keys the ingest endpoint accepts (the part before
	// the @ in http://KEY@host/PROJECT). At least one is required.
	PublicKeys []string
	// MaxBodyBytes bounds an ingest request body, compressed and decompressed alike.
	// 0: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxTotalBytes drops the oldest events while the store is larger.
	// 0: DefaultMaxTotalBytes; negative: no limit.
	MaxTotalBytes int64
	// MaxAge drops events older than this (a segment at a time).
	// 0: DefaultMaxAge; negative: no limit.
	MaxAge time.Duration
	// MaxSegmentBytes is the size of one log segment, the unit retention drops.
	// 0: DefaultMaxSegmentBytes.
	MaxSegmentBytes int64
	// Logger receives ingest and retention reports. nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock (tests move it). nil: time.Now.
	Now func() time.Time
}

// retentionStats survive restarts in retention.json, so the tools can still say how
// much history is gone after the process that dropped it has exited.
type retentionStats struct {
	DroppedEvents   int64     `json:"droppedEvents"`
	DroppedSegments int64     `json:"droppedSegments"`
	LastDrop        time.Time `json:"lastDrop,omitzero"`
	LastReason      string    `json:"lastReason,omitempty"`
}

// LocalStore is the embedded event store: an ingest endpoint for Sentry SDKs
// (IngestHandler), a durable event log, an in-memory index, and the Backend methods.
type LocalStore struct {
	cfg    LocalConfig
	logger *slog.Logger
	now    func() time.Time
	keys   [][]byte
	root   *os.Root
	log    *eventlog.Log

	mu           sync.RWMutex
	idx          *index
	ret          retentionStats
	skippedOnLog int

	stop chan struct{}
	done chan struct{}
}

var _ Backend = (*LocalStore)(nil)

// OpenLocal opens (or creates) the store in cfg.DataDir, replays every stored event
// into the index and starts periodic retention.
func OpenLocal(cfg LocalConfig) (*LocalStore, error) {
	if strings.TrimSpace(cfg.DataDir) == "" {
		return nil, fmt.Errorf("%w: the local store needs a data directory (--data DIR)", ErrConfig)
	}
	var keys [][]byte
	for _, k := range cfg.PublicKeys {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, []byte(k))
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: the local store needs at least one DSN public key to accept events with", ErrConfig)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case cfg.MaxTotalBytes == 0:
		cfg.MaxTotalBytes = DefaultMaxTotalBytes
	case cfg.MaxTotalBytes < 0:
		cfg.MaxTotalBytes = 0
	}
	switch {
	case cfg.MaxAge == 0:
		cfg.MaxAge = DefaultMaxAge
	case cfg.MaxAge < 0:
		cfg.MaxAge = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	root, err := os.OpenRoot(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("open data directory: %w", err)
	}
	s := &LocalStore{
		cfg: cfg, logger: cfg.Logger, now: cfg.Now, keys: keys, root: root,
		idx: newIndex(), stop: make(chan struct{}), done: make(chan struct{}),
	}
	if b, err := root.ReadFile(retentionFile); err == nil {
		if err := json.Unmarshal(b, &s.ret); err != nil {
			s.logger.Warn("local store: ignoring an unreadable retention.json", "error", err.Error())
		}
	}
	start := time.Now()
	l, stats, err := eventlog.Open(filepath.Join(cfg.DataDir, "events"), eventlog.Options{
		MaxSegmentBytes: cfg.MaxSegmentBytes,
		MaxTotalBytes:   cfg.MaxTotalBytes,
		MaxAge:          cfg.MaxAge,
		Now:             cfg.Now,
		Logger:          cfg.Logger,
		OnDrop:          s.onDrop,
	}, s.replayRecord)
	if err != nil {
		root.Close()
		return nil, err
	}
	s.log = l
	s.logger.Info("local store opened", "events", len(s.idx.events), "issues", len(s.idx.issues),
		"segments", stats.Segments, "truncated_bytes", stats.TruncatedBytes,
		"unreadable_records", s.skippedOnLog, "took", time.Since(start).Round(time.Millisecond).String())
	go s.retentionLoop()
	return s, nil
}

func (s *LocalStore) replayRecord(r eventlog.Record) {
	sum, err := decodeStoredSummary(r.Payload)
	if err != nil {
		s.skippedOnLog++
		if s.skippedOnLog <= 10 {
			s.logger.Warn("local store: skipping an unreadable stored event", "segment", r.Pos.Segment, "offset", r.Pos.Offset, "error", err.Error())
		}
		return
	}
	s.idx.add(sum, r.Pos, r.Time)
}

// onDrop runs on the log's writer after retention removed a segment.
func (s *LocalStore) onDrop(d eventlog.Dropped) {
	s.mu.Lock()
	n := s.idx.dropThrough(d.Segment)
	s.ret.DroppedEvents += int64(n)
	s.ret.DroppedSegments++
	s.ret.LastDrop = s.now()
	s.ret.LastReason = d.Reason
	b, _ := json.Marshal(s.ret)
	s.mu.Unlock()
	s.logger.Info("local store: retention dropped the oldest events", "events", n, "reason", d.Reason,
		"oldest", fmtTime(d.Oldest), "newest", fmtTime(d.Newest))
	if err := s.writeFileAtomic(retentionFile, b); err != nil {
		s.logger.Warn("local store: could not record retention statistics", "error", err.Error())
	}
}

func (s *LocalStore) writeFileAtomic(name string, b []byte) error {
	tmp := name + ".tmp"
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return s.root.Rename(tmp, name)
}

func (s *LocalStore) retentionLoop() {
	defer close(s.done)
	t := time.NewTicker(retentionInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.log.EnforceRetention()
		}
	}
}

// Close stops retention and closes the log after committing what is queued.
func (s *LocalStore) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	<-s.done
	return errors.Join(s.log.Close(), s.root.Close())
}

// ingest stores events durably and indexes them; it returns once they are on disk.
// Events whose id is already stored are acknowledged without a second copy.
func (s *LocalStore) ingest(ctx context.Context, events []*eventData) error {
	received := s.now()
	entries := make([]eventlog.Entry, 0, len(events))
	sums := make([]storedSummary, 0, len(events))
	for _, e := range events {
		if e.IssueID == "" {
			deriveIssueFields(e)
			e.IssueID = issueIDFor(e.Project, groupingParts(e))
		}
		s.mu.RLock()
		dup := s.idx.has(e.ID)
		s.mu.RUnlock()
		if dup {
			continue
		}
		payload, err := encodeStoredEvent(e)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		entries = append(entries, eventlog.Entry{Time: received, Payload: payload})
		sums = append(sums, summarize(e))
	}
	if len(entries) == 0 {
		return nil
	}
	return s.log.Append(ctx, entries, func(pos []eventlog.Pos) {
		s.mu.Lock()
		for i := range pos {
			s.idx.add(&sums[i], pos[i], received)
		}
		s.mu.Unlock()
	})
}

// notice says how much history retention removed, for tool results.
func (s *LocalStore) noticeLocked() string {
	if s.ret.DroppedEvents == 0 {
		return ""
	}
	return fmt.Sprintf("%d events were dropped by retention (oldest first; last drop at %s because the store was %s): counts and first-seen times cover the events still stored",
		s.ret.DroppedEvents, fmtTime(s.ret.LastDrop), s.ret.LastReason)
}

func newEventID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
