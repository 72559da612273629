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
	"os"
	"strconv"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	github "github.com/mcpkit/reference/servers/github"
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

// run is main without the process: arguments, environment and streams in, an error
// out. Every flag has an environment variable; a flag given on the command line wins.
// (The standard serve flags, --http and the rest, read their MCP_* variables from the
// process environment: see mcpkit.RegisterServeFlags.)
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-github", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := mcpkit.RegisterServeFlags(fs)
	lockdownEnv, err := envBool(getenv, "GITHUB_LOCKDOWN")
	if err != nil {
		return err
	}
	writesEnv, err := envBool(getenv, "GITHUB_ALLOW_WRITES")
	if err != nil {
		return err
	}
	host := fs.String("gh-host", getenv("GITHUB_HOST"), "GitHub Enterprise host name or URL (env GITHUB_HOST; default github.com)")
	repos := fs.String("repos", getenv("GITHUB_REPOS"), "only these repositories: owner/name,owner/* (env GITHUB_REPOS; default all the token can see)")
	lockdown := fs.Bool("lockdown", lockdownEnv, "hide text by users without push access on public repositories (env GITHUB_LOCKDOWN)")
	toolsets := fs.String("toolsets", getenv("GITHUB_TOOLSETS"), "toolsets to enable: "+strings.Join(github.Toolsets, ",")+" or all (env GITHUB_TOOLSETS; default all)")
	tools := fs.String("tools", getenv("GITHUB_TOOLS"), "tools to enable by name, added to --toolsets (env GITHUB_TOOLS)")
	allowWrites := fs.Bool("allow-writes", writesEnv, "register the write tools; each write asks the user to confirm (env GITHUB_ALLOW_WRITES=1)")
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

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	var allow *github.AllowList
	if *repos != "" || flagSet(fs, "repos") {
		if allow, err = github.ParseAllowList(*repos); err != nil {
			return err
		}
	}
	sel, err := github.ParseSelection(*toolsets, *tools)
	if err != nil {
		return err
	}
	if err := sel.Check(*allowWrites); err != nil {
		return err
	}
	opts, err := sf.ServeOptions()
	if err != nil {
		return err
	}
	token := github.TokenFromEnv(getenv)
	backend, err := github.NewBackend(github.BackendConfig{
		Token: token, Host: *host, Repos: allow, Lockdown: *lockdown, Logger: logger,
	})
	if err != nil {
		return err
	}
	if token == "" {
		logger.Warn("no GitHub token: tools are listed but every call fails until GITHUB_TOKEN or GITHUB_PERSONAL_ACCESS_TOKEN is set")
	}
	logger.Info("configured", "host", backend.Endpoint().Host, "repos", allow.String(), "lockdown", *lockdown,
		"toolsets", *toolsets, "tools", *tools, "allowWrites", *allowWrites)

	s := github.New(github.Config{Selection: sel, AllowWrites: *allowWrites, Logger: logger}, backend)
	opts.Stdin, opts.Stdout = stdin, stdout
	opts.Ready = func(context.Context) error {
		if token == "" {
			return errors.New("no GitHub token configured")
		}
		return nil
	}
	return mcpkit.Serve(ctx, s, opts)
}

// envBool reads a boolean environment variable: empty is false, anything
// strconv.ParseBool does not accept is an error naming the variable.
func envBool(getenv func(string) string, name string) (bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not a boolean; expected 1, true, 0 or false", name, v)
	}
	return b, nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
