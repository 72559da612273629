package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The npm packages of a server, the layout esbuild made common: the package users
// name (@mcpkit/mcp-server-x) holds only a small Node launcher as its bin and lists
// one package per platform (@mcpkit/mcp-server-x-linux-x64, ...) as optional
// dependencies at the same version. Each platform package holds the static binary and
// declares its "os" and "cpu", so npm installs exactly the one this machine can run:
// no install script, no download from anywhere but the registry.

//go:embed npm/launcher.js
var launcherJS string

type npmRepository struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	Directory string `json:"directory"`
}

type npmPublishConfig struct {
	Access string `json:"access"`
}

// npmMain is the package.json of the package users install.
type npmMain struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	MCPName              string            `json:"mcpName"` // the MCP Registry's proof of ownership
	Keywords             []string          `json:"keywords"`
	Homepage             string            `json:"homepage"`
	Bugs                 string            `json:"bugs"`
	Repository           npmRepository     `json:"repository"`
	License              string            `json:"license"`
	Bin                  map[string]string `json:"bin"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PublishConfig        npmPublishConfig  `json:"publishConfig"`
}

// npmPlatform is the package.json of a platform package.
type npmPlatform struct {
	Name            string           `json:"name"`
	Version         string           `json:"version"`
	Description     string           `json:"description"`
	Homepage        string           `json:"homepage"`
	Repository      npmRepository    `json:"repository"`
	License         string           `json:"license"`
	OS              []string         `json:"os"`
	CPU             []string         `json:"cpu"`
	Files           []string         `json:"files"`
	PreferUnplugged bool             `json:"preferUnplugged"`
	PublishConfig   npmPublishConfig `json:"publishConfig"`
}

// PlatformPackage is the npm package holding the server's binary for p:
// @mcpkit/mcp-server-x-linux-x64.
func (s Server) PlatformPackage(p Platform) string {
	return s.Package() + "-" + p.NodeOS() + "-" + p.NodeCPU()
}

func (s Server) repository() npmRepository {
	return npmRepository{Type: "git", URL: "git+" + sourceURL + ".git", Directory: s.Rel}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteNpmMain writes the server's main npm package into out/<cmd> and returns its
// directory: package.json with an optional dependency on the package of each
// platform, the launcher as its bin, a README and the license.
func WriteNpmMain(root, out string, s Server, version string, platforms []Platform) (string, error) {
	dir := filepath.Join(out, s.Cmd)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	nv := NpmVersion(version)
	deps := map[string]string{}
	for _, p := range platforms {
		deps[s.PlatformPackage(p)] = nv
	}
	pj := npmMain{
		Name: s.Package(), Version: nv, Description: s.Description,
		MCPName:    registryPrefix + s.Name,
		Keywords:   []string{"mcp", "mcp-server", "model-context-protocol", s.Name},
		Homepage:   sourceURL + "/tree/main/" + s.Rel + "#readme",
		Bugs:       sourceURL + "/issues",
		Repository: s.repository(), License: "MIT",
		Bin:                  map[string]string{s.Cmd: "bin/" + s.Cmd + ".js"},
		Files:                []string{"bin"},
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: deps,
		PublishConfig:        npmPublishConfig{Access: "public"},
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pj); err != nil {
		return "", err
	}
	launcher := strings.NewReplacer("__PACKAGE__", s.Package(), "__BINARY__", s.Cmd).Replace(launcherJS)
	if err := os.WriteFile(filepath.Join(dir, "bin", s.Cmd+".js"), []byte(launcher), 0o755); err != nil {
		return "", err
	}
	readme := fmt.Sprintf(`# %s

%s

The npm package of [%s](%s/tree/main/%s), a Go MCP server: this package starts the
static binary that npm installs with it for your platform (%s-<os>-<cpu>, linux,
darwin and win32 on x64 and arm64; no install script, no download). Run it with:

`+"```sh\nnpx -y %s [flags and arguments of %s]\n```"+`

