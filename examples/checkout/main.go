// Command checkout plays the checkout journey end to end, the scene this
// repository's error and filesystem servers exist for: a developer asks an
// assistant "Why has checkout been failing since this morning? Check the recent
// errors and look at the payment code."
//
// It builds a small Go shop (module example.com/shop in ./shop, instrumented
// with sentry-go) whose release 1.4.0 offers EUR in the storefront but has no EUR
// rate, replays a night of its traffic (events with the times they happened at,
// sent while no MCP server runs), then, as the host, connects the official Go SDK
// client to mcp-server-errors over Streamable HTTP (2026-07-28) and stdio
// (2025-11-25) and to mcp-server-filesystem (stdio, rooted at the shop), makes
// the tool calls a good model makes, and prints each call, the bytes it returned
// and the material of the answer.
//
//	go run ./examples/checkout
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	var o Options
	flag.StringVar(&o.Repo, "repo", "", "repository root (default: found above the working directory)")
	flag.StringVar(&o.Bin, "bin", "", "directory holding mcp-server-errors and mcp-server-filesystem already built, such as ./bin after make build (default: build them)")
	flag.StringVar(&o.Work, "work", "", "directory for the builds and the event store, kept afterwards (default: a temporary one, removed)")
	flag.BoolVar(&o.Verbose, "v", false, "print every tool result in full")
	flag.BoolVar(&o.NoCodeMapping, "no-code-mapping", false, "start mcp-server-errors without --code-mapping: the host then has to find the frame's file")
	flag.Parse()
	o.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "checkout:", err)
		os.Exit(1)
	}
}
