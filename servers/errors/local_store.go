package errorserver

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: binaries stay static and cgo-free
)

// Local store defaults.
const (
	DefaultMaxBodyBytes  = 20 << 20
	DefaultMaxTotalBytes = 1 << 30
	DefaultMaxAge        = 30 * 24 * time.Hour
	retentionInterval    = time.Minute
	// DatabaseFile is the store's SQLite database in the data directory (with its
	// -wal and -shm companions while it is open).
	DatabaseFile = "events.db"
	// ingestLockFile is held (flock) by the one process that writes the store.
	ingestLockFile = "ingest.lock"
	// maxBatchEvents bounds one group commit.
	maxBatchEvents = 2000
)

// ErrIngestedElsewhere: another process holds the data directory's ingest lock. Open
// the store with ReadOnly to read it while that process writes.
var ErrIngestedElsewhere = errors.New("the data directory is in use by another process that ingests into it")

// LocalConfig configures the local event store.
type LocalConfig struct {
	// DataDir holds the database (DataDir/events.db) and the ingest lock. Required.
	DataDir string
	// PublicKeys are the DSN public keys the ingest endpoint accepts (the part before
	// the @ in http://KEY@host/PROJECT). At least one is required unless ReadOnly.
	PublicKeys []string
	// ReadOnly opens the store to read only: another process (the collector, or the
	// first server started on this directory) ingests, and every query sees what it
	// has committed. A read-only store has no ingest endpoint and runs no retention.
	ReadOnly bool
	// MaxBodyBytes bounds an ingest request body, compressed and decompressed alike.
	// 0: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxTotalBytes drops the oldest events (by event time) while the database is
	// larger. 0: DefaultMaxTotalBytes; negative: no limit.
	MaxTotalBytes int64
	// MaxAge drops events whose event time is older than this, and files events
	// stamped earlier than this at their arrival. 0: DefaultMaxAge; negative: no limit.
	MaxAge time.Duration
	// Logger receives ingest and retention reports. nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock (tests move it). nil: time.Now.
	Now func() time.Time
	// Lock is the data directory's ingest lock when the caller took it ahead
	// (LockIngest); the store keeps it and releases it on Close. nil: OpenLocal takes
	// it (unless ReadOnly).
	Lock *IngestLock
	// OnFatal, when set, is called once (on its own goroutine) when the store stops
	// writing for good: its database file was deleted or replaced under it, so what it
	// would write goes nowhere the data directory says. A collector exits non-zero
	// there, so that its service manager starts it again on the directory as it is.
	OnFatal func(error)
	// countTagsAfter overrides tagsDelay (tests).
	countTagsAfter time.Duration
}

// LocalStore is the embedded event store: an ingest endpoint for Sentry SDKs
// (IngestHandler), a SQLite database (WAL mode, one writer process, any number of
// reader processes), and the Backend methods, answered in SQL.
type LocalStore struct {
	cfg    LocalConfig
	logger *slog.Logger
	now    func() time.Time
	keys   [][]byte
	path   string

	db   *sql.DB // readers (every process)
	wdb  *sql.DB // the writer's one connection (nil when ReadOnly)
	lock *os.File

	w         atomic.Pointer[writer] // nil while the store only reads
	promoteMu sync.Mutex             // Promote and Close

	closeOnce sync.Once
	closeErr  error
	closed    bool
}

var _ backend.Backend = (*LocalStore)(nil)

