package mcpkit_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestOptionalLibrariesStayOut: the core, the process layer and the OAuth resource
// server link neither the JOSE library, sentry-go nor OpenTelemetry, so a server
// that does not import package auth/jwt, sentryreport or otelmcp carries none of
// them; those three packages are the ones that do (checked too, so that a renamed
// module cannot make the first check pass vacuously).
func TestOptionalLibrariesStayOut(t *testing.T) {
	goTool, err := exec.LookPath("go")
	realclient.Require(t, err == nil, "no go command to list dependencies with: %v", err)
	const mod = "github.com/mcpkit/reference/pkg/mcpkit"
	optional := []string{"github.com/go-jose/", "github.com/getsentry/", "go.opentelemetry.io/"}
	deps := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	links := func(deps []string, prefix string) bool {
		for _, d := range deps {
			if strings.HasPrefix(d, prefix) {
				return true
			}
		}
		return false
	}
	// The template server (stdio and HTTP through serve, no JWT, no Sentry) is what a
	// new server starts from: it must stay free of both.
	const template = "github.com/mcpkit/reference/examples/hello/cmd/mcp-server-hello"
	for _, pkg := range []string{mod, mod + "/serve", mod + "/auth", template} {
		d := deps(pkg)
		for _, o := range optional {
			if links(d, o) {
				t.Errorf("%s links %s…: only %s/auth/jwt, %s/sentryreport and %s/otelmcp may", pkg, o, mod, mod, mod)
			}
		}
	}
	for pkg, want := range map[string]string{mod + "/auth/jwt": optional[0], mod + "/sentryreport": optional[1],
		mod + "/otelmcp": "go.opentelemetry.io/otel/sdk/trace"} {
		if !links(deps(pkg), want) {
			t.Errorf("%s does not link %s…: the check above names the wrong module", pkg, want)
		}
	}
}
