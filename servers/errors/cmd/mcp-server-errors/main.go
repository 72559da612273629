// Command mcp-server-errors serves error monitoring over MCP: the Sentry REST API
// (sentry.io, a regional host or a self-hosted Sentry) with a token, or, with no
// account at all, a local event store that any Sentry SDK sends events to.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/mcpkit/reference/servers/errors/sentryapi"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
	errorserver "github.com/mcpkit/reference/servers/errors"

	// CA roots for TLS (GitHub, Sentry, PostgreSQL with sslmode, SENTRY_DSN over https)
	// when the system has none: the release images hold only the binary.
	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-errors:", err)
		os.Exit(1)
	}
}

// run is main without the process: arguments, environment and streams in, an error
// out. Every flag of this server has an environment variable (flagEnv, applied with
// serve.EnvFlags); a flag given on the command line wins. (The standard serve flags,
// --http and the rest, read their MCP_* variables from the process environment: see
// serve.RegisterFlags.)
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-errors", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	sf.Reporter = sentryreport.FromEnv
	sf.TaskStore = redisstore.FromURL // --task-store redis://… (MCP_TASK_STORE): tasks shared by every instance
	f := registerFlags(fs)
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all settings are flags (see --help)", fs.Arg(0))
	}
	if *version {
		fmt.Fprintln(stdout, "mcp-server-errors", mcpkit.Version)
		return nil
	}
	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil {
		return err
	}
	token := strings.TrimSpace(getenv("SENTRY_AUTH_TOKEN"))
	kind, err := f.backendKind(fs, token)
	if err != nil {
		return err
	}
	if f.installService {
		return installService(fs, getenv, runtime.GOOS, stdout)
	}
	opts, err := sf.Options()
	if err != nil {
		return err
	}
	if f.ingestOnly && opts.HTTPAddr != "" {
		return errors.New("--ingest-only runs the collector, which serves no MCP: drop --http and run MCP servers (stdio or --http) as separate processes on the same --data")
	}
	opts.Stdin, opts.Stdout = stdin, stdout
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	if kind == backendSentry {
		backend, err := sentryapi.New(sentryapi.Config{
			BaseURL: f.sentryURL, Token: token, Organization: f.sentryOrg, Logger: logger,
		})
		if err != nil {
			return err
		}
		logger.Info("backend: Sentry", "url", backend.BaseURL(), "organization", f.sentryOrg)
		return serve.Serve(ctx, errorserver.New(errorserver.Config{Logger: logger, CodeMappings: f.codeMappings, InApp: f.inApp}, backend), opts)
	}

	local, err := f.localSettings(getenv)
	if err != nil {
		return err
	}
	if local.ingestOnly {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	st, err := startLocal(ctx, local, logger)
	if err != nil {
		return err
	}
	if local.ingestOnly {
		if st == nil {
			return nil // stopped while waiting for the data directory
		}
		return runCollector(ctx, st, logger)
	}
	s := errorserver.New(errorserver.Config{Logger: logger, LocalDSN: st.dsn, CodeMappings: f.codeMappings, InApp: f.inApp}, st.backend())
	// The ingest endpoint lives as long as the MCP transport: when either stops, both
	// stop, and the store is closed after the last acknowledged event is on disk.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-st.failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	serveErr := serve.Serve(ctx, s, opts)
	return errors.Join(serveErr, st.stop(logger))
}

// runCollector receives events until the context ends (SIGINT or SIGTERM: a service
// manager stopping it), then stops the ingest endpoints, letting requests in flight
// finish, and closes the store.
func runCollector(ctx context.Context, st *localRun, logger *slog.Logger) error {
	// The collector keeps no index in memory: its heap is the requests in flight. A
	// larger GC target trades a few more megabytes for less CPU per event.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	logger.Info("collector: receiving events; MCP servers started with the same --data read them", "data", st.store.Path())
	select {
	case <-ctx.Done():
		logger.Info("collector: stopping")
	case <-st.failed:
	}
	return st.stop(logger)
}
