package errorserver

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// allowedImports is the server's package graph: each package of this module and the
// packages of this module it may import. Imports run one way, from the command down
// to the event model; a package missing here, or an import not listed, fails
// TestPackagesImportOneWay. Tests may import more (a store test posts real envelopes
// through the ingest endpoint): only what a package builds with is held.
var allowedImports = map[string][]string{
	"internal/lazyregexp":   nil,
	"internal/errorstest":   nil,
	"event":                 {"internal/lazyregexp"},
	"backend":               {"event", "internal/lazyregexp"},
	"ingest":                {"backend", "event", "internal/lazyregexp"},
	"sentryapi":             {"backend", "event", "internal/lazyregexp"},
	"sentryapi/sentrytest":  {"sentryapi"},
	".":                     {"backend", "event", "internal/lazyregexp"},
	"cmd/mcp-server-errors": {".", "backend", "event", "ingest", "sentryapi"},
}

// TestPackagesImportOneWay holds allowedImports, the way pkg/mcpkit's
// TestOptionalLibrariesStayOut holds the optional libraries out of mcpkit: from
// `go list`, so a build tag or a new file cannot hide an import.
func TestPackagesImportOneWay(t *testing.T) {
	goTool, err := exec.LookPath("go")
	realclient.Require(t, err == nil, "no go command to list imports with: %v", err)
	const mod = "github.com/mcpkit/reference/servers/errors"
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	rel := func(path string) (string, bool) {
		if path == mod {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, _ := rel(fields[0])
		seen[pkg] = true
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("package %s is not in allowedImports: add it with the packages of this module it may import", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok && !slices.Contains(allowed, r) {
				t.Errorf("%s imports %s: it may import only %q (imports run one way; see the package map in README.md)", pkg, r, allowed)
			}
		}
	}
	for pkg := range allowedImports {
		if !seen[pkg] {
			t.Errorf("allowedImports names %s, which go list does not find: the check is out of date", pkg)
		}
	}
}
