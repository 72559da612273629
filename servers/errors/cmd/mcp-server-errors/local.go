package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"

	"github.com/mcpkit/reference/servers/errors/backend"

	errorserver "github.com/mcpkit/reference/servers/errors"
)

// dsnKeyFile keeps the generated DSN public key in the data directory, so the DSN an
// application was configured with keeps working after a restart.
const dsnKeyFile = "dsn_key"

// Timeouts of the ingest endpoint: SDKs send one small request at a time, so a client
// that dawdles over its headers or body is cut off, and idle connections are closed.
const (
	ingestReadHeaderTimeout = 10 * time.Second
	ingestReadTimeout       = 60 * time.Second
	ingestWriteTimeout      = 60 * time.Second
	ingestIdleTimeout       = 120 * time.Second
	ingestShutdownTimeout   = 5 * time.Second
)

// validDSNKey reports whether k is 1 to 128 of [A-Za-z0-9._~-]. (A loop, not the
// regular expression it was: compiling ^[…]{1,128}$ cost every start a tenth of a
// millisecond, the key being checked at each.)
func validDSNKey(k string) bool {
	if len(k) < 1 || len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '~', c == '-':
		default:
			return false
		}
	}
	return true
}

func checkDSNKey(k string) error {
	if !validDSNKey(k) {
		return errors.New("a DSN key is 1 to 128 letters, digits, '.', '_', '~' or '-' (it becomes the user part of http://KEY@host/1)")
	}
	return nil
}

