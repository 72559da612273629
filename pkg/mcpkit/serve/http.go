package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
)

// HTTPService returns everything [Serve] exposes on HTTP, for mounting on a listener
// of one's own (tests, embedding): the MCP endpoint at o.Path (default "/mcp"),
// Protected Resource Metadata when o.Auth is set (at the root well-known path and at
// the path-inserted one), /healthz (the process is up) and /readyz (o.Ready passes
// and the server is not shutting down).
func HTTPService(s *mcpkit.Server, o *Options) (http.Handler, error) {
	var opts Options
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
	if opts.Auth != nil {
		if opts.HTTP.Authenticator != nil {
			return nil, errors.New("serve: Options.Auth and Options.HTTP.Authenticator are both set; set one")
		}
		a, err := auth.New(*opts.Auth)
		if err != nil {
			return nil, err
		}
		opts.HTTP.Authenticator = a
		md := a.MetadataHandler(s)
		for _, p := range a.MetadataPaths() {
			mux.Handle(p, md)
		}
	}
	var endpoint http.Handler = s.HTTPHandler(&opts.HTTP)
	if opts.Telemetry != nil {
		endpoint = opts.Telemetry.Handler(endpoint) // the traceparent header, for requests without one in _meta
	}
	mux.Handle(opts.Path, endpoint)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.ShuttingDown() {
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

func serveHTTP(ctx context.Context, s *mcpkit.Server, o Options) error {
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
	handler, err := HTTPService(s, &o)
	if err != nil {
		_ = ln.Close()
		return err
	}
	logger := s.Logger()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       orDefault(o.ReadTimeout, 60*time.Second),
		IdleTimeout:       orDefault(o.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	path := o.Path
	if path == "" {
		path = "/mcp"
	}
	logger.Info("serving MCP on Streamable HTTP", "server", s.Info().Name, "version", s.Info().Version, "addr", ln.Addr().String(), "path", path,
		"auth", o.Auth != nil || o.HTTP.Authenticator != nil, "max_concurrent_per_caller", o.HTTP.MaxConcurrentPerCaller)
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
	logger.Info("shutting down", "drain_delay", o.DrainDelay, "timeout", o.ShutdownTimeout)
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
	// Tasks whose work runs here get what is left of the shutdown timeout to
	// finish; those still running then are reported failed (not left working).
	defer s.StopTasks(sctx)
	err = srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("shutdown deadline reached: closing the connections of calls still running", "timeout", o.ShutdownTimeout)
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
