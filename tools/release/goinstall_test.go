package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestGoInstall publishes the repository's modules at testVersion the way a release
// does (module zips made with golang.org/x/mod/zip, each server's go.mod requiring
// the root module at that version) into a file-based module proxy, then installs
// every server the way the README tells users to, `go install
// github.com/mcpkit/reference/servers/<name>/cmd/mcp-server-<name>@<version>`, with
// GOPROXY naming only that proxy and this machine's module cache (read as a proxy,
// standing in for proxy.golang.org for third-party modules), GOWORK=off,
// GOFLAGS=-mod=mod and an empty module cache: no network, no workspace, no
// replace. Each installed binary must report the version and answer tools/list over
// stdio, and end when stdin closes; `@latest` must find the version too.
// (-trimpath lets reruns reuse the build cache; it changes only file names in the
// binary.)
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("installs every server from a module proxy")
	}
	ctx := context.Background()
	root := repoRoot(t)
	srv := servers(t)
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	if err := WriteProxy(proxy, ModuleSource{Root: root}, srv, testVersion); err != nil {
		t.Fatal(err)
	}
	hostCache, err := goEnv("GOMODCACHE")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range srv {
		if err := WarmModuleCache(ctx, root, s); err != nil {
			t.Fatal(err)
		}
	}
	gobin := filepath.Join(tmp, "bin")
	modcache := filepath.Join(tmp, "modcache")
	env := OfflineGoEnv(proxy, hostCache, modcache, gobin)
	for _, s := range srv {
		t.Run(s.Name, func(t *testing.T) {
			pkg := s.InstallPath() + "@" + testVersion
			took, err := GoInstall(ctx, env, pkg)
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(gobin, s.Cmd)
			out, err := exec.Command(bin, "--version").Output()
			if err != nil {
				t.Fatalf("%s --version: %v", bin, err)
			}
			if got, want := strings.TrimSpace(string(out)), s.Cmd+" "+testVersion; got != want {
				t.Errorf("--version printed %q, want %q (the module version, from the build information)", got, want)
			}
			fi, err := os.Stat(bin)
			if err != nil {
				t.Fatal(err)
			}
			l := launchFor(t, s.Name)
			sess := startStdio(t, t.TempDir(), append(baseEnv(t, os.Getenv("PATH")), l.env...), append([]string{bin}, l.args...)...)
			tools, first := sess.toolsList()
			if len(tools) == 0 {
				t.Errorf("tools/list of the installed %s is empty", s.Cmd)
			}
			sess.closeStdin()
			t.Logf("go install %s: %.1fs, binary %s, %d tools, first answer after %v", pkg, took.Seconds(), mib(fi.Size()), len(tools), first.Round(1e6))
		})
	}
	t.Run("latest", func(t *testing.T) {
		s := srv[0]
		if _, err := GoInstall(ctx, env, s.InstallPath()+"@latest"); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(filepath.Join(gobin, s.Cmd), "--version").Output()
		if err != nil || strings.TrimSpace(string(out)) != s.Cmd+" "+testVersion {
			t.Errorf("@latest installed %q (%v), want %s %s", out, err, s.Cmd, testVersion)
		}
	})
}

// TestPublishedGoMods checks the repository's module layout: no go.mod of a
// published module (the root, each server, the template) has a replace or exclude
// directive; each server and the template require the root module at one version,
// the version of the servers' server.json files; and go.work replaces exactly that
// version with this checkout, so development builds use it.
func TestPublishedGoMods(t *testing.T) {
	root := repoRoot(t)
	srv := servers(t)
	dirs := append([]string{""}, versionedModules...)
	for _, s := range srv {
		dirs = append(dirs, s.Rel)
	}
	required := map[string]string{}
	for _, d := range dirs {
		rel := filepath.ToSlash(filepath.Join(d, "go.mod"))
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(rel, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Replace {
			t.Errorf("%s: replace %s => %s: go install refuses a module with a replace directive; go.work stands in during development", rel, r.Old.Path, r.New.Path)
		}
		if len(f.Exclude) > 0 {
			t.Errorf("%s has exclude directives, which go install refuses", rel)
		}
		if d == "" {
			continue
		}
		for _, r := range f.Require {
			if r.Mod.Path == RootModule {
				required[rel] = r.Mod.Version
			}
		}
		if required[rel] == "" {
			t.Errorf("%s does not require %s", rel, RootModule)
		}
	}
	versions := map[string]bool{}
	for _, v := range required {
		versions[v] = true
	}
	if len(versions) != 1 {
		t.Fatalf("the servers and the template require different versions of %s: %v (run `make release-prepare`)", RootModule, required)
	}
	var v string
	for v = range versions {
	}
	if err := CheckReleaseVersion(v); err != nil {
		t.Errorf("required version: %v", err)
	}
	for _, s := range srv {
		b, err := os.ReadFile(filepath.Join(s.Dir, "server.json"))
		if err != nil {
			t.Fatal(err)
		}
		if pub, err := SetServerJSONVersion(b, v); err != nil || string(pub) != string(b) {
			t.Errorf("%s/server.json is not at %s, the version the go.mod files require (%v)", s.Rel, v, err)
		}
	}
	wb, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := modfile.ParseWork("go.work", wb, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reps []string
	for _, r := range wf.Replace {
		reps = append(reps, r.Old.Path+" "+r.Old.Version+" => "+r.New.Path)
	}
	if want := RootModule + " " + v + " => ./"; len(reps) != 1 || reps[0] != want {
		t.Errorf("go.work replaces %q, want exactly %q: the go command reads the go.mod of a required version even for a workspace module, and %s is not published until the release", reps, want, v)
	}
	if fixed, err := SetWorkReplace(wb, v); err != nil || string(fixed) != string(wb) {
		t.Errorf("go.work is not as release prepare writes it (%v):\n%s", err, fixed)
	}
}

func TestPublishedGoModRewrite(t *testing.T) {
	in := "module github.com/mcpkit/reference/servers/x\n\ngo 1.26\n\nrequire (\n\tgithub.com/google/go-cmp v0.7.0\n\tgithub.com/mcpkit/reference v0.1.0\n)\n"
	out, err := PublishedGoMod([]byte(in), "go.mod", "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(in, "reference v0.1.0", "reference v1.2.3", 1); string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := PublishedGoMod([]byte(in+"\nreplace github.com/mcpkit/reference => ../..\n"), "go.mod", "v1.2.3"); err == nil {
		t.Error("a go.mod with a replace directive was accepted")
	}
	for _, v := range []string{"1.2.3", "v1.2", "v2.0.0", "v1.2.3+meta"} {
		if CheckReleaseVersion(v) == nil {
			t.Errorf("CheckReleaseVersion(%q) accepted it", v)
		}
	}
	for v, want := range map[string]string{"v1.2.3": "1.2.3", "v1.2.3-rc.1": "1.2.3-rc.1", "v1.2.3-4-gabcdef0-dirty": "1.2.3-4-gabcdef0-dirty", "e8d89cd": "0.0.0-dev.e8d89cd", "dev": "0.0.0-dev.dev"} {
		if got := NpmVersion(v); got != want {
			t.Errorf("NpmVersion(%q) = %q, want %q", v, got, want)
		}
	}
}