// OpenLocal opens (or creates) the store in cfg.DataDir. Unless cfg.ReadOnly it takes
// the data directory's ingest lock (ErrIngestedElsewhere when another process holds
// it), migrates the schema, imports an event log left by an earlier version, applies
// retention and starts the writer.
func OpenLocal(cfg LocalConfig) (*LocalStore, error) {
	if strings.TrimSpace(cfg.DataDir) == "" {
		return nil, fmt.Errorf("%w: the local store needs a data directory (--data DIR)", backend.ErrConfig)
	}
	var keys [][]byte
	for _, k := range cfg.PublicKeys {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, []byte(k))
		}
	}
	if len(keys) == 0 && !cfg.ReadOnly {
		return nil, fmt.Errorf("%w: the local store needs at least one DSN public key to accept events with", backend.ErrConfig)
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
	s := &LocalStore{cfg: cfg, logger: cfg.Logger, now: cfg.Now, keys: keys, path: filepath.Join(cfg.DataDir, DatabaseFile)}
	start := time.Now()
	if cfg.Lock != nil && !cfg.ReadOnly {
		s.lock, cfg.Lock.f = cfg.Lock.f, nil // the store's from here on
		if err := checkLegacyUnlocked(cfg.DataDir); err != nil {
			s.lock.Close()
			return nil, err
		}
	} else if !cfg.ReadOnly {
		lock, err := lockIngest(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		s.lock = lock
		if err := checkLegacyUnlocked(cfg.DataDir); err != nil {
			s.lock.Close()
			return nil, err
		}
	}
	var err error
	if s.db, err = openDB(s.path, false); err != nil {
		s.releaseLock()
		return nil, err
	}
	checked, err := s.checkIntegrity(context.Background(), integrityCheckAtOpen)
	if err != nil {
		s.db.Close()
		s.releaseLock()
		return nil, err
	}
	if err := s.migrate(); err != nil {
		s.db.Close()
		s.releaseLock()
		return nil, err
	}
	if cfg.ReadOnly {
		s.db.SetMaxOpenConns(4)
		s.logger.Info("local store opened to read (another process ingests)", "path", s.path, "took", time.Since(start).Round(time.Millisecond).String())
		return s, nil
	}
	s.db.SetMaxOpenConns(4)
	if err := s.startWriting(); err != nil {
		s.db.Close()
		s.releaseLock()
		return nil, err
	}
	if !checked {
		s.w.Load().checkInBackground()
	}
	var events, issues int64
	s.db.QueryRow(`SELECT events FROM stats`).Scan(&events)
	s.db.QueryRow(`SELECT count(*) FROM issues`).Scan(&issues)
	s.logger.Info("local store opened", "path", s.path, "events", events, "issues", issues,
		"took", time.Since(start).Round(time.Millisecond).String())
	return s, nil
}

// startWriting opens the writer's connections, imports an earlier version's event
// log, applies retention and starts the writer. The caller holds the ingest lock.
func (s *LocalStore) startWriting() error {
	var err error
	if s.wdb, err = openDB(s.path, true); err != nil {
		return err
	}
	w, err := newWriter(s)
	if err != nil {
		s.wdb.Close()
		return err
	}
	s.w.Store(w)
	if err := s.importLegacy(); err != nil {
		s.w.Store(nil)
		w.conn.Close()
		s.wdb.Close()
		return err
	}
	w.retain(true)
	go w.run()
	return nil
}

// Promote makes a store opened to read only the one that ingests, when the data
// directory's ingest lock is free: the process that held it has exited. It reports
// whether the store ingests now. (The store needs its DSN keys for that: give them in
// LocalConfig even when opening it to read.)
func (s *LocalStore) Promote() (bool, error) {
	s.promoteMu.Lock()
	defer s.promoteMu.Unlock()
	if s.w.Load() != nil {
		return true, nil
	}
	if s.closed {
		return false, errStoreClosed
	}
	if len(s.keys) == 0 {
		return false, fmt.Errorf("%w: the store has no DSN key to accept events with", backend.ErrConfig)
	}
	lock, err := lockIngest(s.cfg.DataDir)
	if errors.Is(err, ErrIngestedElsewhere) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.lock = lock
	if err := checkLegacyUnlocked(s.cfg.DataDir); err != nil {
		s.releaseLock()
		return false, err
	}
	if err := s.startWriting(); err != nil {
		s.releaseLock()
		return false, err
	}
	s.logger.Info("local store: the process that ingested into this data directory has exited; this one ingests now", "path", s.path)
	return true, nil
}

// openDB opens the database: WAL mode, durable commits (synchronous=FULL: the WAL is
// fsynced before a commit returns), a busy timeout so readers in other processes and
// the writer wait for each other's locks instead of failing.
func openDB(path string, writer bool) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(0)", "cache_size(-16000)", "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	if writer {
		// Checkpoint every 40 MB of WAL rather than 4 MB: pages written by many
		// commits are copied into the database once. (A checkpointer beside the writer,
		// on its own connection, was measured: no faster, and more system time.)
		q.Add("_pragma", "wal_autocheckpoint(10000)")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Set("_txlock", "immediate")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if writer {
		// One connection is the writer's own (writer.conn); the other serves the rare
		// writes made beside it (SetMeta, the checkpoint at close), which wait for the
		// writer's transaction through the busy timeout.
		db.SetMaxOpenConns(2)
	}
	db.SetConnMaxIdleTime(0)
	db.SetMaxIdleConns(4)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: open the store's database %s: %v: if it is not this server's database, move it out of the data directory", backend.ErrConfig, path, err)
	}
	return db, nil
}

