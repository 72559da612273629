// Command everything is the conformance fixture: an mcpkit server exposing the tools,
// resources and prompts the official MCP conformance suite calls. It serves stdio by
// default and Streamable HTTP with --http ADDR.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
}

// run is main without the process: flags in, exit error out.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, sf, version := newFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version {
		fmt.Fprintln(stdout, "everything", mcpkit.Version)
		return nil
	}
	opts, err := sf.Options()
	if err != nil {
		return err
	}
	opts.Stdin, opts.Stdout = stdin, stdout
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	return serve.Serve(ctx, newServer(logger), opts)
}

// newFlags defines the command line: the standard flags of package serve (--http
// ADDR and the remote-deployment flags, each with its MCP_* environment variable,
// JWT verification and Sentry reporting included, as the servers have them) and
// --version.
func newFlags(stderr io.Writer) (*flag.FlagSet, *serve.Flags, *bool) {
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	sf.Reporter = sentryreport.FromEnv
	sf.TaskStore = redisstore.FromURL // --task-store redis://… (MCP_TASK_STORE)
	version := fs.Bool("version", false, "print the version and exit")
	return fs, sf, version
}