or in a host's configuration: `+"`\"command\": \"npx\", \"args\": [\"-y\", \"%s\", ...]`"+`.
The flags, environment variables and host setup are in the server's README:
%s/tree/main/%s#readme

The same binary is released as archives, MCP Bundles (.mcpb) and container images,
and installs with `+"`go install %s@latest`"+`.
`, s.Package(), s.Description, s.Cmd, sourceURL, s.Rel, s.Package(), s.Package(), s.Cmd, s.Package(), sourceURL, s.Rel, s.InstallPath())
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return "", err
	}
	return dir, copyFile(filepath.Join(root, "LICENSE"), filepath.Join(dir, "LICENSE"), 0o644)
}

// WriteNpmPlatform writes the package holding the server's binary for p into
// out/<cmd>-<os>-<cpu> and returns its directory.
func WriteNpmPlatform(root, out string, s Server, version string, p Platform, binary string) (string, error) {
	dir := filepath.Join(out, s.Cmd+"-"+p.NodeOS()+"-"+p.NodeCPU())
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	pj := npmPlatform{
		Name: s.PlatformPackage(p), Version: NpmVersion(version),
		Description: fmt.Sprintf("The %s %s binary of %s; install that package, which depends on this one", p.NodeOS(), p.NodeCPU(), s.Package()),
		Homepage:    sourceURL + "/tree/main/" + s.Rel + "#readme",
		Repository:  s.repository(), License: "MIT",
		OS: []string{p.NodeOS()}, CPU: []string{p.NodeCPU()},
		Files:           []string{"bin"},
		PreferUnplugged: true,
		PublishConfig:   npmPublishConfig{Access: "public"},
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pj); err != nil {
		return "", err
	}
	readme := fmt.Sprintf("# %s\n\nThe %s %s binary of [%s](https://www.npmjs.com/package/%s). Install that package; npm picks this one on %s %s.\n",
		s.PlatformPackage(p), p.NodeOS(), p.NodeCPU(), s.Package(), s.Package(), p.NodeOS(), p.NodeCPU())
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(root, "LICENSE"), filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return "", err
	}
	return dir, copyFile(binary, filepath.Join(dir, "bin", s.Cmd+p.Exe()), 0o755)
}

// NpmTarball is the file npm pack makes of package pkg at version:
// mcpkit-mcp-server-x-linux-x64-1.2.3.tgz for @mcpkit/mcp-server-x-linux-x64.
func NpmTarball(pkg, version string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pkg, "@"), "/", "-") + "-" + NpmVersion(version) + ".tgz"
}

// NpmPack runs `npm pack` once for all the package directories, writing the
// tarballs into dest, and returns their paths in the order of dirs.
func NpmPack(ctx context.Context, npm string, env []string, dest string, dirs []string) ([]string, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"pack", "--json", "--pack-destination", dest, "--ignore-scripts", "--loglevel=error"}, dirs...)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Env = env
	cmd.Dir = dest
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm pack: %v\n%s", err, stderr.String())
	}
	var packed []struct {
		Filename string `json:"filename"`
	}
	if err := json.Unmarshal(out, &packed); err != nil {
		return nil, fmt.Errorf("npm pack --json printed %q: %v", out, err)
	}
	if len(packed) != len(dirs) {
		return nil, fmt.Errorf("npm pack made %d tarballs of %d packages", len(packed), len(dirs))
	}
	var paths []string
	for _, p := range packed {
		paths = append(paths, filepath.Join(dest, p.Filename))
	}
	return paths, nil
}

// copyFile copies src to dst with mode, hard-linking when it can (the release
// binaries are large and read-only from here on).
func copyFile(src, dst string, mode os.FileMode) error {
	os.Remove(dst)
	if mode&0o111 != 0 {
		if fi, err := os.Stat(src); err == nil && fi.Mode().Perm() == mode.Perm() {
			if os.Link(src, dst) == nil {
				return nil
			}
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
