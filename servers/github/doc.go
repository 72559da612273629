// Package github is mcp-server-github: GitHub and GitHub Enterprise Server through
// github.com/google/go-github, shaped for a model and served over MCP.
//
// What it adds to go-github, and why:
//
//   - ParseHost: github.com, GHE.com tenants and Enterprise hosts (https://HOST/api/v3/);
//     plain http only for loopback, so a token never crosses a network in clear text.
//   - AllowList (--repos owner/name,owner/*): checked by every operation before any
//     request is sent; search results outside it are dropped and counted.
//   - Lockdown: on public repositories, text by users without push access is replaced
//     by a notice, because public issues are where prompt injection comes from.
//   - HTTPCache: conditional requests (ETag / Last-Modified), so repeated reads are
//     answered by 304s that do not spend rate limit; bounded, per-token entries; only
//     answers that decoded completely are kept.
//   - Rate limits: short waits are retried, long ones reported with the reset time and
//     not retried until then.
//   - Transient failures: reads follow the repository's one retry policy
//     (pkg/mcpkit/upstream); an HTML page where data was asked for is an error; every
//     failure names GitHub, the operation, the status and the next step.
//   - Bounded, sanitized results: every text field passes through mcpkit.CleanText,
//     files, diffs and logs are windows with a hint naming the next window, lists are
//     pages with an explicit next page, and anything cut is marked truncated.
//
// Two layers. The backend (backend.go and the files named after GitHub's areas) does
// the work and knows nothing of MCP. The MCP layer (server.go, toolsets.go, tools_*.go,
// resource.go, prompt.go) exposes it: New registers the selected toolsets' tools, read
// only unless writes are allowed, each write confirmed by the user through elicitation
// of the backend's Describe… text (not with --no-confirm, where the host confirms each
// call); a repo:// resource template for files; and the review_pull_request prompt. cmd/mcp-server-github reads flags and environment.
package github
