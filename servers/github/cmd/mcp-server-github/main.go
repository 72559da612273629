// Command mcp-server-github serves GitHub and GitHub Enterprise Server over MCP:
// a small read-only toolset by default, writes only with --allow-writes and the
// user's confirmation, optionally confined to named repositories.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
	github "github.com/mcpkit/reference/servers/github"

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
		fmt.Fprintln(os.Stderr, "mcp-server-github:", err)
		os.Exit(1)
	}
}

// flagEnv maps this server's own flags to their environment variables.
var flagEnv = map[string]string{
	"gh-host":       "GITHUB_HOST",
	"repos":         "GITHUB_REPOS",
	"lockdown":      "GITHUB_LOCKDOWN",
	"toolsets":      "GITHUB_TOOLSETS",
	"tools":         "GITHUB_TOOLS",
	"exclude-tools": "GITHUB_EXCLUDE_TOOLS",
	"allow-writes":  "GITHUB_ALLOW_WRITES",
	"no-confirm":    "GITHUB_NO_CONFIRM",
}

// run is main without the process: arguments, environment and streams in, an error
// out. Every flag has an environment variable (flagEnv, applied with serve.EnvFlags);
// a flag given on the command line wins. (The standard serve flags, --http and the
// rest, read their MCP_* variables from the process environment: see
// serve.RegisterFlags.)
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-github", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	sf.Reporter = sentryreport.FromEnv
	sf.Telemetry = otelmcp.FromEnv    // --otel or OTEL_EXPORTER_OTLP_ENDPOINT: spans and metrics over OTLP
	sf.TaskStore = redisstore.FromURL // --task-store redis://… (MCP_TASK_STORE): tasks shared by every instance
	host := fs.String("gh-host", "", "GitHub Enterprise host name or URL (env GITHUB_HOST; default github.com)")
	repos := fs.String("repos", "", "only these repositories: owner/name,owner/* (env GITHUB_REPOS; default all the token can see)")
	lockdown := fs.Bool("lockdown", false, "hide text by users without push access on public repositories (env GITHUB_LOCKDOWN)")
	toolsets := fs.String("toolsets", "", "toolsets to enable: "+strings.Join(github.Toolsets, ",")+", default or all (env GITHUB_TOOLSETS; default: "+strings.Join(github.DefaultToolsets, ",")+")")
	tools := fs.String("tools", "", "tools to enable by name, added to --toolsets (env GITHUB_TOOLS)")
	exclude := fs.String("exclude-tools", "", "tools never to enable, whatever else names them (env GITHUB_EXCLUDE_TOOLS)")
	allowWrites := fs.Bool("allow-writes", false, "register the write tools; each write asks the user to confirm (env GITHUB_ALLOW_WRITES=1)")
	noConfirm := fs.Bool("no-confirm", false, "with --allow-writes, write without asking the user: for unattended agents whose host already confirms each call (env GITHUB_NO_CONFIRM=1)")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all settings are flags (see --help)", fs.Arg(0))
	}
	if *version {
		fmt.Fprintln(stdout, "mcp-server-github", mcpkit.Version)
		return nil
	}
	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil {
		return err
	}
	if *noConfirm && !*allowWrites {
		return errors.New("--no-confirm only applies with --allow-writes (there is nothing to confirm on a read-only server)")
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	var allow *github.AllowList
	if *repos != "" || flagSet(fs, "repos") {
		var err error
		if allow, err = github.ParseAllowList(*repos); err != nil {
			return err
		}
	}
	sel, err := github.ParseSelection(*toolsets, *tools)
	if err != nil {
		return err
	}
	if sel.Exclude, err = github.ParseExclude(*exclude); err != nil {
		return err
	}
	if err := sel.Check(*allowWrites); err != nil {
		return err
	}
	opts, err := sf.Options()
	if err != nil {
		return err
	}
	token := github.TokenFromEnv(getenv)
	bc := github.BackendConfig{Token: token, Host: *host, Repos: allow, Lockdown: *lockdown, Logger: logger}
	if opts.Telemetry != nil { // a client span per GitHub API call, under the tool call's span
		hc, err := otelmcp.HTTPClientFromEnv(getenv, github.Route)
		if err != nil {
			return err
		}
		bc.Transport, bc.Trace = hc.Attempts(http.DefaultTransport.(*http.Transport).Clone()), hc.Wrap
	}
	backend, err := github.NewBackend(bc)
	if err != nil {
		return err
	}
	if token == "" {
		logger.Warn("no GitHub token: tools are listed but every call fails until GITHUB_TOKEN or GITHUB_PERSONAL_ACCESS_TOKEN is set")
	}
	logger.Info("configured", "host", backend.Endpoint().Host, "repos", allow.String(), "lockdown", *lockdown,
		"toolsets", *toolsets, "tools", *tools, "excludeTools", *exclude, "allowWrites", *allowWrites, "noConfirm", *noConfirm)

	s := github.New(github.Config{Selection: sel, AllowWrites: *allowWrites, NoConfirm: *noConfirm, Logger: logger}, backend)
	opts.Stdin, opts.Stdout = stdin, stdout
	opts.Ready = func(context.Context) error {
		if token == "" {
			return errors.New("no GitHub token configured")
		}
		return nil
	}
	return serve.Serve(ctx, s, opts)
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
