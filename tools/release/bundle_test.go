package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// userConfigFor is what a user enters when installing the server's bundle: the
// required values, and optional ones where the test needs them (a free port).
func userConfigFor(t *testing.T, name string) map[string]any {
	switch name {
	case "filesystem":
		return map[string]any{"directories": []string{t.TempDir(), t.TempDir()}}
	case "postgres":
		return map[string]any{"database_url": postgresURL(t)}
	case "github":
		return map[string]any{"token": "github_pat_not_a_real_token_0000000000"}
	case "errors":
		return map[string]any{"data_directory": t.TempDir(), "ingest_address": "127.0.0.1:0"}
	}
	t.Fatalf("no user configuration for server %q: add it to userConfigFor", name)
	return nil
}

// secretEnv matches the variables that carry credentials (as internal/distcheck
// judges server.json): the user_config feeding one must be marked sensitive, so
// hosts keep it in the OS keychain and mask it.
var secretEnv = regexp.MustCompile(`(TOKEN|SECRET|PASSWORD|_KEY|_DSN)$|^DATABASE_URL$`)

var userConfigRef = regexp.MustCompile(`\$\{user_config\.([^}]+)\}`)

// bundleManifest is the part of a manifest the test reads.
type bundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name, Version   string
	Server          struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type      string `json:"type"`
		Required  bool   `json:"required"`
		Sensitive bool   `json:"sensitive"`
		Multiple  bool   `json:"multiple"`
		Default   any    `json:"default"`
	} `json:"user_config"`
}

// TestBundles takes each server's MCP Bundle for this platform from make dist's
// package step (the manifest from servers/<name>/mcpb-manifest.json, validated and
// packed by the official @anthropic-ai/mcpb CLI), unpacks it with that CLI, and launches it
// exactly as the manifest says: the command, arguments and environment come from
// the official library's getMcpConfigForManifest (what hosts use) given a user
// configuration. The server must answer tools/list over stdio and end when stdin
// closes. It also checks the manifest's user configuration: every value the launch
// uses is asked for, credentials are marked sensitive, optional values have a
// default (a host leaves ${user_config.x} unreplaced otherwise), and a host refuses
// to start the bundle without the required ones.
func TestBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("packs, unpacks and launches the bundles")
	}
	root := repoRoot(t)
	require(t, CheckMCPB(root) == nil, "%v", CheckMCPB(root))
	node := nodeFor(root)
	ctx := context.Background()
	p := hostPlatform(t)
	dist := packagedDist(t)
	tmp := t.TempDir()
	for _, s := range servers(t) {
		t.Run(s.Name, func(t *testing.T) {
			if err := MCPB(ctx, root, "validate", filepath.Join(s.Dir, ManifestFile)); err != nil {
				t.Fatalf("the repository's manifest: %v", err)
			}
			bundle := filepath.Join(dist, ArtifactBase(s.Cmd, testVersion, p)+".mcpb")
			checkBundleZip(t, bundle, s, p)
			unpacked := filepath.Join(tmp, "unpacked", s.Name)
			if err := MCPB(ctx, root, "unpack", bundle, unpacked); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(unpacked, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m bundleManifest
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			checkUserConfig(t, m)
			if m.Version != NpmVersion(testVersion) || !slices.Equal(m.Compatibility.Platforms, []string{p.NodeOS()}) {
				t.Errorf("manifest version %q, platforms %v; want %q, [%s]", m.Version, m.Compatibility.Platforms, NpmVersion(testVersion), p.NodeOS())
			}

			// What a host does: the launch the manifest describes, with the user's values.
			cfg := hostConfig(t, node, root, unpacked, userConfigFor(t, s.Name))
			env := baseEnv(t, os.Getenv("PATH"))
			for k, v := range cfg.Env {
				if strings.Contains(v, "${") {
					t.Errorf("environment %s=%q: a placeholder the host left in", k, v)
				}
				env = append(env, k+"="+v)
			}
			sess := startStdio(t, t.TempDir(), env, append([]string{cfg.Command}, cfg.Args...)...)
			tools, first := sess.toolsList()
			if len(tools) == 0 {
				t.Errorf("tools/list of the bundle is empty")
			}
			sess.closeStdin()
			fi, _ := os.Stat(bundle)
			t.Logf("%s: %s, unpacked %s; %d tools, first answer after %v", filepath.Base(bundle), mib(fi.Size()), mib(dirSize(t, unpacked)), len(tools), first.Round(time.Millisecond))

			// A host does not start a bundle whose required values are missing.
			needs := false
			for _, uc := range m.UserConfig {
				needs = needs || uc.Required
			}
			if needs {
				cmd := exec.Command(node, filepath.Join(root, "tools", "release", "testdata", "mcpb-config.mjs"), filepath.Join(root, mcpbModule), unpacked, "{}")
				var exit *exec.ExitError
				if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
					t.Errorf("without its required configuration the bundle would still be started (%v)", err)
				}
			}
		})
	}
}

