package distcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// byHandBlocks returns the sh blocks of the root README's "Talk to a server by hand"
// section, in order.
func byHandBlocks(t *testing.T, readme string) []string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## Talk to a server by hand\n")
	if !ok {
		t.Fatal(`the root README has no "## Talk to a server by hand" section`)
	}
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(sec, "```sh\n")
		if !ok {
			break
		}
		block, after, _ := strings.Cut(rest, "```")
		blocks = append(blocks, block)
		sec = after
	}
	return blocks
}

// TestTalkByHand runs the root README's by-hand sessions as written, with the built
// filesystem server on PATH: the stdio one (three requests piped, then end of input)
// must answer each, and the curl one over HTTP (on a free port instead of 8080) both
// of its requests, each without a JSON-RPC error or a tool error (issue #25: nothing
// told a new user what a line looks like or which headers curl needs).
func TestTalkByHand(t *testing.T) {
	root := repoRoot(t)
	fs := builtServers(t)["filesystem"]
	if fs == nil {
		t.Fatal("the filesystem server did not build")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := byHandBlocks(t, string(readme))
	if len(blocks) != 2 {
		t.Fatalf("%d sh blocks in the by-hand section; want 2 (stdio, then HTTP)", len(blocks))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, script string) []map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(fs.Binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "MCP_HTTP_ADDR=", "MCP_FS_ROOTS=", "MCP_FS_ALLOW_WRITES=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the README's session failed: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		}
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("output line %q is not JSON: %v\nstderr: %s", line, err, stderr.String())
			}
			if m["error"] != nil {
				t.Errorf("request %v answered an error: %v", m["id"], m["error"])
			}
			if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
				t.Errorf("request %v: no result, or a tool error: %v", m["id"], m)
			}
			out = append(out, m)
		}
		return out
	}
	ids := func(ms []map[string]any) []float64 {
		var out []float64
		for _, m := range ms {
			id, _ := m["id"].(float64)
			out = append(out, id)
		}
		return out
	}

	t.Run("stdio", func(t *testing.T) {
		got := run(t, blocks[0])
		// Answers come as requests finish, not in the order sent: find each by id.
		byID := map[float64]map[string]any{}
		for _, m := range got {
			id, _ := m["id"].(float64)
			byID[id] = m
		}
		if len(got) != 3 || byID[1] == nil || byID[2] == nil || byID[3] == nil {
			t.Fatalf("answers to ids %v; want 1, 2 and 3", ids(got))
		}
		if !strings.Contains(toJSON(byID[3]), "hello.txt") {
			t.Errorf("list_directory did not list hello.txt: %s", toJSON(byID[3]))
		}
	})
	t.Run("http", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		script := blocks[1]
		if !strings.Contains(script, "127.0.0.1:8080") {
			t.Fatal("the HTTP session does not use 127.0.0.1:8080, which this test replaces with a free port")
		}
		got := run(t, strings.ReplaceAll(script, "127.0.0.1:8080", addr))
		if len(got) != 2 {
			t.Fatalf("answers to ids %v; want 2 and 3", ids(got))
		}
	})
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
