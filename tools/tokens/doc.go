// Package tokens measures what the servers of this repository cost a model's context,
// side by side with the servers they replace, and holds the budgets (issue 16).
//
// Everything is in its tests: `make tokens` runs TestTokens verbosely and prints the
// table; `make test` runs the same test (the budgets fail it when exceeded). For each
// server and mode (read-only, --allow-writes) it reports:
//
//   - tools: how many tools tools/list shows;
//   - model: the model-visible definition bytes, the sum over the tools of the compact
//     JSON of {"name","description","inputSchema"}, which is what VS Code and Claude
//     Code put in front of the model for each tool (neither passes outputSchema,
//     title or annotations);
//   - instr: the server's instructions, which hosts add to the system prompt once;
//   - list: the compact JSON of the whole tools/list result {"tools":[...]}, what
//     travels and what a host keeps;
//   - the bytes of a fixed set of typical results, each in two views: text, the text
//     blocks (what hosts that read content pass the model, Claude Desktop among them),
//     and host, what VS Code and Claude Code pass instead: the compact JSON of
//     structuredContent whenever a result has it, else the text.
//
// Tokens are estimated with one rule everywhere: tokens ≈ bytes / 4, rounded up (the
// usual figure for English text and JSON under BPE tokenizers). It is an estimate for
// comparing sizes, not a tokenizer's count.
//
// The servers run in-process against fixtures: a generated directory tree
// (filesystem), a PostgreSQL database with an orders table (postgres, on the throwaway
// cluster of servers/postgres/postgrestest), the local event store with a few events
// ingested (errors) and an HTTP fake of the GitHub API serving servers/github/testdata
// (github). The anchors are the pinned TypeScript reference filesystem server, run with
// the pinned Node 22 (tools/npm); github-mcp-server's committed tool snapshots for the
// same capabilities (testdata/github-mcp-server, source noted there); and, for the
// errors server, the size of @sentry/mcp-server's tools/list as issue 16 quotes it.
package tokens
