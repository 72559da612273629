package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// goEnv returns `go env NAME` as the go command sees it here.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// WarmModuleCache makes sure this machine's module cache holds every third-party
// module a server's standalone build needs (its go.mod's build list, which differs
// from the workspace's), so an offline install can take them from the cache's
// download directory. It runs `go mod download` on a copy of the server's go.mod
// whose library requirement is replaced by this checkout: nothing of the release
// version being tested enters the cache. Normally a no-op; it uses GOPROXY as
// configured when something is missing.
func WarmModuleCache(ctx context.Context, root string, s Server) error {
	tmp, err := os.MkdirTemp("", "release-warm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(s.Dir, f))
		if err != nil && f == "go.mod" {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return err
		}
	}
	modf := filepath.Join(tmp, "go.mod")
	steps := [][]string{
		{"mod", "edit", "-replace", RootModule + "=" + root, modf},
		{"mod", "download", "-modfile", modf},
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = s.Dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), s.Rel, err, out)
		}
	}
	return nil
}

// OfflineGoEnv is the environment of a go command that sees only the file-based
// module proxy in proxyDir, then this machine's module cache (read as a proxy, in
// place of proxy.golang.org), with an empty module cache of its own in modcache:
// no network, no workspace, no checksum database (the test versions are not in it).
func OfflineGoEnv(proxyDir, hostModCache, modcache, gobin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GO") || k == "CGO_ENABLED" {
			continue // nothing of the caller's go configuration leaks in
		}
		env = append(env, kv)
	}
	gocache, _ := goEnv("GOCACHE")
	goroot, _ := goEnv("GOROOT")
	return append(env,
		"GOPROXY=file://"+filepath.ToSlash(proxyDir)+",file://"+filepath.ToSlash(filepath.Join(hostModCache, "cache", "download")),
		"GOMODCACHE="+modcache,
		"GOBIN="+gobin,
		"GOWORK=off",
		"GOFLAGS=-mod=mod -modcacherw -trimpath",
		"GOSUMDB=off",
		"GONOSUMDB=*",
		"GOPRIVATE=",
		"GONOPROXY=",
		"GOTOOLCHAIN=local",
		"GOTELEMETRY=off",
		"GOENV=off",
		"GOCACHE="+gocache,
		"GOROOT="+goroot,
		"CGO_ENABLED=0",
	)
}

// GoInstall runs `go install pkg` in an empty directory with env and returns how
// long it took.
func GoInstall(ctx context.Context, env []string, pkg string) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "release-install-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "install", pkg)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go install %s: %v\n%s", pkg, err, out)
	}
	return time.Since(start), nil
}

// Verify publishes the modules at version into a temporary file-based proxy (from
// the working tree, or from git revision rev) and installs every server from it
// with `go install …@version`, offline and with an empty module cache, then checks
// that each binary reports the version.
func Verify(root, rev string, servers []Server, version string, log io.Writer) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "release-verify-")
	if err != nil {
		return err
	}
	defer func() {
		os.RemoveAll(tmp)
	}()
	proxy := filepath.Join(tmp, "proxy")
	if err := WriteProxy(proxy, ModuleSource{Root: root, Revision: rev}, servers, version); err != nil {
		return err
	}
	hostCache, err := goEnv("GOMODCACHE")
	if err != nil {
		return err
	}
	env := OfflineGoEnv(proxy, hostCache, filepath.Join(tmp, "modcache"), filepath.Join(tmp, "bin"))
	for _, s := range servers {
		if err := WarmModuleCache(ctx, root, s); err != nil {
			return err
		}
		took, err := GoInstall(ctx, env, s.InstallPath()+"@"+version)
		if err != nil {
			return err
		}
		out, err := exec.Command(filepath.Join(tmp, "bin", s.Cmd), "--version").Output()
		if err != nil {
			return fmt.Errorf("%s --version: %v", s.Cmd, err)
		}
		if want := s.Cmd + " " + version; strings.TrimSpace(string(out)) != want {
			return fmt.Errorf("%s --version printed %q, want %q", s.Cmd, bytes.TrimSpace(out), want)
		}
		fmt.Fprintf(log, "go install %s@%s: ok (%.1fs)\n", s.InstallPath(), version, took.Seconds())
	}
	return nil
}
