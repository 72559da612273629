package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	filesystem "github.com/mcpkit/reference/servers/filesystem"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// TestRunRefusesBadConfiguration: each mistake is an error that says what was wrong
// and what is expected, before anything is served.
func TestRunRefusesBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no directory", nil, nil, "no directories given: name at least one directory"},
		{"empty env list", nil, map[string]string{"MCP_FS_ROOTS": " : "}, "no directories given"},
		{"missing directory", []string{filepath.Join(dir, "nope")}, nil, "cannot be resolved"},
		{"a file, not a directory", []string{file}, nil, "is not a directory"},
		{"no-confirm without writes", []string{"--no-confirm", dir}, nil, "--no-confirm only applies with --allow-writes"},
		{"no-confirm env without writes", []string{dir}, map[string]string{"MCP_FS_NO_CONFIRM": "1"}, "--no-confirm only applies with --allow-writes"},
		{"bad boolean env", []string{dir}, map[string]string{"MCP_FS_ALLOW_WRITES": "yes please"}, `MCP_FS_ALLOW_WRITES="yes please" is not valid: expected 1, true, 0 or false`},
		{"bad max watches env", []string{dir}, map[string]string{"MCP_FS_MAX_WATCHES": "lots"}, `MCP_FS_MAX_WATCHES="lots" is not valid: expected a whole number`},
		{"zero max watches", []string{"--max-watches", "0", dir}, nil, "--max-watches must be at least 1"},
		{"unknown flag", []string{"--allow-everything", dir}, nil, "flag provided but not defined: -allow-everything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, env(tc.env), strings.NewReader(""), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) = %v; want an error containing %q", tc.args, err, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout must stay clean for the protocol; got %q", stdout.String())
			}
		})
	}
}

func TestRunVersionAndHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, env(nil), nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "mcp-server-filesystem "+mcpkit.Version+"\n"; got != want {
		t.Errorf("--version printed %q; want %q", got, want)
	}
	stdout.Reset()
	err := run(context.Background(), []string{"--help"}, env(nil), nil, &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "usage: mcp-server-filesystem [--allow-writes]") || !strings.Contains(stderr.String(), "MCP_FS_ALLOW_WRITES") {
		t.Errorf("--help: err %v, stderr %q", err, stderr.String())
	}
}

// startRun runs the command over in-memory pipes and connects a client to it. stop
// closes stdin, fails t unless run then returns without error within 10 seconds, and
// returns what run wrote to stderr.
func startRun(t *testing.T, args []string, kv map[string]string) (c *mcpkittest.Client, stop func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := run(context.Background(), args, env(kv), inR, outW, &stderr)
		outW.Close()
		done <- err
	}()
	c = mcpkittest.ConnectStream(t, outR, inW, mcpkit.Revision20251125, nil)
	return c, func() string {
		t.Helper()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run ended with %v\nstderr: %s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after stdin closed")
		}
		return stderr.String()
	}
}

// serveOnce runs the command over in-memory pipes, lists the tools with a legacy
// client, and returns their names and the allowed directories; closing stdin must end
// run without error.
func serveOnce(t *testing.T, args []string, kv map[string]string) (tools, dirs []string) {
	t.Helper()
	c, stop := startRun(t, args, kv)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		tools = append(tools, tl.Name)
	}
	var allowed struct {
		Directories []string `json:"directories"`
	}
	if err := json.Unmarshal(c.CallTool("list_allowed_directories", map[string]any{}).StructuredContent, &allowed); err != nil {
		t.Fatal(err)
	}
	stop()
	return tools, allowed.Directories
}