// loadOrCreateDSNKey returns the key kept in dir, creating it on first use. The new
// key is written to a temporary file, synced, and linked into place, so a crash
// never leaves a partial key and two processes starting at once agree on one key.
func loadOrCreateDSNKey(dir string) (key string, created bool, err error) {
	path := filepath.Join(dir, dsnKeyFile)
	read := func() (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		k := strings.TrimSpace(string(b))
		if checkDSNKey(k) != nil {
			return "", fmt.Errorf("%s does not hold a DSN key: delete it to generate a new one, or give one with --dsn-key", path)
		}
		return k, nil
	}
	if k, err := read(); !errors.Is(err, fs.ErrNotExist) {
		return k, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("create data directory: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, err
	}
	key = hex.EncodeToString(b[:])
	tmp, err := os.CreateTemp(dir, ".dsn_key-*")
	if err != nil {
		return "", false, fmt.Errorf("write the DSN key: %w", err)
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
		return "", false, fmt.Errorf("write the DSN key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) { // another process made one first: use it
			k, err := read()
			return k, false, err
		}
		return "", false, fmt.Errorf("write the DSN key: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the new name durable along with the file
		d.Close()
	}
	return key, true, nil
}

// localRun is the local backend while it runs: the store, the ingest servers and the
// DSN applications use. A process that found another one ingesting into its data
// directory only reads (readOnly): it has no ingest server, and dsn is the DSN the
// ingesting process recorded.
type localRun struct {
	store    *errorserver.LocalStore // nil while opening (then see opening)
	opening  *errorserver.OpeningStore
	opened   chan struct{} // with opening: closed when the opening goroutine is done
	openErr  error         // why the store did not open, once opened is closed
	dsn      string
	readOnly bool
	failed   chan struct{} // closed when an ingest server stops on its own
	err      error         // why, once failed is closed
	once     sync.Once

	mu      sync.Mutex
	srvs    []*http.Server
	stopped bool
	quit    chan struct{} // ends the takeover loop
	done    chan struct{} // closed when it has ended

	// What an MCP server needs to open its store again when the one it ingests into
	// is deleted or replaced under it (reopen.go): the settings it started with, the
	// handler its ingest listeners serve (over the store it has now), the stop signal
	// and the reopen under way.
	ls       localSettings
	cfg      errorserver.LocalConfig
	key      string
	logger   *slog.Logger
	handler  atomic.Pointer[http.Handler]
	newPage  func(*errorserver.LocalStore, http.Handler) http.Handler
	stopping chan struct{}
	reopens  sync.WaitGroup
	// The DSN and address this process ingests on, once it does (startIngest).
	ingestDSN, ingestAddr string
	reopenMu              sync.Mutex // one reopen at a time
}

// takeoverInterval is how often a reader checks whether the process that ingests
// has exited, to ingest in its place.
const takeoverInterval = 2 * time.Second

// Meta keys the ingesting process records for the readers.
const (
	metaDSN    = "dsn"
	metaIngest = "ingest_addr"
	metaPID    = "ingest_pid"
)

// startLocal opens the store. The first process on a data directory takes its ingest
// lock, listens on the ingest address (and the Spotlight address, when set) and
// serves SDKs there; an MCP server that finds the lock taken (by the collector, or by
// another server started first) opens the store to read only, and sees every event
// the other process commits. The collector (--ingest-only) must ingest: while another
// process holds the lock (an MCP server that took over while the collector was
// restarting, say) it waits for it, until ctx ends (then it returns nil, nil).
func startLocal(ctx context.Context, ls localSettings, logger *slog.Logger) (*localRun, error) {
	key := ls.dsnKey
	if key == "" {
		var created bool
		var err error
		if key, created, err = loadOrCreateDSNKey(ls.dataDir); err != nil {
			return nil, err
		}
		if created {
			logger.Info("local store: generated a DSN key and saved it in the data directory", "file", filepath.Join(ls.dataDir, dsnKeyFile))
		}
	}
	maxBytes, maxAge := ls.maxBytes, ls.maxAge
	if maxBytes == 0 {
		maxBytes = -1 // LocalConfig: negative is no limit
	}
	if maxAge == 0 {
		maxAge = -1
	}
	cfg := errorserver.LocalConfig{
		DataDir: ls.dataDir, PublicKeys: []string{key},
		MaxTotalBytes: maxBytes, MaxAge: maxAge, Logger: logger,
	}
	// The run this store serves, for OnFatal (set once the run exists, before its
	// store can write).
	var run atomic.Pointer[localRun]
	if ls.ingestOnly {
		cfg.OnFatal = exitForRestart(logger)
	} else {
		cfg.OnFatal = func(err error) {
			if r := run.Load(); r != nil {
				r.onFatal(err)
			}
		}
	}
	if !ls.ingestOnly {
		// An MCP server that can take the ingest lock knows its DSN at once (the key
		// and its own ingest address) and opens the store in the background, so it
		// answers discovery, initialize and tools/list without waiting for the
		// database; tool calls wait for it (errorserver.OpeningStore).
		lock, err := errorserver.LockIngest(ls.dataDir)
		if err == nil {
			r, err := startLocalOpening(ls, cfg, lock, key, logger)
			run.Store(r)
			return r, err
		}
		if !errors.Is(err, errorserver.ErrIngestedElsewhere) {
			return nil, err
		}
	}
	store, err := errorserver.OpenLocal(cfg)
	if errors.Is(err, errorserver.ErrIngestedElsewhere) && !ls.ingestOnly {
		cfg.ReadOnly = true
		if store, err = errorserver.OpenLocal(cfg); err != nil {
			return nil, err
		}
		r := &localRun{store: store, dsn: store.Meta(metaDSN), readOnly: true, failed: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
		r.keep(ls, cfg, key, logger)
		run.Store(r)
		logger.Info("local store: another process ingests into this data directory; this one reads what it stores", "dsn", r.dsn,
			"ingest", store.Meta(metaIngest), "ingest_pid", store.Meta(metaPID), "data", ls.dataDir)
		go r.takeOver(ls, key, logger)
		return r, nil
	}
	if errors.Is(err, errorserver.ErrIngestedElsewhere) {
		logger.Warn("collector: another process ingests into this data directory (another collector, or an MCP server); waiting for it to exit",
			"data", ls.dataDir, "ingest_pid", readMeta(ls.dataDir, metaPID))
		t := time.NewTicker(takeoverInterval)
		defer t.Stop()
		for errors.Is(err, errorserver.ErrIngestedElsewhere) {
			select {
			case <-ctx.Done():
				return nil, nil
			case <-t.C:
			}
			store, err = errorserver.OpenLocal(cfg)
		}
	}
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", ls.ingestAddr)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("ingest endpoint: %w: choose another address with --ingest (env ERRORS_INGEST_ADDR), such as 127.0.0.1:0 for any free port", err)
	}
	r := &localRun{store: store, dsn: dsnFor(key, ln.Addr()), failed: make(chan struct{})}
	if !ls.ingestOnly {
		r.keep(ls, cfg, key, logger)
		run.Store(r)
	}
	r.startIngest(ln, ls, key, logger)
	return r, nil
}

// startLocalOpening is startLocal for an MCP server holding the ingest lock: it
// listens on the ingest address and returns, the store opening in the background.
// Events sent meanwhile wait in the listener's queue; the ingest endpoint serves once
// the store is open. A store that does not open fails every tool call with the reason
// and then ends the process with it (through failed), as it did before serving.
func startLocalOpening(ls localSettings, cfg errorserver.LocalConfig, lock *errorserver.IngestLock, key string, logger *slog.Logger) (*localRun, error) {
	ln, err := net.Listen("tcp", ls.ingestAddr)
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("ingest endpoint: %w: choose another address with --ingest (env ERRORS_INGEST_ADDR), such as 127.0.0.1:0 for any free port", err)
	}
	r := &localRun{opening: errorserver.NewOpeningStore(), opened: make(chan struct{}), dsn: dsnFor(key, ln.Addr()), failed: make(chan struct{})}
	r.keep(ls, cfg, key, logger)
	cfg.Lock = lock
	go func() {
		defer close(r.opened)
		store, err := errorserver.OpenLocal(cfg)
		if err != nil {
			lock.Release()
			ln.Close()
			logger.Error("local store: could not open", "data", ls.dataDir, "error", err.Error())
			r.openErr = err
			r.opening.Opened(nil, err)
			// The calls waiting are answered with the reason first.
			time.AfterFunc(openFailureGrace, func() {
				r.once.Do(func() {
					r.err = err
					close(r.failed)
				})
			})
			return
		}
		r.mu.Lock()
		stopped := r.stopped
		if !stopped {
			r.store = store // stop closes it
		}
		r.mu.Unlock()
		if stopped {
			r.opening.Opened(nil, errors.New("the server is stopping"))
			ln.Close()
			store.Close()
			return
		}
		r.opening.Opened(store, nil)
		r.startIngest(ln, ls, key, logger)
	}()
	return r, nil
}

// openFailureGrace is how long a server whose store did not open keeps serving, so
// that the calls that were waiting for it are answered with the reason before the
// process ends.
const openFailureGrace = 200 * time.Millisecond

// backend is what the MCP server calls: the store, or the store still opening.
func (r *localRun) backend() backend.Backend {
	if r.opening != nil {
		return r.opening
	}
	return r.store
}

// readMeta reads one value the ingesting process recorded, through a store opened to
// read ("" when there is none).
func readMeta(dataDir, key string) string {
	s, err := errorserver.OpenLocal(errorserver.LocalConfig{DataDir: dataDir, ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return ""
	}
	defer s.Close()
	return s.Meta(key)
}

// startIngest records the DSN for readers and serves the ingest endpoint on ln, and the
// Spotlight endpoint when it is set.
func (r *localRun) startIngest(ln net.Listener, ls localSettings, key string, logger *slog.Logger) {
	dsn := dsnFor(key, ln.Addr())
	r.mu.Lock()
	r.ingestDSN, r.ingestAddr = dsn, ln.Addr().String()
	r.mu.Unlock()
	for k, v := range map[string]string{metaDSN: dsn, metaIngest: ln.Addr().String(), metaPID: fmt.Sprint(os.Getpid())} {
		if err := r.store.SetMeta(k, v); err != nil {
			logger.Warn("local store: could not record the DSN for readers", "error", err.Error())
		}
	}
	logger.Info("local store: point your application's Sentry DSN here", "dsn", dsn, "ingest", ln.Addr().String(), "data", ls.dataDir,
		"max_bytes", ls.maxBytes, "max_age", ls.maxAge.String())
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		logger.Info("local store: the ingest endpoint listens on every interface; applications elsewhere use this host's name or address in the DSN instead of localhost")
	}
	var sl net.Listener
	if ls.spotlight != "" {
		var err error
		if sl, err = net.Listen("tcp", ls.spotlight); err != nil {
			// Spotlight itself may be running: the DSN endpoint above still works.
			logger.Warn("local store: the Spotlight endpoint could not listen (is Spotlight running?); SDKs with spotlight on send there", "addr", ls.spotlight, "error", err.Error())
			sl = nil
		} else {
			logger.Info("local store: SDKs with their spotlight option on send here too", "spotlight", "http://"+sl.Addr().String()+"/stream")
		}
	}
	r.newPage = func(store *errorserver.LocalStore, h http.Handler) http.Handler { return h }
	if ls.page {
		pc := pageConfig(ls, dsn, ln, sl, logger)
		r.newPage = func(store *errorserver.LocalStore, h http.Handler) http.Handler { return store.PageHandler(pc, h) }
		logger.Info("local store: the stored issues are on a page for your browser", "page", pageURL(ln.Addr()))
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
			logger.Warn("local store: the page listens beyond loopback: anyone who reaches this address and sends Host: localhost reads the stored errors; keep the port on loopback or start with --page=false")
		}
	}
	r.setHandler(r.store)
	// The listeners serve the handler over the store the run has now: an MCP server
	// that opens its store again (reopen.go) keeps its ingest address and DSN.
	handler := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { (*r.handler.Load()).ServeHTTP(w, req) })
	r.serve(ln, handler, logger)
	if sl != nil {
		r.serve(sl, handler, logger)
	}
}