const mcpbModule = "tools/npm/node_modules/@anthropic-ai/mcpb/dist/index.js"

type launchConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// hostConfig asks the official library for the launch of the unpacked bundle.
func hostConfig(t *testing.T, node, root, dir string, userConfig map[string]any) launchConfig {
	t.Helper()
	uc, _ := json.Marshal(userConfig)
	cmd := exec.Command(node, filepath.Join(root, "tools", "release", "testdata", "mcpb-config.mjs"), filepath.Join(root, mcpbModule), dir, string(uc))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("getMcpConfigForManifest: %v\n%s", err, stderr.String())
	}
	var cfg launchConfig
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("getMcpConfigForManifest printed %q: %v", out, err)
	}
	return cfg
}

// checkUserConfig checks the manifest's user_config against the launch it
// describes.
func checkUserConfig(t *testing.T, m bundleManifest) {
	t.Helper()
	used := map[string]bool{}
	check := func(where, value string) {
		for _, ref := range userConfigRef.FindAllStringSubmatch(value, -1) {
			key := ref[1]
			used[key] = true
			uc, ok := m.UserConfig[key]
			switch {
			case !ok:
				t.Errorf("%s uses ${user_config.%s}, which user_config does not define", where, key)
			case !uc.Required && uc.Default == nil:
				t.Errorf("user_config.%s is optional without a default: a host that has no value passes %q literally (%s)", key, ref[0], where)
			}
		}
	}
	for i, a := range m.Server.MCPConfig.Args {
		check("args["+string(rune('0'+i))+"]", a)
	}
	for k, v := range m.Server.MCPConfig.Env {
		check("env "+k, v)
		if secretEnv.MatchString(k) {
			for _, ref := range userConfigRef.FindAllStringSubmatch(v, -1) {
				if !m.UserConfig[ref[1]].Sensitive {
					t.Errorf("user_config.%s feeds %s, a credential: mark it \"sensitive\": true", ref[1], k)
				}
			}
		}
	}
	for k := range m.UserConfig {
		if !used[k] {
			t.Errorf("user_config.%s is asked for but the launch does not use it", k)
		}
	}
}

// checkBundleZip checks the packed bundle: the manifest at the top, the binary under
// server/ with its execute bit.
func checkBundleZip(t *testing.T, bundle string, s Server, p Platform) {
	t.Helper()
	zr, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatalf("%s is not a zip file: %v", bundle, err)
	}
	defer zr.Close()
	names := map[string]os.FileMode{}
	for _, f := range zr.File {
		names[f.Name] = f.Mode()
	}
	if _, ok := names["manifest.json"]; !ok {
		t.Errorf("%s has no manifest.json at the top: %v", bundle, names)
	}
	bin := "server/" + s.Cmd + p.Exe()
	if mode, ok := names[bin]; !ok {
		t.Errorf("%s has no %s: %v", bundle, bin, names)
	} else if p.GOOS != "windows" && mode&0o111 == 0 {
		t.Errorf("%s: %s has mode %v, not executable", bundle, bin, mode)
	}
}

// TestBundleManifestRejects proves the validation is live: the official CLI refuses
// a manifest the bundle step would otherwise pack, and BundleManifest refuses a
// manifest whose launch does not match the bundle's layout.
func TestBundleManifestRejects(t *testing.T) {
	root := repoRoot(t)
	require(t, CheckMCPB(root) == nil, "%v", CheckMCPB(root))
	s := servers(t)[0]
	raw, err := os.ReadFile(filepath.Join(s.Dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["user_config"].(map[string]any)["broken"] = map[string]any{"type": "password", "title": "x", "description": "x"}
	bad, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// Written for certain: validate refuses a missing file too, which would pass here.
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MCPB(context.Background(), root, "validate", path); err == nil {
		t.Error("mcpb validate accepted a user_config of an unknown type")
	}
	wrong := strings.Replace(string(raw), "${__dirname}/server/", "${__dirname}/bin/", 1)
	if _, err := BundleManifest([]byte(wrong), s, testVersion, Platform{"linux", "amd64"}); err == nil {
		t.Error("BundleManifest accepted a command outside the bundle's server/ directory")
	}
	win, err := BundleManifest(raw, s, testVersion, Platform{"windows", "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	var wm bundleManifest
	if err := json.Unmarshal(win, &wm); err != nil {
		t.Fatal(err)
	}
	if wm.Server.EntryPoint != "server/"+s.Cmd+".exe" || wm.Server.MCPConfig.Command != "${__dirname}/server/"+s.Cmd+".exe" || !slices.Equal(wm.Compatibility.Platforms, []string{"win32"}) {
		t.Errorf("windows manifest: entry %q, command %q, platforms %v", wm.Server.EntryPoint, wm.Server.MCPConfig.Command, wm.Compatibility.Platforms)
	}
}
