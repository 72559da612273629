// Command mcp-server-hello serves a directory of Markdown notes over MCP: read-only by
// default; with --allow-writes, a write tool whose every change the user confirms.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mcpkit/reference/examples/hello"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-hello:", err)
		os.Exit(1)
	}
}

// flagEnv pairs this server's own flags with their environment variables. (The
// standard serve flags, --http and the rest, read their MCP_* variables: see
// mcpkit.RegisterServeFlags.)
var flagEnv = [][2]string{{"dir", "HELLO_NOTES_DIR"}, {"allow-writes", "HELLO_ALLOW_WRITES"}}

// run is main without the process: arguments, environment and streams in, an error
// out.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-hello", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := mcpkit.RegisterServeFlags(fs)
	dir := fs.String("dir", "", "directory of the notes, one NAME.md file each (env HELLO_NOTES_DIR)")
	allowWrites := fs.Bool("allow-writes", false, "register write_note; the user confirms each change (env HELLO_ALLOW_WRITES)")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; all settings are flags (see --help)", fs.Arg(0))
	}
	if *version {
		fmt.Fprintln(stdout, "mcp-server-hello", mcpkit.Version)
		return nil
	}
	if err := applyEnv(fs, getenv); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("no notes directory: pass --dir DIR or set HELLO_NOTES_DIR")
	}
	root, err := os.OpenRoot(*dir)
	if err != nil {
		return fmt.Errorf("the notes directory: %w", err)
	}
	defer root.Close()
	opts, err := sf.ServeOptions()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	logger.Info("configured", "dir", *dir, "allowWrites", *allowWrites)
	opts.Stdin, opts.Stdout = stdin, stdout
	return mcpkit.Serve(ctx, hello.New(hello.Config{Notes: root, AllowWrites: *allowWrites, Logger: logger}), opts)
}

// applyEnv sets each flag of flagEnv that was not given on the command line from its
// variable, through the flag's own parser, so a bad value is reported naming the
// variable. TODO(lead): replace with the serve package's env→flag helper.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, fe := range flagEnv {
		if v := getenv(fe[1]); v != "" && !given[fe[0]] {
			if err := fs.Set(fe[0], v); err != nil {
				return fmt.Errorf("%s=%q: %v", fe[1], v, err)
			}
		}
	}
	return nil
}