// setHandler makes the ingest listeners serve store: its ingest endpoint, behind its
// page when the page is on.
func (r *localRun) setHandler(store *errorserver.LocalStore) {
	h := r.newPage(store, ingest.Handler(store))
	r.handler.Store(&h)
}

// pageConfig is the page's configuration: the DSN, the Spotlight endpoint, the code
// mappings, and the listeners' own addresses as host names it answers to besides
// the loopback names.
func pageConfig(ls localSettings, dsn string, ln, sl net.Listener, logger *slog.Logger) errorserver.PageConfig {
	cfg := errorserver.PageConfig{DSN: dsn, CodeMappings: ls.codeMappings, InApp: ls.inApp, Logger: logger}
	for _, l := range []net.Listener{ln, sl} {
		if l == nil {
			continue
		}
		if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsUnspecified() {
			cfg.Hosts = append(cfg.Hosts, tcp.IP.String())
		}
	}
	if sl != nil {
		cfg.SpotlightURL = "http://" + sl.Addr().String() + "/stream"
	}
	return cfg
}

// pageURL is the page's address for the log: a wildcard listen address becomes
// localhost, where a browser on this machine opens it.
func pageURL(addr net.Addr) string {
	host, port := "localhost", ""
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = fmt.Sprint(tcp.Port)
		if !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// takeOver runs in a process that only reads: when the process that ingested exits
// (its ingest lock is released), this one takes the lock, listens on its own ingest
// address and ingests from then on, so that events keep arriving while any server
// on the data directory runs.
func (r *localRun) takeOver(ls localSettings, key string, logger *slog.Logger) {
	defer close(r.done)
	t := time.NewTicker(takeoverInterval)
	defer t.Stop()
	promoted := false
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
		}
		if !promoted {
			ok, err := r.store.Promote()
			if err != nil {
				logger.Warn("local store: could not take over ingesting", "error", err.Error())
				continue
			}
			if promoted = ok; !ok {
				continue
			}
		}
		ln, err := net.Listen("tcp", ls.ingestAddr)
		if err != nil {
			logger.Warn("local store: this process ingests now but cannot listen yet; trying again", "ingest", ls.ingestAddr, "error", err.Error())
			continue
		}
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			ln.Close()
			return
		}
		r.readOnly = false
		r.mu.Unlock()
		r.startIngest(ln, ls, key, logger)
		return
	}
}

