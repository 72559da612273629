package distcheck

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// readmeFiles are the READMEs whose snippets are checked: the root one and every
// servers/*/README.md and examples/*/README.md, as paths relative to the repository
// root.
func readmeFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	var more []string
	for _, parent := range []string{"servers", "examples"} {
		m, err := filepath.Glob(filepath.Join(root, parent, "*", "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		more = append(more, m...)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// readmeServer is the server a README belongs to ("github" for
// servers/github/README.md, "hello" for examples/hello/README.md), or "" for the root
// README.
func readmeServer(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) == 3 && (parts[0] == "servers" || parts[0] == "examples") {
		return parts[1]
	}
	return ""
}

// TestReadmeSnippets checks every launch in the READMEs against the server it
// starts: each flag is one the binary's -h lists, the binary's own flag parser
// accepts the whole argument list (run with --version first, so it exits before
// serving), the standard serve settings it makes are ones the server starts with
// (Server.ServeConfig: --auth-static-file without --auth-resource is refused at
// start, issue 13), each environment variable is one the server reads, and remote
// URLs use the server's MCP path.
func TestReadmeSnippets(t *testing.T) {
	root := repoRoot(t)
	servers := builtServers(t)
	clearServeEnv(t)
	for _, rel := range readmeFiles(t, root) {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			launches, errs := ParseMarkdown(rel, string(src))
			for _, err := range errs {
				t.Errorf("%v", err)
			}
			own := readmeServer(rel)
			if own != "" && len(launches) == 0 {
				t.Errorf("%s has no host config snippets or launch commands", rel)
			}
			for _, l := range launches {
				t.Logf("%s: %s server=%q args=%q env=%q url=%q", l.Where(), l.Mode, l.Server, l.Args, l.Env, l.URL)
				for _, p := range checkLaunch(l, own, servers) {
					t.Errorf("%s: %s\n\tsnippet: %s", l.Where(), p, l.Source)
				}
			}
			t.Logf("%s: %d launches checked", rel, len(launches))
		})
	}
}

// checkLaunch returns the problems of one launch.
func checkLaunch(l Launch, own string, servers map[string]*Server) []string {
	if l.Mode == Remote {
		name := own
		if name == "" {
			for n := range servers {
				name = n
				break
			}
		}
		s := servers[name]
		if s == nil {
			return nil // the server did not build; that is reported already
		}
		u, err := url.Parse(l.URL)
		switch {
		case err != nil:
			return []string{fmt.Sprintf("URL %q: %v", l.URL, err)}
		case u.Scheme != "http" && u.Scheme != "https":
			return []string{fmt.Sprintf("URL %q: expected http:// or https://", l.URL)}
		case u.Host == "":
			return []string{fmt.Sprintf("URL %q has no host", l.URL)}
		case u.Path != s.HTTPPath:
			return []string{fmt.Sprintf("URL %q: the servers serve MCP at %s (--http-path default)", l.URL, s.HTTPPath)}
		}
		return nil
	}
	s := servers[l.Server]
	if s == nil {
		if slices.ContainsFunc(serverDirs, func(sd ServerDir) bool { return sd.Name == l.Server }) {
			return nil // it did not build; reported by builtServers
		}
		if own != "" || len(servers) == 0 {
			return []string{fmt.Sprintf("there is no server %q (no servers/%s/cmd/mcp-server-%s)", l.Server, l.Server, l.Server)}
		}
		// The root README shows what every server takes with a placeholder such as
		// mcp-server-x: check it against what all the servers share.
		s = commonServer(servers)
	}
	problems := s.UnknownFlags(l.Args)
	problems = append(problems, s.UnknownEnv(l.Env)...)
	if len(problems) == 0 {
		if err := s.AcceptsArgs(context.Background(), l.Args); err != nil {
			problems = append(problems, err.Error())
		} else if err := s.ServeConfig(l.Args, l.Env, binDir); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return problems
}

// clearServeEnv empties every standard serve variable for the test, so that
// Server.ServeConfig sees only what a snippet sets.
func clearServeEnv(t *testing.T) {
	for _, name := range serve.StandardEnv() {
		t.Setenv(name, "")
	}
}

// TestReadmeHostCoverage checks that each server's README shows every host (Claude
// Desktop, VS Code, Claude Code, Cursor) running the server each way: the binary,
// the container, and a remote server over Streamable HTTP. A failure lists what is
// missing. The template (examples/hello) is left out: its README stays short, and
// TestReadmeSnippets still checks every snippet it has.
func TestReadmeHostCoverage(t *testing.T) {
	root := repoRoot(t)
	builtServers(t) // for serverDirs
	for _, sd := range serverDirs {
		if sd.Example() {
			continue
		}
		t.Run(sd.Name, func(t *testing.T) {
			rel := sd.Rel + "/README.md"
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatalf("%s: %v (each server needs a README with host setup)", rel, err)
			}
			launches, _ := ParseMarkdown(rel, string(src)) // parse errors: TestReadmeSnippets
			missing := MissingHosts(launches, sd.Name)
			if len(missing) > 0 {
				t.Errorf("%s lacks host snippets for: %s", rel, strings.Join(missing, "; "))
			}
		})
	}
}

// commonServer is a stand-in for "any server" (the root README's mcp-server-x): the
// flags and variables every built server has, run as the first server by name.
func commonServer(servers map[string]*Server) *Server {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	common := *servers[names[0]]
	common.Flags, common.Env = map[string]bool{}, map[string]bool{}
	for flag, takesValue := range servers[names[0]].Flags {
		if !slices.ContainsFunc(names, func(n string) bool { _, ok := servers[n].Flags[flag]; return !ok }) {
			common.Flags[flag] = takesValue
		}
	}
	for env := range servers[names[0]].Env {
		if !slices.ContainsFunc(names, func(n string) bool { return !servers[n].Env[env] }) {
			common.Env[env] = true
		}
	}
	return &common
}
