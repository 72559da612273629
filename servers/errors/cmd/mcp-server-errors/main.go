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
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
	errorserver "github.com/mcpkit/reference/servers/errors"
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
	opts, err := sf.Options()
	if err != nil {
		return err
	}
	opts.Stdin, opts.Stdout = stdin, stdout
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	if kind == backendSentry {
		backend, err := errorserver.NewSentryBackend(errorserver.SentryConfig{
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
	st, err := startLocal(local, logger)
	if err != nil {
		return err
	}
	s := errorserver.New(errorserver.Config{Logger: logger, LocalDSN: st.dsn, CodeMappings: f.codeMappings, InApp: f.inApp}, st.store)
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