func (r *localRun) serve(ln net.Listener, handler http.Handler, logger *slog.Logger) {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: ingestReadHeaderTimeout,
		ReadTimeout:       ingestReadTimeout,
		WriteTimeout:      ingestWriteTimeout,
		IdleTimeout:       ingestIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	r.mu.Lock()
	r.srvs = append(r.srvs, srv)
	r.mu.Unlock()
	go func() {
		err := srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			logger.Error("local store: an ingest endpoint stopped", "addr", ln.Addr().String(), "error", err.Error())
			r.once.Do(func() {
				r.err = err
				close(r.failed)
			})
		}
	}()
}

// stop ends the ingest endpoints (letting requests in flight finish, so every event
// acknowledged is stored), then closes the store.
func (r *localRun) stop(logger *slog.Logger) error {
	if r.stopping != nil {
		r.mu.Lock()
		close(r.stopping) // a reopen under way gives up
		r.mu.Unlock()
		r.reopens.Wait()
	}
	if r.quit != nil {
		close(r.quit)
		<-r.done
	}
	if r.opened != nil {
		r.mu.Lock()
		r.stopped = true // a store still opening is closed as soon as it has opened
		r.mu.Unlock()
		<-r.opened
	}
	r.mu.Lock()
	r.stopped = true
	srvs := r.srvs
	store := r.store
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ingestShutdownTimeout)
	defer cancel()
	for _, srv := range srvs {
		if err := srv.Shutdown(ctx); err != nil {
			logger.Warn("local store: ingest requests still running at shutdown were cut off", "error", err.Error())
			srv.Close()
		}
	}
	var failed error
	select {
	case <-r.failed:
		failed = fmt.Errorf("ingest endpoint: %w", r.err)
	default:
	}
	if r.openErr != nil {
		failed = r.openErr // the store did not open: OpenLocal's error names the data directory
	}
	if store == nil {
		return failed
	}
	return errors.Join(failed, store.Close())
}

// dsnFor is the DSN an application uses: http://KEY@HOST:PORT/1. A wildcard listen
// address becomes localhost, which is right on this machine and in a container's
// published port.
func dsnFor(key string, addr net.Addr) string {
	host, port := "localhost", ""
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = fmt.Sprint(tcp.Port)
		if !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
	} else if h, p, err := net.SplitHostPort(addr.String()); err == nil {
		host, port = h, p
	}
	u := url.URL{Scheme: "http", User: url.User(key), Host: net.JoinHostPort(host, port), Path: "/" + localProjectInDSN}
	return u.String()
}
