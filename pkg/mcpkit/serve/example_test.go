package serve_test

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/sentryreport"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// A server's main gets HTTP mode, authorization, limits, health checks, graceful
// shutdown, audit logs and Sentry reporting from the standard flags (and their
// MCP_* environment variables): one call to RegisterFlags, one to Options. JWT
// verification and Sentry reporting are linked in only when main asks for them.
// The server's own flags get environment variables with EnvFlags.
func ExampleRegisterFlags() {
	fs := flag.NewFlagSet("mcp-server-notes", flag.ContinueOnError)
	sf := serve.RegisterFlags(fs)
	sf.JWT = jwt.FromIssuer            // --auth-issuer
	sf.Reporter = sentryreport.FromEnv // SENTRY_DSN
	allowWrites := fs.Bool("allow-writes", false, "register the write tools (env NOTES_ALLOW_WRITES)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := serve.EnvFlags(fs, os.Getenv, map[string]string{"allow-writes": "NOTES_ALLOW_WRITES"}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-notes:", err)
		os.Exit(2)
	}
	opts, err := sf.Options()
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
	if err := serve.Serve(context.Background(), s, opts); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server-notes:", err)
		os.Exit(1)
	}
}
