package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// RootModule is the module at the repository root (pkg/mcpkit): the library every
// server requires at a published version.
const RootModule = "github.com/mcpkit/reference"

// The names under which the servers are published, each derived from the server's
// directory name (filesystem → mcp-server-filesystem).
const (
	npmScope       = "@mcpkit"
	sourceURL      = "https://github.com/mcpkit/reference"
	releaseURL     = sourceURL + "/releases/download"
	registryPrefix = "io.github.mcpkit/"
)

// Server is a released server: servers/<Name> with its command cmd/mcp-server-<Name>.
type Server struct {
	Name   string // "filesystem"
	Dir    string // absolute path of servers/filesystem
	Rel    string // "servers/filesystem"
	Cmd    string // "mcp-server-filesystem"
	Module string // "github.com/mcpkit/reference/servers/filesystem"
	// From server.json: the registry name, title and description.
	Title, Description string
}

// Package is the npm package of the server: @mcpkit/mcp-server-filesystem.
func (s Server) Package() string { return npmScope + "/" + s.Cmd }

// InstallPath is the package path `go install` takes.
func (s Server) InstallPath() string { return s.Module + "/cmd/" + s.Cmd }

// Tag is the git tag of the server module at version v: servers/filesystem/v1.2.3.
func (s Server) Tag(v string) string { return s.Rel + "/" + v }

// FindRoot returns the repository root above dir: the directory whose go.mod is the
// root module's.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modfile.ModulePath(b) == RootModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", RootModule)
		}
		dir = parent
	}
}

// FindServers lists servers/*/ that have cmd/mcp-server-<name>, in name order: the
// servers that are released. (examples/hello, the template, is not.)
func FindServers(root string) ([]Server, error) {
	cmds, err := filepath.Glob(filepath.Join(root, "servers", "*", "cmd", "mcp-server-*"))
	if err != nil {
		return nil, err
	}
	var out []Server
	for _, c := range cmds {
		dir := filepath.Dir(filepath.Dir(c))
		name := filepath.Base(dir)
		if filepath.Base(c) != "mcp-server-"+name {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return nil, fmt.Errorf("servers/%s: %v (each server is a module of its own)", name, err)
		}
		s := Server{Name: name, Dir: dir, Rel: "servers/" + name, Cmd: "mcp-server-" + name, Module: modfile.ModulePath(b)}
		var sj struct{ Name, Title, Description string }
		raw, err := os.ReadFile(filepath.Join(dir, "server.json"))
		if err != nil {
			return nil, fmt.Errorf("servers/%s: %v", name, err)
		}
		if err := json.Unmarshal(raw, &sj); err != nil {
			return nil, fmt.Errorf("servers/%s/server.json: %v", name, err)
		}
		s.Title, s.Description = sj.Title, sj.Description
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no servers/*/cmd/mcp-server-* under %s", root)
	}
	return out, nil
}

// DefaultPlatforms are the platforms a release is built for: the Makefile's
// PLATFORMS (TestPlatforms keeps the two equal).
const DefaultPlatforms = "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

// Platform is one target of the release builds, as Go names it and as npm and MCP
// Bundles name it.
type Platform struct{ GOOS, GOARCH string }

func (p Platform) String() string { return p.GOOS + "/" + p.GOARCH }

// NodeOS and NodeCPU are process.platform and process.arch on this platform (the
// os and cpu fields of package.json).
func (p Platform) NodeOS() string {
	if p.GOOS == "windows" {
		return "win32"
	}
	return p.GOOS
}

func (p Platform) NodeCPU() string {
	if p.GOARCH == "amd64" {
		return "x64"
	}
	return p.GOARCH
}

// Exe is the executable suffix: ".exe" on Windows.
func (p Platform) Exe() string {
	if p.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// ParsePlatforms reads "linux/amd64 darwin/arm64 ..." (the Makefile's PLATFORMS).
func ParsePlatforms(s string) ([]Platform, error) {
	var out []Platform
	for _, f := range strings.Fields(strings.ReplaceAll(s, ",", " ")) {
		goos, goarch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("platform %q: want GOOS/GOARCH", f)
		}
		switch goos {
		case "linux", "darwin", "windows":
		default:
			return nil, fmt.Errorf("platform %q: npm and MCP Bundles know linux, darwin and windows only", f)
		}
		switch goarch {
		case "amd64", "arm64":
		default:
			return nil, fmt.Errorf("platform %q: the packages know amd64 and arm64 only", f)
		}
		out = append(out, Platform{goos, goarch})
	}
	return out, nil
}

// Binary is the file name make dist gives a server's binary for a platform:
// mcp-server-filesystem_v1.2.3_linux_amd64 (.exe on Windows).
func Binary(cmd, version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s_%s%s", cmd, version, p.GOOS, p.GOARCH, p.Exe())
}

// ArtifactBase is the base name of the archives and bundles, as GoReleaser names
// its archives: mcp-server-filesystem_1.2.3_linux_amd64 (the version as NpmVersion
// gives it: the tag without its v).
func ArtifactBase(cmd, version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s_%s", cmd, NpmVersion(version), p.GOOS, p.GOARCH)
}

// CheckReleaseVersion accepts a semantic version tag: v1.2.3 or v1.2.3-rc.1 (no
// build metadata: module versions cannot carry it).
func CheckReleaseVersion(v string) error {
	if !semver.IsValid(v) || semver.Canonical(v) != v || semver.Build(v) != "" {
		return fmt.Errorf("version %q: want a full semantic version tag such as v1.2.3 or v1.2.3-rc.1", v)
	}
	if semver.Major(v) != "v0" && semver.Major(v) != "v1" {
		return fmt.Errorf("version %q: v2 and later need /v2 module paths, which these modules do not have", v)
	}
	return nil
}

var npmUnsafe = regexp.MustCompile(`[^0-9A-Za-z-]+`)

// NpmVersion is the npm (and bundle) version for a build version: v1.2.3 → 1.2.3. A
// version that is not a release tag (git describe's "v1.2.3-4-gabc-dirty", a commit
// hash, "dev") becomes a prerelease of 0.0.0 (0.0.0-dev.abc1234-dirty), which npm
// accepts and never mistakes for a release.
func NpmVersion(v string) string {
	if CheckReleaseVersion(v) == nil {
		return strings.TrimPrefix(v, "v")
	}
	s := strings.Trim(npmUnsafe.ReplaceAllString(v, "."), ".")
	if s == "" {
		s = "unknown"
	}
	return "0.0.0-dev." + s
}

// git runs git in dir and returns its trimmed output.
func git(dir string, args ...string) (string, error) {
	out, err := gitRaw(dir, args...)
	return strings.TrimSpace(string(out)), err
}

// gitRaw runs git in dir and returns its output as is.
func gitRaw(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
