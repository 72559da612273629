package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	errorserver "github.com/mcpkit/reference/servers/errors"
)

// An MCP server that ingests (not the collector) and whose data directory is deleted
// or replaced under it: its store refuses the commit that finds the database gone
// (nothing is acknowledged that was not stored where --data says) and stops writing
// (LocalConfig.OnFatal with errorserver.ErrDatabaseReplaced). The collector exits
// there for its service manager to restart it; an MCP server's exit would end its
// host's session, so it opens the store again on the directory as it is now and keeps
// its ingest address, DSN and MCP session: ingest answers 503 with Retry-After until
// the new store is open, and then stores again by itself.

// reopenRetry bounds how often a reopen that failed is tried again: it doubles from
// takeoverInterval up to this.
const reopenRetry = time.Minute

// keep records what the run needs to open its store again (an MCP server's run), and
// makes its MCP backend an OpeningStore, through which the store can be swapped.
func (r *localRun) keep(ls localSettings, cfg errorserver.LocalConfig, key string, logger *slog.Logger) {
	r.ls, r.cfg, r.key, r.logger = ls, cfg, key, logger
	r.stopping = make(chan struct{})
	if r.opening == nil {
		r.opening = errorserver.NewOpeningStore()
		r.opening.Opened(r.store, nil)
	}
}

// onFatal is the store's LocalConfig.OnFatal in an MCP server: a database deleted or
// replaced is opened again; any other reason to stop writing (damage found in the
// file) is left as it is, ingest answering 503 and the readers answering over what
// is stored, since the log says what to do and a store reopened on a damaged file
// would be refused at open anyway.
func (r *localRun) onFatal(err error) {
	if !errors.Is(err, errorserver.ErrDatabaseReplaced) {
		r.logger.Error("local store: writes stopped; ingest answers 503 until the server is restarted", "error", err.Error())
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isStopping() {
		return
	}
	r.reopens.Add(1)
	go func() {
		defer r.reopens.Done()
		r.reopen(err)
	}()
}

// reopen opens the store again at --data until it has or the server stops, then
// swaps it in for the MCP tools, the page and the ingest endpoint, and closes the
// store it replaces.
func (r *localRun) reopen(cause error) {
	r.reopenMu.Lock()
	defer r.reopenMu.Unlock()
	r.logger.Warn("local store: the database at the data directory was deleted or replaced; opening the store there again (ingest answers 503 until it is open)",
		"data", r.ls.dataDir, "error", cause.Error())
	wait := takeoverInterval
	for attempt := 1; ; attempt++ {
		store, err := r.openAgain()
		if err == nil {
			if !r.swap(store) {
				store.Close()
			}
			return
		}
		if attempt == 1 || wait < reopenRetry {
			r.logger.Warn("local store: could not open the store again yet; trying again", "data", r.ls.dataDir, "error", err.Error(), "next", wait.String())
		}
		select {
		case <-r.stopping:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, reopenRetry)
	}
}

// openAgain opens the store at --data as it is now. The DSN key goes back into the
// directory when it is not there (so a restart keeps the DSN applications use). When
// the directory's ingest lock is taken, it may be this run's own (only the database
// file was replaced, the directory kept): the old store is closed, giving it up, and
// the store opened again; still taken, another process ingests there now, and the
// store opens to read what it stores and takes over when it exits, as a second server
// started on a directory does.
func (r *localRun) openAgain() (*errorserver.LocalStore, error) {
	if err := os.MkdirAll(r.ls.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if r.ls.dsnKey == "" {
		if err := restoreDSNKey(r.ls.dataDir, r.key); err != nil {
			r.logger.Warn("local store: could not write the DSN key back into the data directory; a restart makes a new one", "error", err.Error())
		}
	}
	store, err := errorserver.OpenLocal(r.cfg)
	if !errors.Is(err, errorserver.ErrIngestedElsewhere) {
		return store, err
	}
	r.mu.Lock()
	old := r.store
	r.mu.Unlock()
	if old != nil && !old.ReadOnly() {
		old.Close() // its lock may be the one taken; calls meanwhile fail with the store closed
	}
	if store, err = errorserver.OpenLocal(r.cfg); !errors.Is(err, errorserver.ErrIngestedElsewhere) {
		return store, err
	}
	ro := r.cfg
	ro.ReadOnly = true
	if store, err = errorserver.OpenLocal(ro); err != nil {
		return nil, err
	}
	r.logger.Info("local store: another process ingests into the data directory now; this one reads what it stores and takes over when it exits", "data", r.ls.dataDir)
	return store, nil
}

// isStopping reports whether the server is stopping (stop closed r.stopping).
func (r *localRun) isStopping() bool {
	select {
	case <-r.stopping:
		return true
	default:
		return false
	}
}

// swap makes store the run's store (the MCP tools, the page, the ingest endpoint),
// records the DSN for readers, and closes the store it replaces. It reports false
// when the server is stopping (the caller closes store).
func (r *localRun) swap(store *errorserver.LocalStore) bool {
	r.mu.Lock()
	if r.isStopping() {
		r.mu.Unlock()
		return false
	}
	old := r.store
	r.store = store
	r.mu.Unlock()
	if !store.ReadOnly() {
		r.recordIngest()
		r.logger.Info("local store: opened again at the data directory; ingest resumed", "path", store.Path())
	}
	r.opening.Reopened(store)
	r.setHandler(store)
	if old != nil {
		old.Close()
	}
	if store.ReadOnly() {
		r.reopens.Add(1)
		go func() {
			defer r.reopens.Done()
			r.promoteWhenFree(store)
		}()
	}
	return true
}

// promoteWhenFree makes a store reopened to read the one that ingests once the
// process that took the data directory's ingest lock exits.
func (r *localRun) promoteWhenFree(store *errorserver.LocalStore) {
	t := time.NewTicker(takeoverInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stopping:
			return
		case <-t.C:
		}
		ok, err := store.Promote()
		if err != nil {
			r.logger.Warn("local store: could not take over ingesting", "error", err.Error())
			continue
		}
		if ok {
			r.recordIngest()
			r.logger.Info("local store: opened again at the data directory; ingest resumed", "path", store.Path())
			return
		}
	}
}

// recordIngest records, in the store the run has now, the DSN and ingest address for
// the processes that read it.
func (r *localRun) recordIngest() {
	r.mu.Lock()
	store, dsn, addr := r.store, r.ingestDSN, r.ingestAddr
	r.mu.Unlock()
	if addr == "" {
		return
	}
	for k, v := range map[string]string{metaDSN: dsn, metaIngest: addr, metaPID: fmt.Sprint(os.Getpid())} {
		if err := store.SetMeta(k, v); err != nil {
			r.logger.Warn("local store: could not record the DSN for readers", "error", err.Error())
		}
	}
}

// restoreDSNKey writes key into dir's key file when the file is not there (a key
// already there, of a directory put in place of this one, is kept), the way
// loadOrCreateDSNKey writes a new one: a temporary file, synced, linked into place.
func restoreDSNKey(dir, key string) error {
	path := filepath.Join(dir, dsnKeyFile)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".dsn_key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(key + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}
