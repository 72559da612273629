// Command mcp-server-postgres serves a PostgreSQL database over MCP: read-only SQL
// that cannot be escaped, schema exploration, query plans and bounded results; writes
// only with --allow-writes and the user's confirmation of each statement.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
	"github.com/mcpkit/reference/servers/postgres"
	"github.com/mcpkit/reference/servers/postgres/pgotel"

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
		fmt.Fprintln(os.Stderr, "mcp-server-postgres:", err)
		os.Exit(1)
	}
}

// flagEnv maps this server's own flags to their environment variables, applied with
// serve.EnvFlags: a flag given on the command line wins over its variable. (The
// standard serve flags, --http and the rest, read their MCP_* variables: see
// serve.RegisterFlags.)
var flagEnv = map[string]string{
	"allow-writes":      "POSTGRES_ALLOW_WRITES",
	"no-confirm":        "POSTGRES_NO_CONFIRM",
	"allow-superuser":   "POSTGRES_ALLOW_SUPERUSER",
	"statement-timeout": "POSTGRES_STATEMENT_TIMEOUT",
	"max-rows":          "POSTGRES_MAX_ROWS",
	"max-bytes":         "POSTGRES_MAX_BYTES",
	"max-conns":         "POSTGRES_MAX_CONNS",
	"database":          "POSTGRES_DATABASES",
	"describe-database": "POSTGRES_DATABASE_DESCRIPTIONS",
}

