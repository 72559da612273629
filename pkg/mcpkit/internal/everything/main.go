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
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
}

// run is main without the process: flags in, exit error out.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	fs.SetOutput(stderr)
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version {
		fmt.Fprintln(stdout, "everything", mcpkit.Version)
		return nil
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	s := newServer(logger)
	return mcpkit.Serve(ctx, s, &mcpkit.ServeOptions{HTTPAddr: *httpAddr, Stdin: stdin, Stdout: stdout})
}
