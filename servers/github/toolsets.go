package github

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Toolsets, in the order tools/list shows them. Their names follow github-mcp-server's
// where it has the same one. DefaultToolsets are on when neither --toolsets nor
// --tools is given; the rest (issue 29: review threads, checks, compare, blame,
// deployments, …) cost nothing until named, as each added tool is context a model pays
// for in every request.
var Toolsets = []string{"repos", "git", "issues", "pull_requests", "code", "actions", "deployments",
	"code_security", "dependabot", "secret_protection", "security_advisories", "labels", "notifications", "discussions", "context", "users", "gists"}

// DefaultToolsets are today's five, with the tools they had before issue 29: a tool
// added to one of them later is marked extra and comes only when the toolset is named
// (or all), so the default costs what it did.
var DefaultToolsets = []string{"repos", "issues", "pull_requests", "code", "actions"}

// toolEntry is one row of the catalog: a tool of a toolset, with its handler bound to
// a backend. A tool writes to GitHub when it is not marked read-only.
type toolEntry struct {
	toolset string
	mcpkit.ServerTool
	// extra marks a tool of a default toolset that the default selection leaves out
	// (added by issue 29): naming its toolset, or the tool, enables it.
	extra bool
}

// inDefault reports whether the default selection (no --toolsets, no --tools, or
// --toolsets default) enables e.
func (e toolEntry) inDefault() bool { return slices.Contains(DefaultToolsets, e.toolset) && !e.extra }

func (e toolEntry) writes() bool { return !e.Tool.Annotations.ReadOnlyHint }

// writeScope is the OAuth scope every tool that writes to GitHub needs over
// authorized HTTP (github:write): New's server adds it to each tool not marked
// read-only, so a token with only the deployment's --auth-scopes reads but never
// writes. (GitHub's own permissions, those of GITHUB_TOKEN, apply besides.)
var writeScope = mcpkit.WriteScope("github")

// catalog is the server's tool table over backend b, every tool in tools/list order:
// per toolset, reads first; confirm says whether writes ask the user (not with
// --no-confirm). Only New runs its handlers; ToolNames and Selection pass a nil b, as
// they read the table's names and annotations alone.
func catalog(b *Backend, confirm bool) []toolEntry {
	var all []toolEntry
	for _, group := range [][]toolEntry{reposTools(b), issuesTools(b), pullsTools(b), codeTools(b), actionsTools(b), writeTools(b, confirm),
		breadthTools(b), breadthWriteTools(b, confirm)} {
		all = append(all, group...)
	}
	// Order by toolset, reads before writes, keeping each group's order, so a
	// toolset's tools stay together.
	slices.SortStableFunc(all, func(a, b toolEntry) int {
		if d := slices.Index(Toolsets, a.toolset) - slices.Index(Toolsets, b.toolset); d != 0 {
			return d
		}
		return cmpBool(a.writes(), b.writes())
	})
	return all
}

// ToolNames returns every tool name, write tools included, in tools/list order.
func ToolNames() []string {
	var names []string
	for _, e := range catalog(nil, true) {
		names = append(names, e.Tool.Name)
	}
	return names
}

// Selection is what --toolsets, --tools and --exclude-tools ask for. The zero value is
// the default: DefaultToolsets with the tools they had before issue 29.
type Selection struct {
	// Toolsets to enable; empty with empty Tools means the default. The name
	// "default" stands for the default selection.
	Toolsets []string
	// Tools to enable by name, in addition to the toolsets (alone: only these).
	Tools []string
	// Exclude names tools never to register, whatever else names them.
	Exclude []string
}

// ParseSelection reads the comma-separated --toolsets and --tools values. "all" in
// --toolsets means every toolset, "default" the default selection. Unknown names are
// errors that list the known ones.
func ParseSelection(toolsets, tools string) (Selection, error) {
	var sel Selection
	for _, name := range splitList(toolsets) {
		switch {
		case name == "all":
			sel.Toolsets = append(sel.Toolsets, Toolsets...)
		case name == "default" || slices.Contains(Toolsets, name):
			sel.Toolsets = append(sel.Toolsets, name)
		default:
			return Selection{}, fmt.Errorf("unknown toolset %q; expected a comma-separated list of %s (or all, or default)", clip(name), strings.Join(Toolsets, ", "))
		}
	}
	known := ToolNames()
	for _, name := range splitList(tools) {
		if !slices.Contains(known, name) {
			return Selection{}, fmt.Errorf("unknown tool %q; expected a comma-separated list of tool names: %s", clip(name), strings.Join(known, ", "))
		}
		sel.Tools = append(sel.Tools, name)
	}
	if strings.TrimSpace(toolsets) != "" && len(sel.Toolsets) == 0 {
		return Selection{}, fmt.Errorf("--toolsets %q names no toolset; expected e.g. repos,issues (omit it for the default)", clip(toolsets))
	}
	if strings.TrimSpace(tools) != "" && len(sel.Tools) == 0 {
		return Selection{}, fmt.Errorf("--tools %q names no tool; expected e.g. get_file_contents,search_code", clip(tools))
	}
	return sel, nil
}

// ParseExclude reads --exclude-tools: tool names, comma-separated, that are never
// registered. An unknown name is an error (a typo would otherwise leave the tool on).
func ParseExclude(tools string) ([]string, error) {
	known := ToolNames()
	var out []string
	for _, name := range splitList(tools) {
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("--exclude-tools names unknown tool %q; expected a comma-separated list of tool names: %s", clip(name), strings.Join(known, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// Check reports a selection that asks for a write tool by name while writes are
// off: that is a configuration mistake worth stopping for, not a silent omission.
func (sel Selection) Check(allowWrites bool) error {
	if allowWrites {
		return nil
	}
	for _, e := range catalog(nil, true) {
		if e.writes() && slices.Contains(sel.Tools, e.Tool.Name) {
			return fmt.Errorf("--tools names %s, which writes to GitHub; add --allow-writes (GITHUB_ALLOW_WRITES=1) to enable write tools", e.Tool.Name)
		}
	}
	return nil
}

// includes reports whether the selection enables e. Write tools additionally need
// writes to be allowed: without them New's server is ReadOnly and leaves them out.
func (sel Selection) includes(e toolEntry) bool {
	switch {
	case slices.Contains(sel.Exclude, e.Tool.Name):
		return false
	case len(sel.Toolsets) == 0 && len(sel.Tools) == 0:
		return e.inDefault()
	}
	return slices.Contains(sel.Toolsets, e.toolset) || slices.Contains(sel.Tools, e.Tool.Name) ||
		slices.Contains(sel.Toolsets, "default") && e.inDefault()
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
