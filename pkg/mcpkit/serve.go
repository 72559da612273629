package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// ServeOptions choose the transport Serve runs.
type ServeOptions struct {
	// HTTPAddr, when set, serves Streamable HTTP on this address instead of stdio.
	HTTPAddr string
	// Path is the MCP endpoint path on HTTP (default "/mcp").
	Path string
	// HTTP configures the HTTP transport.
	HTTP HTTPOptions
	// Ready reports whether the backend is reachable, for /readyz (nil: always ready).
	Ready func(ctx context.Context) error
	// ShutdownTimeout bounds how long in-flight HTTP calls may finish on shutdown
	// (default 10 s).
	ShutdownTimeout time.Duration
	// Stdin and Stdout replace os.Stdin and os.Stdout for stdio (tests, embedding).
	Stdin  io.Reader
	Stdout io.Writer
	// Listening, when set, is called with the HTTP listener's address once it accepts.
	Listening func(addr net.Addr)

	// ReadHeaderTimeout, ReadTimeout and IdleTimeout bound how long a connection may
	// take to send its headers, its whole request, and sit idle between requests
	// (defaults 10 s, 60 s, 120 s). There is no write timeout: subscriptions/listen
	// streams stay open (StreamLifetime in HTTPOptions bounds them).
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// DrainDelay keeps serving for this long after a shutdown signal while /readyz
	// answers 503, so a load balancer stops sending new requests before the listener
	// closes (default 0; a few seconds behind Kubernetes Services).
	DrainDelay time.Duration
	// StateKey signs requestState when the server was created without
	// ServerOptions.StateKey; when both are nil, Serve reads MCP_STATE_KEY or
	// MCP_STATE_KEY_FILE (StateKeyFromEnv).
	StateKey []byte
	// ToolTimeout, when above zero, replaces ServerOptions.ToolTimeout.
	ToolTimeout time.Duration
	// Audit logs one line per request ([Audit]) on the server's logger.
	Audit bool
	// ErrorReporter, when set, replaces ServerOptions.ErrorReporter (see
	// SentryReporterFromEnv).
	ErrorReporter ErrorReporter
}

