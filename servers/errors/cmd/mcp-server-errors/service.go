package main

import (
	"bytes"
	"embed"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

// The per-user service files that run this binary as the collector. They are
// templates: --install-service fills in the binary's path and the local flags given.
//
//go:embed service/mcp-server-errors.service service/io.mcpkit.mcp-server-errors.plist
var serviceFiles embed.FS

const (
	systemdUnitName = "mcp-server-errors.service"
	launchdLabel    = "io.mcpkit.mcp-server-errors"
)

// serviceFlags are the settings carried into the service's command line when they
// differ from their defaults (given as flags or through their environment variables).
var serviceFlags = []string{"data", "ingest", "dsn-key", "max-bytes", "max-age", "code-mapping", "in-app", "spotlight", "page"}

// serviceAccepts are the flags --install-service takes besides serviceFlags: itself,
// and the two that say what it installs anyway.
var serviceAccepts = []string{"install-service", "ingest-only", "backend"}

// uncarried lists the flags given on the command line that the service would not
// carry (the standard serve flags such as --http: the collector serves no MCP), so
// --install-service refuses them instead of writing a unit that silently drops them.
func uncarried(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(serviceFlags, fl.Name) && !slices.Contains(serviceAccepts, fl.Name) {
			out = append(out, "--"+fl.Name)
		}
	})
	return out
}

// goRunBinary reports whether exe is a temporary binary `go run` built in the Go
// build cache's scratch directory (…/go-build…/exe/…), deleted when it exits: a
// service that runs it would fail at its next start.
func goRunBinary(exe string) bool {
	dir := filepath.ToSlash(filepath.Dir(exe))
	return strings.Contains(dir, "/go-build") && strings.HasSuffix(dir, "/exe")
}

// installHint is how to get a binary a service can run.
const installHint = "install one first, then run it with --install-service: `go install github.com/mcpkit/reference/servers/errors/cmd/mcp-server-errors@latest` (it goes to $(go env GOPATH)/bin), or `make build` in the repository (bin/mcp-server-errors)"

// serviceArgs is the collector's command line: this binary, --ingest-only and the
// local settings that differ from their defaults (the data directory made absolute).
func serviceArgs(fs *flag.FlagSet, exe string) ([]string, error) {
	args := []string{exe, "--ingest-only"}
	for _, name := range serviceFlags {
		fl := fs.Lookup(name)
		v := fl.Value.String()
		if v == fl.DefValue {
			continue
		}
		if name == "data" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return nil, fmt.Errorf("--data %q: %w", v, err)
			}
			v = abs
		}
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			args = append(args, "--"+name+"="+v) // a bool flag takes no separate value
			continue
		}
		args = append(args, "--"+name, v)
	}
	return args, nil
}

// systemdQuote quotes one ExecStart word: systemd splits on spaces, honours double
// quotes with backslash escapes, and expands % specifiers and $ variables.
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	s = strings.ReplaceAll(s, "$", "$$")
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// renderService renders the service file for goos: its path under home and content.
func renderService(goos string, getenv func(string) string, args []string) (path string, content []byte, start string, err error) {
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", nil, "", fmt.Errorf("--install-service needs HOME to find the per-user service directory")
	}
	var name string
	data := map[string]any{"Args": args}
	switch goos {
	case "linux":
		dir := filepath.Join(home, ".config", "systemd", "user")
		if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			dir = filepath.Join(x, "systemd", "user")
		}
		path, name = filepath.Join(dir, systemdUnitName), "service/mcp-server-errors.service"
		words := make([]string, len(args))
		for i, a := range args {
			words[i] = systemdQuote(a)
		}
		data["ExecStart"] = strings.Join(words, " ")
		start = "systemctl --user enable --now " + strings.TrimSuffix(systemdUnitName, ".service")
	case "darwin":
		path, name = filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist"), "service/io.mcpkit.mcp-server-errors.plist"
		data["Log"] = filepath.Join(home, "Library", "Logs", "mcp-server-errors.log")
		start = "launchctl bootstrap gui/$(id -u) " + path
	default:
		return "", nil, "", fmt.Errorf("--install-service knows systemd (Linux) and launchd (macOS), not %s: run `%s` at login with your system's own tools", goos, strings.Join(args, " "))
	}
	src, err := serviceFiles.ReadFile(name)
	if err != nil {
		return "", nil, "", err
	}
	tmpl, err := template.New(name).Funcs(template.FuncMap{"xml": xmlText}).Parse(string(src))
	if err != nil {
		return "", nil, "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return "", nil, "", err
	}
	return path, b.Bytes(), start, nil
}

// installService writes the per-user service file and says how to start it.
func installService(fs *flag.FlagSet, getenv func(string) string, goos string, stdout io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--install-service: where is this binary? %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return installServiceFor(fs, getenv, goos, stdout, exe)
}

// installServiceFor is installService for the binary at exe.
func installServiceFor(fs *flag.FlagSet, getenv func(string) string, goos string, stdout io.Writer, exe string) error {
	if goRunBinary(exe) {
		return fmt.Errorf("--install-service: this binary (%s) is the temporary one `go run` built, deleted when it exits, so a service could not start it: %s", exe, installHint)
	}
	if bad := uncarried(fs); len(bad) > 0 {
		return fmt.Errorf("--install-service cannot carry %s into the collector's service, which takes only the collector's own settings (--%s): leave them out", strings.Join(bad, ", "), strings.Join(serviceFlags, ", --"))
	}
	args, err := serviceArgs(fs, exe)
	if err != nil {
		return err
	}
	path, content, start, err := renderService(goos, getenv, args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--install-service: %w", err)
	}
	_, statErr := os.Stat(path)
	replaced := statErr == nil
	if replaced && goos == "linux" {
		start = "systemctl --user daemon-reload && " + strings.Replace(start, "enable --now", "restart", 1)
	} else if replaced && goos == "darwin" {
		start = "launchctl bootout gui/$(id -u)/" + launchdLabel + "; " + start
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("--install-service: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s, which runs: %s\nstart the collector now and at every login with:\n  %s\n", path, strings.Join(args, " "), start)
	return nil
}