// run is main without the process: arguments, environment and streams in, an error
// out.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-postgres", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcp-server-postgres [flags] [DATABASE_URL]\n\n"+
			"DATABASE_URL (or the DATABASE_URL environment variable) is a postgres:// URL or a key=value connection string.\n"+
			"More databases come with --database NAME=URL (repeatable); the DATABASE_URL database, if any, is the default.\n"+
			"Prefer the environment variable for a URL with a password: command lines are visible to other users.\n\nflags:")
		fs.PrintDefaults()
	}
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	sf.Reporter = sentryreport.FromEnv
	sf.Telemetry = otelmcp.FromEnv    // --otel or OTEL_EXPORTER_OTLP_ENDPOINT: spans and metrics over OTLP
	sf.TaskStore = redisstore.FromURL // --task-store redis://… (MCP_TASK_STORE): tasks shared by every instance
	env := func(name string) string { return " (env " + flagEnv[name] + ")" }
	allowWrites := fs.Bool("allow-writes", false, "register the execute tool for INSERT, UPDATE, DELETE and DDL; the user confirms each statement"+env("allow-writes"))
	noConfirm := fs.Bool("no-confirm", false, "with --allow-writes, run each statement without asking the user: for unattended agents whose host already confirms each call"+env("no-confirm"))
	allowSuperuser := fs.Bool("allow-superuser", false, "start even when the role is a superuser, which can read the database server's files from a read-only query"+env("allow-superuser"))
	timeout := fs.Duration("statement-timeout", postgres.DefaultStatementTimeout, "longest a statement may run"+env("statement-timeout"))
	maxRows := fs.Int("max-rows", postgres.DefaultMaxRows, "most rows a query returns; reading stops there"+env("max-rows"))
	maxBytes := fs.Int("max-bytes", postgres.DefaultMaxBytes, "about the most bytes of rows a query returns"+env("max-bytes"))
	maxConns := fs.Int("max-conns", 0, "connections in the pool (0: pgxpool's default, or pool_max_conns in the URL)"+env("max-conns"))
	var more, descriptions listFlag
	fs.Var(&more, "database", "serve one more database as NAME=URL; repeatable (the environment form holds one NAME=URL a line)"+env("database"))
	fs.Var(&descriptions, "describe-database", "a one-line description of a database for the model, as NAME=TEXT; repeatable (environment: one a line)"+env("describe-database"))
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version {
		fmt.Fprintln(stdout, "mcp-server-postgres", mcpkit.Version)
		return nil
	}
	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("expected at most one argument, the database URL; got %d (quote a key=value connection string as one argument)", fs.NArg())
	}
	databaseURL := getenv("DATABASE_URL")
	if fs.NArg() == 1 {
		databaseURL = fs.Arg(0)
	}
	entries, err := databaseEntries(databaseURL, more, descriptions)
	if err != nil {
		return err
	}
	switch {
	case *noConfirm && !*allowWrites:
		return errors.New("--no-confirm only applies with --allow-writes (there is nothing to confirm on a read-only server)")
	case *timeout < time.Millisecond:
		return fmt.Errorf("--statement-timeout %s is too short: use at least 1ms, e.g. 30s", *timeout)
	case *maxRows < 1:
		return fmt.Errorf("--max-rows %d: must be at least 1", *maxRows)
	case *maxBytes < 1024:
		return fmt.Errorf("--max-bytes %d: must be at least 1024", *maxBytes)
	case *maxConns < 0 || *maxConns > 10000:
		return fmt.Errorf("--max-conns %d: must be between 0 (default) and 10000", *maxConns)
	}
	opts, err := sf.Options()
	if err != nil {
		return err
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	// The database is reached in the background: the server answers discovery,
	// initialize and tools/list at once, and a call that needs the database waits for
	// the connection and the role check (or fails with their error). A refused role
	// ends the process, as before, once the calls waiting for the check have been
	// answered with the refusal.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t0 := time.Now()
	opened := make([]*started, 0, len(entries))
	defer func() {
		for _, o := range opened {
			o.db.Close()
		}
	}()
	for _, e := range entries {
		o := &started{entry: e, logged: make(chan struct{})}
		what := []any{}
		if len(entries) > 1 {
			what = append(what, "name", e.name)
		}
		pgOpts := postgres.Options{StatementTimeout: *timeout, MaxRows: *maxRows, MaxBytes: *maxBytes, MaxConns: int32(*maxConns)}
		if opts.Telemetry != nil {
			pgOpts.Tracer = pgotel.New(otel.GetTracerProvider()) // a span per statement under the tool call's
		}
		db, startup, err := postgres.Start(ctx, e.url, pgOpts, postgres.StartConfig{
			Policy: postgres.RolePolicy{AllowWrites: *allowWrites, AllowSuperuser: *allowSuperuser},
			Checked: func(access *postgres.WriteAccess, warnings []string, err error) {
				var refused *postgres.RefusedError
				switch {
				case errors.As(err, &refused):
					// Reported when the process ends (see below); calls get it meanwhile.
					time.AfterFunc(refusalGrace, cancel)
				case err != nil:
					logger.Error("the database is not reachable yet; every call that needs it tries again", append(what, "error", err.Error())...)
				default:
					for _, w := range warnings {
						logger.Warn(w, what...)
					}
				}
			},
		})
		if err != nil {
			return e.named(err) // names host, database and user; never the password
		}
		o.db, o.startup = db, startup
		opened = append(opened, o)
		t := db.Target()
		go func() {
			select {
			case <-startup.Done():
				if startup.Err() == nil {
					logger.Info("connected", append(what, "host", t.Host, "port", t.Port, "database", t.Database, "user", t.User,
						"allowWrites", *allowWrites, "noConfirm", *noConfirm, "statementTimeout", *timeout, "maxRows", *maxRows, "maxBytes", *maxBytes,
						"after", time.Since(t0).Round(time.Microsecond))...)
				}
				close(o.logged)
			case <-ctx.Done():
				close(o.logged)
			}
		}()
	}

	cfg := postgres.Config{AllowWrites: *allowWrites, NoConfirm: *noConfirm, Logger: logger}
	var s *mcpkit.Server
	if len(opened) == 1 {
		s = postgres.New(cfg, opened[0].db)
	} else {
		list := make([]postgres.NamedDB, len(opened))
		def := ""
		for i, o := range opened {
			list[i] = postgres.NamedDB{Name: o.name, Description: o.description, DB: o.db}
			if o.isDefault {
				def = o.name
			}
		}
		if s, err = postgres.NewMulti(cfg, list, def); err != nil {
			return err
		}
	}
	opts.Stdin, opts.Stdout = stdin, stdout
	opts.Ready = func(ctx context.Context) error {
		for _, o := range opened {
			if err := o.db.Ping(ctx); err != nil {
				return o.named(err)
			}
		}
		return nil
	}
	serveErr := serve.Serve(ctx, s, opts)
	// How the start went is part of how the process ends: a refusal or a database
	// that was never reached makes the exit status 1 with the reason, as when both
	// were checked before serving. (With stdin closed at once, this waits for the
	// checks, bounded by the connect timeout.)
	deadline := time.After(postgres.DefaultConnectTimeout + 2*time.Second)
	for _, o := range opened {
		select {
		case <-o.startup.Done():
		case <-deadline:
		}
		<-o.logged
	}
	for _, o := range opened {
		if err := o.startup.Err(); err != nil {
			if len(opened) > 1 {
				return o.named(err)
			}
			return err
		}
	}
	return serveErr
}

// started is one database being started.
type started struct {
	entry
	db      *postgres.DB
	startup *postgres.Startup
	logged  chan struct{}
}

// refusalGrace is how long a refused server keeps serving after the refusal, so that
// the calls that were waiting for the role check are answered with it before the
// process ends.
const refusalGrace = 200 * time.Millisecond
