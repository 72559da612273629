package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allPlatforms are make dist's platforms (the Makefile's PLATFORMS), which the main
// package lists as optional dependencies even where a test builds only its own.
var allPlatforms = func() []Platform {
	ps, err := ParsePlatforms(DefaultPlatforms)
	if err != nil {
		panic(err)
	}
	return ps
}()

// npmEnv is the environment of npm and npx in the tests: a cache of their own, a
// registry nobody listens on, offline mode, no user configuration (HOME is a
// scratch directory).
func npmEnv(t *testing.T, path, cache string) []string {
	return append(baseEnv(t, path),
		"npm_config_cache="+cache,
		"npm_config_registry=http://127.0.0.1:9/",
		"npm_config_offline=true",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_update_notifier=false",
		"npm_config_loglevel=error",
	)
}

// TestNpx takes the npm tarballs make dist's package step packs with `npm pack`
// (each server's main package, listing the packages of all six platforms as
// optional dependencies, and this platform's package, holding the binary built as
// make dist builds it), installs them with the registry unreachable (npm --offline, a
// registry URL nobody answers, an empty cache), then starts each server the way host
// configs do, through `npx --offline @mcpkit/mcp-server-<name>`: it must answer
// tools/list over stdio and end when stdin closes. The launcher must also pass
// stdout, stderr and the exit code through (--version, a refused start) and pass a
// SIGTERM on to the server.
func TestNpx(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs the npm packages")
	}
	npm, npx, path := nodeTools(t)
	srv := servers(t)
	p := hostPlatform(t)
	dist := packagedDist(t)
	tmp := t.TempDir()
	env := npmEnv(t, path, filepath.Join(tmp, "npm-cache"))
	var tarballs []string
	for _, s := range srv {
		main := filepath.Join(dist, "npm", NpmTarball(s.Package(), testVersion))
		plat := filepath.Join(dist, "npm", NpmTarball(s.PlatformPackage(p), testVersion))
		checkTarball(t, main, map[string]int64{"package/package.json": 0o644, "package/bin/" + s.Cmd + ".js": 0o755, "package/README.md": 0o644, "package/LICENSE": 0o644})
		checkTarball(t, plat, map[string]int64{"package/package.json": 0o644, "package/bin/" + s.Cmd + p.Exe(): 0o755})
		tarballs = append(tarballs, main, plat)
	}

	prefix := filepath.Join(tmp, "project")
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	install := exec.Command(npm, append([]string{"install", "--offline", "--no-audit", "--no-fund"}, tarballs...)...)
	install.Dir = prefix
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline of the tarballs: %v\n%s", err, out)
	}
	t.Logf("npm install --offline of %d tarballs: %.1fs, node_modules %s", len(tarballs), time.Since(start).Seconds(), mib(dirSize(t, filepath.Join(prefix, "node_modules"))))
	for _, s := range srv {
		// Only this platform's package is there: npm skipped the other five optional
		// dependencies it could neither fetch nor use.
		got, _ := filepath.Glob(filepath.Join(prefix, "node_modules", npmScope, s.Cmd+"*"))
		for i := range got {
			got[i] = filepath.Base(got[i])
		}
		if want := []string{s.Cmd, s.Cmd + "-" + p.NodeOS() + "-" + p.NodeCPU()}; !slices.Equal(got, want) {
			t.Errorf("node_modules/%s holds %v, want %v", npmScope, got, want)
		}
	}

	for _, s := range srv {
		t.Run(s.Name, func(t *testing.T) {
			l := launchFor(t, s.Name)
			sess := startStdio(t, prefix, append(slices.Clone(env), l.env...), append([]string{npx, "--offline", s.Package()}, l.args...)...)
			tools, first := sess.toolsList()
			if len(tools) == 0 {
				t.Errorf("tools/list through npx is empty")
			}
			sess.closeStdin()
			t.Logf("npx --offline %s: %d tools, first answer after %v, package %s", s.Package(), len(tools), first.Round(time.Millisecond),
				mib(dirSize(t, filepath.Join(prefix, "node_modules", npmScope, s.Cmd))+dirSize(t, filepath.Join(prefix, "node_modules", npmScope, s.Cmd+"-"+p.NodeOS()+"-"+p.NodeCPU()))))
		})
	}

	s := srv[0]
	launcher := filepath.Join(prefix, "node_modules", npmScope, s.Cmd, "bin", s.Cmd+".js")
	t.Run("version", func(t *testing.T) {
		cmd := exec.Command(npx, "--offline", s.Package(), "--version")
		cmd.Dir, cmd.Env = prefix, env
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != s.Cmd+" "+testVersion {
			t.Errorf("npx %s --version: %q, %v; want %q", s.Package(), out, err, s.Cmd+" "+testVersion)
		}
	})
	t.Run("exit code", func(t *testing.T) {
		// An unknown flag: the server prints its complaint on stderr and exits 1, and
		// so must the launcher (TestLauncher checks other codes with a stand-in).
		cmd := exec.Command("node", launcher, "--no-such-flag")
		cmd.Path, _ = lookPathIn("node", path)
		cmd.Dir, cmd.Env = prefix, env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("launcher with a bad flag: %v, want exit status 1", err)
		}
		if !strings.Contains(stderr.String(), "no-such-flag") {
			t.Errorf("the server's complaint did not reach stderr: %q", stderr.String())
		}
	})
	t.Run("signal", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("finds the server process in /proc")
		}
		l := launchFor(t, s.Name)
		nodeBin, _ := lookPathIn("node", path)
		sess := startStdio(t, prefix, append(slices.Clone(env), l.env...), append([]string{nodeBin, launcher}, l.args...)...)
		sess.toolsList()
		child := childOf(t, sess.cmd.Process.Pid)
		if err := sess.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// The server shuts down on SIGTERM and exits 0; the launcher exits with it.
		if err := sess.wait(); err != nil {
			t.Errorf("launcher after SIGTERM: %v, want exit status 0 (the server's)\nstderr:\n%s", err, sess.stderr.String())
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(child)); err == nil {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); !strings.Contains(string(b), ") Z ") {
				syscall.Kill(child, syscall.SIGKILL)
				t.Errorf("the server (pid %d) is still running after the launcher got SIGTERM", child)
			}
		}
	})
}

