package mcpkit_test

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// A server's main gets HTTP mode, authorization, limits, health checks, graceful
// shutdown, audit logs and Sentry reporting from the standard flags (and their
// MCP_* environment variables): one call to RegisterServeFlags, one to ServeOptions.
func ExampleRegisterServeFlags() {
	fs := flag.NewFlagSet("mcp-server-notes", flag.ContinueOnError)
	sf := mcpkit.RegisterServeFlags(fs)
	allowWrites := fs.Bool("allow-writes", false, "register the write tools")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	opts, err := sf.ServeOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-notes:", err)
		os.Exit(2)
	}
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "notes", Version: "1.0.0"}, &mcpkit.ServerOptions{ReadOnly: !*allowWrites})
	// A write tool needs the notes:write scope when the server runs with authorization.
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "add_note", Description: "Stores a note.", Scopes: []string{"notes:write"}},
		func(ctx context.Context, req *mcpkit.Request, in struct {
			Text string `json:"text"`
		}) (*mcpkit.CallToolResult, error) {
			req.Logger().Info("note stored", "bytes", len(in.Text)) // carries trace_id when the client sent one
			return &mcpkit.CallToolResult{Content: []mcpkit.Content{mcpkit.TextContent("stored")}}, nil
		})
	opts.Ready = func(ctx context.Context) error { return nil } // what /readyz checks: the backend
	if err := mcpkit.Serve(context.Background(), s, opts); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-notes:", err)
		os.Exit(1)
	}
}
