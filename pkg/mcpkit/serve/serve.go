// Package serve is the process around an mcpkit server: [Serve] runs it on stdio or
// Streamable HTTP until SIGINT or SIGTERM, with /healthz and /readyz, a drain
// period and a bounded graceful shutdown; [RegisterFlags] gives every server's
// main the same flags and MCP_* environment variables for all of that (HTTP mode,
// authorization, limits, timeouts, the shared state key); [EnvFlags] binds a
// server's own flags to environment variables the same way.
//
// JWT verification, Sentry reporting and OpenTelemetry are opt-in, so that a server
// without them links none of those libraries: main sets [Flags.JWT] (package
// auth/jwt), [Flags.Reporter] (package sentryreport) and [Flags.Telemetry] (package
// otelmcp).
package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
)

// Options choose the transport [Serve] runs.
type Options struct {
	// HTTPAddr, when set, serves Streamable HTTP on this address instead of stdio.
	HTTPAddr string
	// Path is the MCP endpoint path on HTTP (default "/mcp").
	Path string
	// HTTP configures the HTTP transport.
	HTTP mcpkit.HTTPOptions
	// Auth, when set, makes the HTTP endpoint an OAuth 2.1 resource server
	// ([auth.New]): bearer tokens verified on every request, 401/403 challenges,
	// per-tool scopes, and Protected Resource Metadata served next to the endpoint.
	// Leave HTTP.Authenticator unset with it.
	Auth *auth.Options
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
	// MCP_STATE_KEY_FILE ([StateKeyFromEnv]).
	StateKey []byte
	// ToolTimeout, when above zero, replaces ServerOptions.ToolTimeout.
	ToolTimeout time.Duration
	// Audit logs one line per request ([mcpkit.Audit]) on the server's logger.
	Audit bool
	// ErrorReporter, when set, replaces ServerOptions.ErrorReporter (see
	// [Flags.Reporter]).
	ErrorReporter mcpkit.ErrorReporter
	// TaskStore, TaskTTL and TaskLease, when set, replace the ServerOptions of the
	// Tasks extension (see [Flags.TaskStore]).
	TaskStore          mcpkit.TaskStore
	TaskTTL, TaskLease time.Duration
	// ReplayGuard, when set, replaces ServerOptions.ReplayGuard: a guard every
	// instance shares (see [Flags.TaskStore] and --replay-store).
	ReplayGuard mcpkit.ReplayGuard
	// Telemetry, when set, traces and measures every request (see [Flags.Telemetry]).
	Telemetry Telemetry
}

// Telemetry is what Serve needs of a telemetry package (package otelmcp implements
// it with OpenTelemetry), so that this package links no telemetry library.
type Telemetry interface {
	// Instrument makes the server report its requests, notifications and sessions.
	Instrument(s *mcpkit.Server)
	// Handler wraps the HTTP endpoint (to read the traceparent header).
	Handler(next http.Handler) http.Handler
	// Shutdown exports what is pending, within ctx.
	Shutdown(ctx context.Context) error
}

// Serve runs the server until ctx ends, SIGINT or SIGTERM arrives, or (on stdio) the
// client closes stdin. It serves stdio unless opts.HTTPAddr is set.
func Serve(ctx context.Context, s *mcpkit.Server, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := apply(s, &o); err != nil {
		return err
	}
	tuneGC(os.Getenv)
	if o.Telemetry != nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = o.Telemetry.Shutdown(ctx) // export what is queued; an unreachable collector costs at most this wait
		}()
	}
	if f, ok := s.ErrorReporter().(interface{ Flush(time.Duration) bool }); ok {
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
		s.Logger().Info("serving MCP on stdio", "server", s.Info().Name, "version", s.Info().Version)
		firstContact(s, in)
		return s.ServeStdio(ctx, in, out)
	}
	return serveHTTP(ctx, s, o)
}

// apply sets what Serve configures on the server before it serves.
func apply(s *mcpkit.Server, o *Options) error {
	if !s.HasStateKey() {
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
			s.Logger().Warn("no shared state key (" + EnvStateKey + " or " + EnvStateKeyFile + "): multi-round-trip requests verify only on this instance; set one when running several instances")
		}
	}
	if o.ToolTimeout > 0 {
		s.SetToolTimeout(o.ToolTimeout)
	}
	if o.ErrorReporter != nil {
		s.SetErrorReporter(o.ErrorReporter)
	}
	if o.Telemetry != nil {
		o.Telemetry.Instrument(s)
	}
	if o.Audit {
		s.Observe(mcpkit.Audit(s.Logger()))
	}
	s.SetTaskStore(o.TaskStore)
	s.SetReplayGuard(o.ReplayGuard)
	warnUnshared(s, o)
	s.SetTaskTTL(o.TaskTTL)
	s.SetTaskLease(o.TaskLease)
	return nil
}