// Serve runs the server until ctx ends, SIGINT or SIGTERM arrives, or (on stdio) the
// client closes stdin. It serves stdio unless opts.HTTPAddr is set.
func Serve(ctx context.Context, s *Server, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	if err := s.applyServeOptions(&o); err != nil {
		return err
	}
	tuneGC(os.Getenv)
	if f, ok := s.opts.ErrorReporter.(interface{ Flush(time.Duration) bool }); ok {
		defer f.Flush(2 * time.Second) // send what was reported before the process exits
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer s.Shutdown()
	if o.HTTPAddr == "" {
		in, out := o.Stdin, o.Stdout
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		s.logger.Info("serving MCP on stdio", "server", s.info.Name, "version", s.info.Version)
		return s.ServeStdio(ctx, in, out)
	}
	return serveHTTP(ctx, s, o)
}

// applyServeOptions sets what Serve configures on the server before it serves.
func (s *Server) applyServeOptions(o *ServeOptions) error {
	if !s.stateKeySet {
		key := o.StateKey
		if key == nil {
			var err error
			if key, err = StateKeyFromEnv(); err != nil {
				return err
			}
		}
		if key != nil {
			if err := s.SetStateKey(key); err != nil {
				return err
			}
		} else if o.HTTPAddr != "" {
			s.logger.Warn("no shared state key (" + EnvStateKey + " or " + EnvStateKeyFile + "): multi-round-trip requests verify only on this instance; set one when running several instances")
		}
	}
	if o.ToolTimeout > 0 {
		s.opts.ToolTimeout = o.ToolTimeout
	}
	if o.ErrorReporter != nil {
		s.opts.ErrorReporter = o.ErrorReporter
	}
	if o.Audit {
		s.Observe(Audit(s.logger))
	}
	return nil
}

// HTTPService returns everything Serve exposes on HTTP, for mounting on a listener of
// one's own (tests, embedding): the MCP endpoint at o.Path (default "/mcp"),
// Protected Resource Metadata when o.HTTP.Auth is set (at the root well-known path
// and at the path-inserted one), /healthz (the process is up) and /readyz (o.Ready
// passes and the server is not shutting down).
func (s *Server) HTTPService(o *ServeOptions) (http.Handler, error) {
	var opts ServeOptions
	if o != nil {
		opts = *o
	}
	if opts.Path == "" {
		opts.Path = "/mcp"
	}
	if !strings.HasPrefix(opts.Path, "/") {
		return nil, fmt.Errorf("the MCP endpoint path %q must start with /", opts.Path)
	}
	mux := http.NewServeMux()
	if a := opts.HTTP.Auth; a != nil {
		st, err := newAuth(a)
		if err != nil {
			return nil, err
		}
		md := st.metadataHandler(s)
		mux.Handle("/.well-known/oauth-protected-resource", md)
		if p := MetadataPath(st.resource.String()); p != "/.well-known/oauth-protected-resource" {
			mux.Handle(p, md)
		}
	}
	mux.Handle(opts.Path, s.HTTPHandler(&opts.HTTP))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.shuttingDown() {
			http.Error(w, "not ready: shutting down", http.StatusServiceUnavailable)
			return
		}
		if opts.Ready != nil {
			cctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
			defer cancel()
			if err := opts.Ready(cctx); err != nil {
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ready\n")
	})
	return mux, nil
}

// shuttingDown reports whether Shutdown has been called.
func (s *Server) shuttingDown() bool {
	select {
	case <-s.hub.closing:
		return true
	default:
		return false
	}
}

func serveHTTP(ctx context.Context, s *Server, o ServeOptions) error {
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	ln, err := net.Listen("tcp", o.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", o.HTTPAddr, err)
	}
	if len(o.HTTP.AllowedHosts) == 0 {
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
			// Bound to loopback: only loopback names may reach us (DNS rebinding).
			o.HTTP.AllowedHosts = []string{"localhost", "127.0.0.1", "::1", "[::1]"}
		}
	}
	handler, err := s.HTTPService(&o)
	if err != nil {
		_ = ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       orDefault(o.ReadTimeout, 60*time.Second),
		IdleTimeout:       orDefault(o.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	path := o.Path
	if path == "" {
		path = "/mcp"
	}
	s.logger.Info("serving MCP on Streamable HTTP", "server", s.info.Name, "version", s.info.Version, "addr", ln.Addr().String(), "path", path,
		"auth", o.HTTP.Auth != nil, "max_concurrent_per_caller", o.HTTP.MaxConcurrentPerCaller)
	if o.Listening != nil {
		o.Listening(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Graceful shutdown: /readyz fails and listen streams end with their completion
	// result; after DrainDelay the listener closes; in-flight calls get until
	// ShutdownTimeout to finish, then their connections are closed.
	s.logger.Info("shutting down", "drain_delay", o.DrainDelay, "timeout", o.ShutdownTimeout)
	s.Shutdown()
	if o.DrainDelay > 0 {
		t := time.NewTimer(o.DrainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.logger.Warn("shutdown deadline reached: closing the connections of calls still running", "timeout", o.ShutdownTimeout)
		_ = srv.Close()
		return nil
	}
	return err
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// serverGCPercent is the garbage collector's target for a serving process. An MCP
// server keeps a small live heap (a few MiB of schemas and caches) and turns over
// garbage on every call (arguments, results, file contents), so at Go's default of 100
// a collection runs every few dozen calls and costs a fifth of the CPU of a call that
// reads a file. At 200 collections run half as often for a few MiB more memory
// (measured with servers/filesystem's BenchmarkVsReference: peak RSS 22.5 → 26.5 MiB).
const serverGCPercent = 200

// tuneGC applies serverGCPercent unless the operator set GOGC, which always wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}
