package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
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
}

// Serve runs the server until ctx ends, SIGINT or SIGTERM arrives, or (on stdio) the
// client closes stdin. It serves stdio unless opts.HTTPAddr is set.
func Serve(ctx context.Context, s *Server, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
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

func serveHTTP(ctx context.Context, s *Server, o ServeOptions) error {
	if o.Path == "" {
		o.Path = "/mcp"
	}
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
	mux := http.NewServeMux()
	mux.Handle(o.Path, s.HTTPHandler(&o.HTTP))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if o.Ready != nil {
			cctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
			defer cancel()
			if err := o.Ready(cctx); err != nil {
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          nil,
	}
	s.logger.Info("serving MCP on Streamable HTTP", "server", s.info.Name, "version", s.info.Version, "addr", ln.Addr().String(), "path", o.Path)
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
	s.logger.Info("shutting down", "timeout", o.ShutdownTimeout)
	s.Shutdown() // end listen streams with their completion result
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