// childOf returns the one child process of pid (Linux: /proc/PID/task/*/children).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			if fields := strings.Fields(string(b)); len(fields) > 0 {
				n, _ := strconv.Atoi(fields[0])
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d has no child", pid)
	return 0
}

// checkTarball checks that an npm tarball holds the files with the modes given
// (others may be present) and that its package.json has no scripts.
func checkTarball(t *testing.T, tgz string, want map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	var pj []byte
	walkTarGz(t, tgz, func(h *tar.Header, r io.Reader) {
		got[h.Name] = h.Mode & 0o777
		if h.Name == "package/package.json" {
			pj, _ = io.ReadAll(r)
		}
	})
	for name, mode := range want {
		if m, ok := got[name]; !ok {
			t.Errorf("%s lacks %s (has %v)", filepath.Base(tgz), name, got)
		} else if m != mode {
			t.Errorf("%s: %s has mode %o, want %o", filepath.Base(tgz), name, m, mode)
		}
	}
	var meta struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(pj, &meta); err != nil {
		t.Errorf("%s: package/package.json: %v", filepath.Base(tgz), err)
	}
	if len(meta.Scripts) > 0 {
		t.Errorf("%s has scripts %v: the packages install nothing and run nothing at install time", filepath.Base(tgz), meta.Scripts)
	}
}

// TestLauncher runs the npm launcher in front of a stand-in binary (a shell script
// installed as the platform package's binary, without its execute bit, which the
// launcher restores) and checks what passes through: arguments, stdin to stdout,
// stderr, an exit code other than 0 and 1, and death by a signal.
func TestLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	_, _, path := nodeTools(t)
	node, _ := lookPathIn("node", path)
	p := hostPlatform(t)
	s := Server{Name: "fake", Cmd: "mcp-server-fake", Rel: "servers/fake", Description: "a stand-in"}
	nm := filepath.Join(t.TempDir(), "node_modules")
	root := repoRoot(t)
	main, err := WriteNpmMain(root, filepath.Join(nm, npmScope), s, testVersion, allPlatforms)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "fake")
	err = os.WriteFile(script, []byte("#!/bin/sh\ncase \"$1\" in\n"+
		"exit) echo \"exiting $2\" >&2; exit \"$2\";;\n"+
		"echo) shift; echo \"args: $*\"; cat;;\n"+
		"kill) kill -\"$2\" $$;;\n"+
		"esac\n"), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := WriteNpmPlatform(root, filepath.Join(nm, npmScope), s, testVersion, p, script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(plat, "bin", s.Cmd), 0o644); err != nil {
		t.Fatal(err) // the bit the launcher must restore would be there already
	}
	launcher := filepath.Join(main, "bin", s.Cmd+".js")
	run := func(stdin string, args ...string) (string, string, error) {
		cmd := exec.Command(node, append([]string{launcher}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	if out, errOut, err := run("line one\nline two\n", "echo", "a b", "--flag=x"); err != nil || out != "args: a b --flag=x\nline one\nline two\n" {
		t.Errorf("echo: stdout %q, stderr %q, %v", out, errOut, err)
	}
	_, errOut, err := run("", "exit", "3")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || errOut != "exiting 3\n" {
		t.Errorf("exit 3: %v, stderr %q; want exit status 3 and the stand-in's stderr", err, errOut)
	}
	_, _, err = run("", "kill", "TERM")
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("stand-in killed by SIGTERM: launcher ended with %v, want death by SIGTERM too", err)
	}
	os.RemoveAll(plat)
	_, errOut, err = run("", "exit", "0")
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(errOut, "is not installed") {
		t.Errorf("without the platform package: %v, stderr %q; want exit status 1 and an explanation", err, errOut)
	}
}
