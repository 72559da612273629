package mcpkit

// Version is the version of this repository's build, stamped at link time with
// -ldflags "-X github.com/mcpkit/reference/pkg/mcpkit.Version=v1.2.3". Servers report
// it in serverInfo and --version.
var Version = "dev"
