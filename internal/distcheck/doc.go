// Package distcheck checks what users take out of this repository to run or copy a
// server, none of which the servers' own tests see: the host configuration snippets
// in the READMEs and the root README's install table (host × install path), the
// READMEs' flag tables (each flag and its variable against the binary's -h) and tools
// tables (each tool and its read-only column against the golden tools/list), the
// `go install` commands they show, each server's MCP Registry metadata
// (servers/*/server.json: image, npm package, MCP Bundles) and MCP Bundle manifest
// (servers/*/mcpb-manifest.json), the release configuration (.goreleaser.yaml), and
// the copy-the-template path of docs/new-server.md. (tools/release takes each install
// path itself: go install from a module proxy, npx, the bundles.) The template,
// examples/hello, is checked like a server (its README snippets and server.json),
// except that it is not released and its README need not show every host.
//
// # How a server's flags and environment variables are known
//
// The tests build every servers/*/cmd/mcp-server-* and examples/*/cmd/mcp-server-*
// once (two at a time) and ask the result, rather than keeping a list that could
// drift:
//
//   - Flags come from the binary's own -h output (the flag package's PrintDefaults:
//     "  -name type" takes a value, "  -name" is a boolean). On top of the name check,
//     each snippet's argument list is handed to the binary itself as
//     `mcp-server-x --version ARGS...`: the real flag parser then judges values (a
//     duration that is not one) and stray arguments (a server that takes none), and
//     --version makes it exit before serving.
//   - The standard serve settings a snippet makes (--http, --auth-*, their MCP_*
//     variables) are then configured in the test process exactly as the server
//     configures them at start (Server.ServeConfig, serve.Flags.Options), with the
//     token and key files it names and the values of variables it does not show
//     replaced by valid stand-ins: a combination the server refuses, such as
//     --auth-static-file without --auth-resource, fails the snippet, though each flag
//     parses on its own.
//   - Environment variables are the union of serve.StandardEnv() (the standard
//     serve flags' MCP_* variables and the secrets read without a flag), the
//     "(env NAME" mentions of the -h output (every flag's variable), and a scan of
//     the Go source the command links from the server's own module (go list -deps,
//     test files and unlinked helpers left out): every string literal shaped like a
//     variable (SENTRY_AUTH_TOKEN: upper case words joined by underscores) and every
//     literal passed to a function named getenv or lookupEnv. That finds variables
//     read through constants, maps of flag variables and lists of alternatives
//     (GITHUB_TOKEN or GITHUB_PERSONAL_ACCESS_TOKEN) without following data flow.
//     Variables that only a dependency reads (libpq's PGPASSWORD through pgx) are not
//     found: snippets use DATABASE_URL.
//
// The root README may show what every server takes with a placeholder
// (mcp-server-x); such a launch is checked against the flags and variables all
// servers share. In a server's README an unknown server is an error.
package distcheck
