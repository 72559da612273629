package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testVersion is the version the tests publish and package: a release version no
// real release will have, so a cached artefact of a real one cannot pass for it.
const testVersion = "v0.99.0"

// scratch holds what the tests of this binary share (the built servers, the
// PostgreSQL cluster); removed when they end.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "release-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	stopPostgres()
	os.RemoveAll(dir)
	os.Exit(code)
}

// require fails the test in CI (CI set) and skips it elsewhere: the repository's
// rule for a test whose component is missing.
func require(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func servers(t testing.TB) []Server {
	t.Helper()
	s, err := FindServers(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hostPlatform is the platform the tests build for and run on (linux/amd64 in CI).
func hostPlatform(t testing.TB) Platform {
	t.Helper()
	ps, err := ParsePlatforms(runtime.GOOS + "/" + runtime.GOARCH)
	if err != nil {
		t.Skipf("the release packages do not cover this platform: %v", err)
	}
	return ps[0]
}

var (
	buildOnce sync.Once
	buildDist string
	buildErr  error
)

// builtDist builds every server for this machine's platform only, as make dist
// builds each of its platforms (static, -trimpath, the version stamped in), into
// dist/bin of a directory laid out like dist/, once per test binary.
func builtDist(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	p := hostPlatform(t)
	buildOnce.Do(func() {
		buildDist = filepath.Join(scratch, "dist")
		if buildErr = os.MkdirAll(filepath.Join(buildDist, "bin"), 0o755); buildErr != nil {
			return
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		slots := make(chan struct{}, 2) // two shared cores
		for _, s := range servers(t) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				cmd := exec.Command("go", "build", "-trimpath",
					"-ldflags", "-s -w -X "+RootModule+"/pkg/mcpkit.Version="+testVersion,
					"-o", filepath.Join(buildDist, "bin", Binary(s.Cmd, testVersion, p)), "./cmd/"+s.Cmd)
				cmd.Dir = s.Dir
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK="+filepath.Join(root, "go.work"))
				if out, err := cmd.CombinedOutput(); err != nil {
					mu.Lock()
					buildErr = fmt.Errorf("go build %s: %v\n%s", s.Cmd, err, out)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDist
}

var (
	packageOnce sync.Once
	packageErr  error
)

// packagedDist runs the package step of make dist (Package) on builtDist's binaries,
// for this platform only, once per test binary: the archives, MCP Bundles, npm
// tarballs (each main package still listing the packages of all six platforms) and
// registry files the install tests then take apart. It needs npm and the pinned
// MCP Bundle CLI (make npm): missing, the test fails in CI and is skipped elsewhere.
func packagedDist(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	_, _, path := nodeTools(t)
	require(t, CheckMCPB(root) == nil, "%v", CheckMCPB(root))
	dist := builtDist(t)
	packageOnce.Do(func() {
		// npm pack runs on the PATH's Node; put the one nodeTools chose first.
		old := os.Getenv("PATH")
		os.Setenv("PATH", path)
		defer os.Setenv("PATH", old)
		var log strings.Builder
		start := time.Now()
		packageErr = Package(PackageConfig{
			Root: root, Dist: dist, Version: testVersion,
			Platforms: []Platform{hostPlatform(t)}, NpmPlatforms: allPlatforms,
			Servers: servers(t), Log: &log,
		})
		if packageErr == nil {
			t.Logf("package step for %s: %.1fs\n%s", hostPlatform(t), time.Since(start).Seconds(), log.String())
		}
	})
	if packageErr != nil {
		t.Fatal(packageErr)
	}
	return dist
}

// launch is how a test starts one server: what the server needs to answer
// tools/list on this machine, without an account or the network.
type launch struct {
	args []string
	env  []string
}

// launchFor returns the arguments and environment that let the server start here.
// The postgres server needs a database: without PostgreSQL on the machine the test
// is skipped (failed in CI).
func launchFor(t *testing.T, name string) launch {
	t.Helper()
	switch name {
	case "filesystem":
		return launch{args: []string{t.TempDir()}}
	case "errors":
		return launch{env: []string{"ERRORS_DATA_DIR=" + t.TempDir(), "ERRORS_INGEST_ADDR=127.0.0.1:0"}}
	case "github":
		return launch{} // no token: the tools are listed, calls fail until one is set
	case "postgres":
		return launch{env: []string{"DATABASE_URL=" + postgresURL(t)}}
	}
	t.Fatalf("no launch for server %q: add it to launchFor", name)
	return launch{}
}

// baseEnv is a small environment for the processes the tests start: PATH and a
// HOME of their own, nothing of the caller's configuration.
func baseEnv(t *testing.T, path string) []string {
	return []string{"PATH=" + path, "HOME=" + t.TempDir(), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
}

// stdioSession is a server process spoken to over stdio, as a host does.
type stdioSession struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	stderr  *lockedBuffer
	started time.Time
	done    chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startStdio starts argv in dir with env; the process is killed when the test ends
// if it is still running.
func startStdio(t *testing.T, dir string, env []string, argv ...string) *stdioSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	s := &stdioSession{t: t, cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReaderSize(stdout, 1<<20)
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", strings.Join(argv, " "), err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	return s
}

// call sends one JSON-RPC request and returns the result of its response, failing
// the test on an error response, a closed stdout or 60 s of silence.
func (s *stdioSession) call(id int, method string, params any) json.RawMessage {
	s.t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		s.t.Fatalf("writing %s: %v\nstderr:\n%s", method, err, s.stderr.String())
	}
	type response struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	lines := make(chan []byte)
	errs := make(chan error, 1)
	go func() {
		for {
			line, err := s.out.ReadBytes('\n')
			if err != nil {
				errs <- err
				return
			}
			var r response
			if json.Unmarshal(line, &r) == nil && r.ID != nil && *r.ID == id {
				lines <- line
				return
			}
		}
	}()
	select {
	case line := <-lines:
		var r response
		json.Unmarshal(line, &r)
		if r.Error != nil {
			s.t.Fatalf("%s: error %s\nstderr:\n%s", method, r.Error, s.stderr.String())
		}
		return r.Result
	case err := <-errs:
		s.t.Fatalf("%s: reading the response: %v\nstderr:\n%s", method, err, s.stderr.String())
	case <-time.After(60 * time.Second):
		s.t.Fatalf("%s: no response in 60s\nstderr:\n%s", method, s.stderr.String())
	}
	return nil
}

// toolsList does what a host does first: initialize (2025-11-25, the handshake
// hosts use), initialized, tools/list. It returns the tool names and the time from
// starting the process to the first answer.
func (s *stdioSession) toolsList() ([]string, time.Duration) {
	s.t.Helper()
	s.call(1, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "release-test", "version": "1"},
	})
	first := time.Since(s.started)
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.stdin.Write(append(note, '\n'))
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(s.call(2, "tools/list", map[string]any{}), &list); err != nil {
		s.t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names, first
}

// closeStdin closes the server's stdin, as a host does to stop it, and waits for the
// process to end: it must, by itself and with exit status 0, within 15 s.
func (s *stdioSession) closeStdin() {
	s.t.Helper()
	s.stdin.Close()
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Errorf("after stdin closed the process ended with %v, want exit status 0\nstderr:\n%s", err, s.stderr.String())
		}
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		s.t.Errorf("the process did not end within 15s of stdin closing\nstderr:\n%s", s.stderr.String())
	}
}

// wait waits up to 15 s for the process to end and returns its error.
func (s *stdioSession) wait() error {
	select {
	case err := <-s.done:
		return err
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		return fmt.Errorf("did not end within 15s")
	}
}

// nodeTools finds npm and npx, and a Node of at least version 18 (the launcher's
// floor): the machine's, or else Node 22 from the pinned tools (tools/npm). It
// returns them with the PATH that puts that Node first.
func nodeTools(t *testing.T) (npm, npx, path string) {
	t.Helper()
	path = os.Getenv("PATH")
	var err error
	npm, err = exec.LookPath("npm")
	require(t, err == nil, "npm is not installed: %v", err)
	npx, err = exec.LookPath("npx")
	require(t, err == nil, "npx is not installed: %v", err)
	if nodeMajor("node", path) < 18 {
		node22 := filepath.Dir(filepath.Join(repoRoot(t), Node22))
		path = node22 + string(os.PathListSeparator) + path
		require(t, nodeMajor("node", path) >= 18, "no Node 18 or later: the machine's is older and %s is not installed (make npm)", node22)
	}
	return npm, npx, path
}

// nodeMajor returns the major version of the node found on path, or 0.
func nodeMajor(node, path string) int {
	cmd := exec.Command(node, "--version")
	cmd.Env = append(os.Environ(), "PATH="+path)
	if p, err := lookPathIn(node, path); err == nil {
		cmd.Path = p
	}
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".")
	n, _ := strconv.Atoi(major)
	return n
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// dirSize is the total size of the regular files under dir.
func dirSize(t *testing.T, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
