package distcheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// bundleManifest is the part of a server's MCP Bundle manifest
// (servers/<name>/mcpb-manifest.json) these checks read.
type bundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Description     string `json:"description"`
	Server          struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Type      string `json:"type"`
		Sensitive bool   `json:"sensitive"`
		Default   any    `json:"default"`
	} `json:"user_config"`
}

var userConfigRef = regexp.MustCompile(`\$\{user_config\.([^}]+)\}`)

// TestBundleManifests checks each released server's MCP Bundle manifest against the
// server it starts, as TestServerJSON checks server.json: the name, version and
// description are the server's (those of its server.json), the launch runs the
// bundle's server/mcp-server-<name>, every environment variable is one the server
// reads (a credential's user_config is marked sensitive), and the arguments, with
// each ${user_config.…} given a value of its type, are accepted by the binary.
// (tools/release's TestBundles packs, validates and launches the bundles with the
// official mcpb CLI and library.)
func TestBundleManifests(t *testing.T) {
	servers := builtServers(t)
	for _, sd := range serverDirs {
		if sd.Example() {
			continue
		}
		t.Run(sd.Name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(sd.Dir, "mcpb-manifest.json"))
			if err != nil {
				t.Fatalf("each released server needs an MCP Bundle manifest: %v", err)
			}
			var m bundleManifest
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%s/mcpb-manifest.json: %v", sd.Rel, err)
			}
			var sj serverJSON
			sjRaw, err := os.ReadFile(filepath.Join(sd.Dir, "server.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(sjRaw, &sj); err != nil {
				t.Fatal(err)
			}
			var desc struct{ Description string }
			json.Unmarshal(sjRaw, &desc)
			type identity struct{ Name, Version, Description, Type, EntryPoint, Command string }
			want := identity{sd.Cmd, sj.Version, desc.Description, "binary", "server/" + sd.Cmd, "${__dirname}/server/" + sd.Cmd}
			got := identity{m.Name, m.Version, m.Description, m.Server.Type, m.Server.EntryPoint, m.Server.MCPConfig.Command}
			if got != want {
				t.Errorf("%s/mcpb-manifest.json identity:\n got %+v\nwant %+v", sd.Rel, got, want)
			}
			s := servers[sd.Name]
			if s == nil {
				return // did not build: reported by builtServers
			}
			var env []string
			for name, value := range m.Server.MCPConfig.Env {
				env = append(env, name)
				if secretName.MatchString(name) {
					for _, ref := range userConfigRef.FindAllStringSubmatch(value, -1) {
						if !m.UserConfig[ref[1]].Sensitive {
							t.Errorf("user_config.%s feeds %s, a credential: mark it \"sensitive\": true", ref[1], name)
						}
					}
				}
			}
			slices.Sort(env)
			for _, p := range s.UnknownEnv(env) {
				t.Errorf("%s/mcpb-manifest.json: %s", sd.Rel, p)
			}
			scratch := t.TempDir()
			var args []string
			for _, a := range m.Server.MCPConfig.Args {
				args = append(args, userConfigRef.ReplaceAllStringFunc(a, func(ref string) string {
					uc := m.UserConfig[userConfigRef.FindStringSubmatch(ref)[1]]
					switch uc.Type {
					case "directory", "file":
						return scratch
					case "boolean":
						return "false"
					case "number":
						return "1"
					}
					if d, ok := uc.Default.(string); ok && d != "" {
						return d
					}
					return "value"
				}))
			}
			if unknown := s.UnknownFlags(args); len(unknown) > 0 {
				t.Errorf("%s/mcpb-manifest.json arguments: %s", sd.Rel, strings.Join(unknown, "; "))
			} else if err := s.AcceptsArgs(context.Background(), args); err != nil {
				t.Errorf("%s/mcpb-manifest.json arguments: %v", sd.Rel, err)
			}
		})
	}
}