func (s *LocalStore) releaseLock() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// ReadOnly reports whether this store only reads (another process ingests).
func (s *LocalStore) ReadOnly() bool { return s.w.Load() == nil }

// Path is the database file.
func (s *LocalStore) Path() string { return s.path }

// Close stops the writer after committing what is queued, checkpoints the WAL into
// the database file and closes it.
func (s *LocalStore) Close() error {
	s.closeOnce.Do(func() {
		s.promoteMu.Lock()
		defer s.promoteMu.Unlock()
		s.closed = true
		var errs []error
		if w := s.w.Load(); w != nil {
			w.stop()
			if _, err := s.wdb.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				s.logger.Debug("local store: checkpoint at close", "error", err.Error())
			}
			errs = append(errs, s.wdb.Close())
		}
		errs = append(errs, s.db.Close())
		s.releaseLock()
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// SetMeta records a value in the database's meta table (such as the DSN and address
// the ingesting process serves, so that readers can tell the model where to send).
func (s *LocalStore) SetMeta(key, value string) error {
	if s.w.Load() == nil {
		return fmt.Errorf("%w: a read-only store cannot record %s", backend.ErrConfig, key)
	}
	_, err := s.wdb.Exec(`INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// Meta reads a value of the meta table ("" when unset).
func (s *LocalStore) Meta(key string) string {
	var v string
	s.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	return v
}

// AcceptsKey reports whether key is one of the DSN public keys the store accepts
// events with (ingest.Sink), in constant time.
func (s *LocalStore) AcceptsKey(key string) bool {
	ok := 0
	for _, k := range s.keys {
		ok |= subtle.ConstantTimeCompare(k, []byte(key))
	}
	return ok == 1
}

// MaxBodyBytes bounds an ingest request body (LocalConfig.MaxBodyBytes; ingest.Sink).
func (s *LocalStore) MaxBodyBytes() int64 { return s.cfg.MaxBodyBytes }

// Logger receives the store's and its ingest endpoint's reports (ingest.Sink).
func (s *LocalStore) Logger() *slog.Logger { return s.logger }

// Now is the store's clock, by which events are received (ingest.Sink).
func (s *LocalStore) Now() time.Time { return s.now() }

// Ingest stores events durably and counts them into their issues; it returns once
// they are committed (fsynced). Events whose id is already stored are acknowledged
// without a second copy. The work that needs no lock (grouping, encoding) is done
// here, in the caller's goroutine; the writer only runs the SQL.
func (s *LocalStore) Ingest(ctx context.Context, events []*event.Event) error {
	w := s.w.Load()
	if w == nil {
		return fmt.Errorf("%w: this store is open to read only", backend.ErrUnavailable)
	}
	received := s.now()
	prepared := make([]*preparedEvent, 0, len(events))
	for _, e := range events {
		p, err := s.prepare(e, received)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		prepared = append(prepared, p)
	}
	if len(prepared) == 0 {
		return nil
	}
	return w.submit(ctx, prepared)
}

// fileTime is the time an event is filed and filtered by: its own timestamp, unless
// that is missing, in the future (after its arrival: a clock that runs ahead), or
// older than the age limit: then its arrival (the rule Sentry applies).
func (s *LocalStore) fileTime(ts, received time.Time) (time.Time, bool) {
	switch {
	case ts.IsZero():
		return received, false
	case ts.After(received):
		return received, true
	case s.cfg.MaxAge > 0 && ts.Before(received.Add(-s.cfg.MaxAge)):
		return received, true
	}
	return ts, false
}
