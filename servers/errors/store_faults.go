package errorserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// What the store does when the disk under it fails (issue 26).
//
//   - A write that fails with an I/O error (a read-only or vanished filesystem, a
//     damaged page) leaves the file's state unknown: the writer refuses writes (ingest
//     answers 503 with Retry-After) and, at most every recoverEvery, tries again on a
//     fresh connection (tryWriteAgain); once a write commits, ingest resumes by itself.
//   - After every commit the writer checks that the database file it wrote is still
//     the one at the data directory's path (checkFile). When it is not (the directory
//     was deleted, or replaced), the events of that commit are refused, not
//     acknowledged, and the store stops writing for good: LocalConfig.OnFatal is
//     called (the collector exits non-zero so its service manager restarts it on the
//     new directory; an MCP server, whose exit would end its host's session, opens
//     the store again there).
//   - Failures of background work (counting tags, retention) are logged once with
//     their cause, then with back-off (failLog), not on every retry.

// recoverEvery is the least time between two attempts to write again after a failed
// write: ingest resumes within it of the fault clearing.
const recoverEvery = 500 * time.Millisecond

// ErrDatabaseReplaced (through LocalConfig.OnFatal): the database the writer has open
// is no longer the one at its path. A collector exits on it for its service manager
// to restart it; an MCP server opens the store again at the data directory.
var ErrDatabaseReplaced = errors.New("the database file was deleted or replaced")

// checkFile reports whether the file at the store's path is still the database the
// writer opened (w.file, taken when the writer started).
func (w *writer) checkFile() error {
	if w.file == nil {
		return nil
	}
	fi, err := os.Stat(w.s.path)
	if err == nil && os.SameFile(fi, w.file) {
		return nil
	}
	why := "it is gone"
	if err == nil {
		why = "another file is there now"
	}
	return fmt.Errorf("%w: %s (%s): the events of this commit are not acknowledged; the store must be opened again at %s", ErrDatabaseReplaced, w.s.path, why, w.s.cfg.DataDir)
}

// stopForGood makes the writer refuse every write from now on and tells the process
// (LocalConfig.OnFatal), once.
func (w *writer) stopForGood(err error) {
	w.failed, w.final = err, true
	w.s.logger.Error("local store: writes stopped", "error", err.Error())
	if f := w.s.cfg.OnFatal; f != nil {
		w.fatalOnce.Do(func() { go f(err) })
	}
}

// tryWriteAgain tries to write again after a failed write, at most every recoverEvery: it
// drops the writer's connection (SQLite's state after an I/O error is not to be
// trusted), opens a fresh one and checks the file. It returns nil when the writer
// may write again.
func (w *writer) tryWriteAgain() error {
	if w.final || time.Since(w.failedAt) < recoverEvery {
		return w.failed
	}
	w.failedAt = time.Now()
	ctx := context.Background()
	for _, st := range w.stmts {
		st.Close()
	}
	w.stmts = map[string]*sql.Stmt{}
	w.conn.Raw(func(any) error { return driver.ErrBadConn }) // discarded, not pooled
	w.conn.Close()
	conn, err := w.s.wdb.Conn(ctx)
	if err != nil {
		return w.failed
	}
	w.conn = conn
	if err := w.checkFile(); err != nil {
		w.stopForGood(err)
		return err
	}
	if isCorruptError(w.failed) {
		// Retrying a write to damaged pages fails for ever: check the file, and stop
		// for good when it is damaged (a restart then refuses it, saying what to do).
		if _, err := w.s.checkIntegrity(ctx, 10*time.Second); err != nil {
			w.stopForGood(err)
			return err
		}
	}
	if _, err := w.conn.ExecContext(ctx, "SELECT count(*) FROM stats"); err != nil {
		w.writeLog.failed(w.s.logger, "local store: writes are still failing; ingest answers 503 until they succeed", err)
		return w.failed
	}
	w.clearCaches()
	if err := w.loadPending(ctx); err != nil {
		w.writeLog.failed(w.s.logger, "local store: writes are still failing; ingest answers 503 until they succeed", err)
		return w.failed
	}
	w.failed = nil
	return nil
}

