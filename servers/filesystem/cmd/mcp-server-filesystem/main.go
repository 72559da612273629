// Command mcp-server-filesystem serves local directories over MCP: confined to the
// directories it is given, read-only unless started with --allow-writes, with files
// as resources and change notifications.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/otelmcp"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/pkg/mcpkit/taskstore/redisstore"
	filesystem "github.com/mcpkit/reference/servers/filesystem"

	// CA roots for TLS (GitHub, Sentry, PostgreSQL with sslmode, SENTRY_DSN over https)
	// when the system has none: the release images hold only the binary.
	_ "golang.org/x/crypto/x509roots/fallback"
)

// Environment variables of the server's own settings (the standard serve flags have
// theirs: see serve.FlagEnv).
const (
	envRoots       = "MCP_FS_ROOTS"        // path list (: separated on Unix), used when no DIR is given
	envAllowWrites = "MCP_FS_ALLOW_WRITES" // 1/true registers the write tools
	envNoConfirm   = "MCP_FS_NO_CONFIRM"   // 1/true: destructive writes do not ask the user
	envWatch       = "MCP_FS_WATCH"        // 0/false turns change notifications off
	envMaxWatches  = "MCP_FS_MAX_WATCHES"  // most directories watched
)

// flagEnv maps this server's own flags to their environment variables.
var flagEnv = map[string]string{
	"allow-writes": envAllowWrites,
	"no-confirm":   envNoConfirm,
	"watch":        envWatch,
	"max-watches":  envMaxWatches,
}

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-filesystem:", err)
		os.Exit(1)
	}
}

// run is main without the process: arguments, environment and streams in, an error
// out. A flag given on the command line wins over its environment variable; the
// directories come from the arguments, or from MCP_FS_ROOTS when there are none.
// (The standard serve flags, --http and the rest, read their MCP_* variables from the
// process environment: see serve.RegisterFlags.)
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-filesystem", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mcp-server-filesystem [--allow-writes] [--http ADDR] [flags] DIR...")
		fmt.Fprintln(fs.Output(), "Serves the named directories (or those in "+envRoots+") over MCP; read-only unless --allow-writes.")
		fs.PrintDefaults()
	}
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer
	sf.Reporter = sentryreport.FromEnv
	sf.Telemetry = otelmcp.FromEnv    // --otel or OTEL_EXPORTER_OTLP_ENDPOINT: spans and metrics over OTLP
	sf.TaskStore = redisstore.FromURL // --task-store redis://… (MCP_TASK_STORE): tasks shared by every instance
	allowWrites := fs.Bool("allow-writes", false, "register the write tools write_file, edit_file, create_directory, move_file, copy_file, delete_file and delete_directory, and remove stale temporary files of interrupted writes at start (env "+envAllowWrites+"=1)")
	noConfirm := fs.Bool("no-confirm", false, "with --allow-writes, replace, edit, overwrite and delete files without asking the user: for unattended agents whose host already confirms each call (env "+envNoConfirm+"=1)")
	watch := fs.Bool("watch", true, "watch the directories for resource change notifications, from the first resources or subscriptions request on (env "+envWatch+"=0 to turn off)")
	maxWatches := fs.Int("max-watches", filesystem.DefaultMaxWatches, "most directories watched for changes; beyond it changes go unreported (env "+envMaxWatches+")")
	version := fs.Bool("version", false, "print the version and exit")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *version {
		fmt.Fprintln(stdout, "mcp-server-filesystem", mcpkit.Version)
		return nil
	}
	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil {
		return err
	}
	if len(dirs) == 0 {
		dirs = splitPathList(getenv(envRoots))
	}
	if len(dirs) == 0 {
		return fmt.Errorf("no directories given: name at least one directory to serve, for example `mcp-server-filesystem ~/projects`, or set %s to a list of directories separated by %q", envRoots, string(os.PathListSeparator))
	}
	if *noConfirm && !*allowWrites {
		return errors.New("--no-confirm only applies with --allow-writes (there is nothing to confirm on a read-only server)")
	}
	if *maxWatches < 1 {
		return fmt.Errorf("--max-watches must be at least 1 (got %d); use --watch=false to turn watching off", *maxWatches)
	}
	opts, err := sf.Options()
	if err != nil {
		return err
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	roots, err := filesystem.OpenRoots(dirs...)
	if err != nil {
		return err
	}
	defer roots.Close()
	logger.Info("configured", "directories", strings.Join(roots.Dirs(), string(os.PathListSeparator)), "allowWrites", *allowWrites, "noConfirm", *noConfirm, "watch", *watch)

	s := filesystem.New(filesystem.Config{AllowWrites: *allowWrites, NoConfirm: *noConfirm, Logger: logger}, roots)
	if *watch {
		lw := filesystem.WatchOnDemand(s, roots, filesystem.WatchOptions{MaxWatches: *maxWatches, Logger: logger})
		defer lw.Close()
	}
	if *allowWrites {
		// Temporary files of writes a killed server left behind: removed in the
		// background once stale (a read-only server deletes nothing; listings hide them
		// in both modes). Stopped before the roots close.
		defer filesystem.StartTempCleanup(roots, filesystem.TempCleanOptions{Logger: logger})()
	}
	opts.Stdin, opts.Stdout = stdin, stdout
	opts.Ready = ready(roots)
	return serve.Serve(ctx, s, opts)
}

// ready is the /readyz check: every allowed directory still exists at its path. It
// checks the paths, not the open handles: a handle keeps a removed or unmounted
// directory alive, and the server would then answer about nothing.
func ready(roots *filesystem.Roots) func(context.Context) error {
	return func(context.Context) error {
		for _, r := range roots.List() {
			if st, err := os.Stat(r.Dir()); err != nil || !st.IsDir() {
				return fmt.Errorf("allowed directory %s no longer exists as a directory", r.Dir())
			}
		}
		return nil
	}
}

// parseInterspersed parses flags wherever they appear among the directories
// (`DIR --allow-writes` works like `--allow-writes DIR`, as hosts' configs often
// list them); everything after "--" is a directory.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var dirs []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(dirs, rest...), nil
		}
		if len(rest) == 0 {
			return dirs, nil
		}
		dirs = append(dirs, rest[0])
		args = rest[1:]
	}
}

// splitPathList splits a path list such as MCP_FS_ROOTS, dropping empty entries.
func splitPathList(s string) []string {
	var out []string
	for _, p := range filepath.SplitList(s) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
