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
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
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

// flagEnv pairs this server's own flags with their environment variables, applied
// with serve.EnvFlags: a flag given on the command line wins. (The standard serve
// flags, --http and the rest, read their MCP_* variables: see serve.RegisterFlags.)
var flagEnv = map[string]string{"dir": "HELLO_NOTES_DIR", "allow-writes": "HELLO_ALLOW_WRITES", "no-confirm": "HELLO_NO_CONFIRM"}

// run is main without the process: arguments, environment and streams in, an error
// out.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server-hello", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := serve.RegisterFlags(fs)
	dir := fs.String("dir", "", "directory of the notes, one NAME.md file each (env HELLO_NOTES_DIR)")
	allowWrites := fs.Bool("allow-writes", false, "register write_note; the user confirms each change (env HELLO_ALLOW_WRITES)")
	noConfirm := fs.Bool("no-confirm", false, "with --allow-writes, write without asking the user: for unattended agents whose host already confirms each call (env HELLO_NO_CONFIRM)")
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
	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("no notes directory: pass --dir DIR or set HELLO_NOTES_DIR")
	}
	if *noConfirm && !*allowWrites {
		return errors.New("--no-confirm only applies with --allow-writes (there is nothing to confirm on a read-only server)")
	}
	root, err := os.OpenRoot(*dir)
	if err != nil {
		return fmt.Errorf("the notes directory: %w", err)
	}
	defer root.Close()
	opts, err := sf.Options()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	logger.Info("configured", "dir", *dir, "allowWrites", *allowWrites, "noConfirm", *noConfirm)
	opts.Stdin, opts.Stdout = stdin, stdout
	return serve.Serve(ctx, hello.New(hello.Config{Notes: root, AllowWrites: *allowWrites, NoConfirm: *noConfirm, Logger: logger}), opts)
}
