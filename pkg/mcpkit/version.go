package mcpkit

import "runtime/debug"

// Version is the version of this repository's build, stamped at link time with
// -ldflags "-X github.com/mcpkit/reference/pkg/mcpkit.Version=v1.2.3". Servers report
// it in serverInfo and --version. A binary built without the stamp reports the
// version of the module it was built from when the go command recorded one: `go
// install github.com/mcpkit/reference/servers/x/cmd/mcp-server-x@v1.2.3` reports
// v1.2.3. Otherwise (a build inside the repository) it stays "dev".
var Version = "dev"

func init() {
	if Version == "dev" {
		Version = buildVersion(debug.ReadBuildInfo())
	}
}

// buildVersion is the main module's version from the build information, or "dev"
// when there is none: "(devel)" is what the go command records for a build from a
// directory rather than a module version.
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "dev"
	}
	return bi.Main.Version
}