// TestRunServesStdio: flags and their environment variables select the directories
// and the write tools the same way; flags may follow the directories; "--" ends flags.
func TestRunServesStdio(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	dashDir := filepath.Join(a, "-dash")
	if err := os.Mkdir(dashDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		writes   bool
		wantDirs []string
	}{
		{"read-only by default", []string{a}, nil, false, []string{a}},
		{"flag before", []string{"--allow-writes", a, b}, nil, true, []string{a, b}},
		{"flag after the directories", []string{a, "--allow-writes", b}, nil, true, []string{a, b}},
		{"env writes", []string{a}, map[string]string{"MCP_FS_ALLOW_WRITES": "1"}, true, []string{a}},
		{"flag overrides env", []string{"--allow-writes=false", a}, map[string]string{"MCP_FS_ALLOW_WRITES": "true"}, false, []string{a}},
		{"env roots", nil, map[string]string{"MCP_FS_ROOTS": a + string(os.PathListSeparator) + b}, false, []string{a, b}},
		{"arguments win over env roots", []string{b}, map[string]string{"MCP_FS_ROOTS": a}, false, []string{b}},
		{"double dash", []string{"--watch=false", "--", dashDir}, nil, false, []string{dashDir}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, dirs := serveOnce(t, tc.args, tc.env)
			if got := slices.Contains(tools, "write_file"); got != tc.writes {
				t.Errorf("write_file listed = %v; want %v (tools %v)", got, tc.writes, tools)
			}
			if d := cmp.Diff(tc.wantDirs, dirs); d != "" {
				t.Errorf("directories (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadyFollowsTheDirectories: /readyz passes while the directories exist and fails,
// naming the directory, once one is removed.
func TestReadyFollowsTheDirectories(t *testing.T) {
	a, b := t.TempDir(), filepath.Join(t.TempDir(), "b")
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	roots, err := filesystem.OpenRoots(a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer roots.Close()
	check := ready(roots)
	if err := check(context.Background()); err != nil {
		t.Fatalf("ready with both directories present: %v", err)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := check(context.Background()); err == nil || !strings.Contains(err.Error(), b) {
		t.Errorf("ready after removing %s = %v; want an error naming it", b, err)
	}
}

// TestRunRemovesStaleTempFilesOnlyWithWrites: a temporary file a killed server left
// (old) is removed on start with --allow-writes, while one as recent as a write in
// flight and a look-alike name stay; a read-only server removes nothing. Both hide
// the temporary files from list_directory.
func TestRunRemovesStaleTempFilesOnlyWithWrites(t *testing.T) {
	for _, writes := range []bool{true, false} {
		t.Run(map[bool]string{true: "allow-writes", false: "read-only"}[writes], func(t *testing.T) {
			dir := t.TempDir()
			old := time.Now().Add(-time.Hour)
			files := map[string]time.Time{
				".a.txt.tmp-0123456789ab": old,        // stale
				".b.txt.tmp-0123456789ab": time.Now(), // in flight
				".c.txt.tmp-0123456789a":  old,        // not the pattern: 11 digits
			}
			for name, mtime := range files {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, mtime, mtime); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"--watch=false", dir}
			if writes {
				args = append(args, "--allow-writes")
			}
			c, stop := startRun(t, args, nil)
			// The listing is text, one entry a line under a header (issue 30).
			if got, want := c.CallTool("list_directory", map[string]any{}).Text(), "["+dir+": 1 entry]\n.c.txt.tmp-0123456789a\n"; got != want {
				t.Errorf("list_directory = %q; want only the look-alike: %q", got, want)
			}
			present := func(name string) bool {
				_, err := os.Lstat(filepath.Join(dir, name))
				return err == nil
			}
			wait := 10 * time.Second
			if !writes {
				wait = time.Second // a writing server removes it within milliseconds
			}
			for deadline := time.Now().Add(wait); present(".a.txt.tmp-0123456789ab") && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if got := present(".a.txt.tmp-0123456789ab"); got == writes {
				t.Errorf("stale temporary file present = %v with writes %v", got, writes)
			}
			if !present(".b.txt.tmp-0123456789ab") || !present(".c.txt.tmp-0123456789a") {
				t.Error("a recent temporary file or a look-alike was removed")
			}
			stderr := stop()
			if writes && !strings.Contains(stderr, "removed=1") {
				t.Errorf("the log does not count the removal: %s", stderr)
			}
		})
	}
}