// failLog logs a failure that is retried: the first time with its cause, then at
// most once per back-off period (doubling from one second up to five minutes) with
// how many times it failed since, and once when it succeeds again.
type failLog struct {
	mu      sync.Mutex
	failing bool
	next    time.Time
	wait    time.Duration
	since   int
}

func (l *failLog) failed(logger *slog.Logger, msg string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.failing && now.Before(l.next) {
		l.since++
		return
	}
	if !l.failing {
		l.wait = time.Second
	} else {
		l.wait = min(2*l.wait, 5*time.Minute)
	}
	logger.Warn(msg, "error", err.Error(), "failures since last logged", l.since, "next log in", l.wait.String())
	l.failing, l.next, l.since = true, now.Add(l.wait), 0
}

func (l *failLog) ok(logger *slog.Logger, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing {
		logger.Info(msg, "failures since last logged", l.since)
	}
	l.failing, l.since = false, 0
}

// retryWait is how long background work waits before its next attempt: its usual
// delay while it succeeds, the log's back-off while it fails.
func (l *failLog) retryWait(usual time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing {
		return max(usual, min(l.wait, 10*time.Second))
	}
	return usual
}

// writeFault, when set (tests), fails every commit with its error before it reaches
// the disk: a write refused by the filesystem (EROFS, ENOSPC) injected where SQLite
// would report it.
var writeFault atomic.Pointer[error]

func injectedWriteFault() error {
	if p := writeFault.Load(); p != nil {
		return *p
	}
	return nil
}

// integrityCheckAtOpen bounds the check of the database when it opens: a store of a
// few tens of MB is checked whole before it serves anything (113 MB, 100,000 events,
// took 1.9 s at a load average of 27 on 2 cores), while a large store opens as fast as
// before; the process that writes checks the rest in the background
// (checkInBackground).
var integrityCheckAtOpen = 200 * time.Millisecond

// checkIntegrity runs SQLite's quick_check on the database, for at most limit (0: no
// limit), and refuses a damaged database with what to do, rather than serving wrong
// answers from it or failing on the damaged pages one write at a time. finished says
// whether the check ran to its end.
func (s *LocalStore) checkIntegrity(ctx context.Context, limit time.Duration) (finished bool, _ error) {
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	var result string
	err := s.db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&result)
	switch {
	case ctx.Err() != nil:
		return false, nil
	case err == nil && result == "ok":
		return true, nil
	case err == nil:
		err = errors.New(result)
	}
	return true, fmt.Errorf("%w: the store's database %s is damaged (SQLite's quick_check: %v). Stop every mcp-server-errors that uses %s, move the file aside (with its -wal and -shm files), then either recover what it holds with SQLite's own tool (sqlite3 %s.damaged .recover | sqlite3 %s) or start with a fresh store (the server makes one when the file is not there)",
		backend.ErrConfig, s.path, err, s.cfg.DataDir, DatabaseFile, DatabaseFile)
}

// checkInBackground finishes, beside the writer, the check the open did not have the
// time for; damage found stops the writes for good (the next commit sees it), which
// makes a collector exit with the message (LocalConfig.OnFatal).
func (w *writer) checkInBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-w.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer cancel()
		finished, err := w.s.checkIntegrity(ctx, 0)
		if err != nil {
			w.damaged.Store(&err)
			select { // the writer acts on it now
			case w.reqs <- &ingestReq{done: make(chan error, 1)}:
			case <-w.quit:
			}
		} else if finished {
			w.s.logger.Debug("local store: integrity check finished", "path", w.s.path)
		}
	}()
}

// isCorruptError reports SQLite's SQLITE_CORRUPT ("database disk image is malformed").
func isCorruptError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "malformed")
}
