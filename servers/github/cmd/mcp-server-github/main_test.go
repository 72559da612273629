package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, env(nil), strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("mcp-server-github "+mcpkit.Version+"\n", out.String()); d != "" {
		t.Errorf("--version (-want +got):\n%s", d)
	}
}

// TestBadConfiguration: every mistake stops the server with a message that says what
// was wrong and what is expected, before anything is served.
func TestBadConfiguration(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--toolsets", "repos,wiki"}, nil, `unknown toolset "wiki"`},
		{nil, map[string]string{"GITHUB_TOOLSETS": "nope"}, `unknown toolset "nope"`},
		{[]string{"--tools", "get_isue"}, nil, `unknown tool "get_isue"`},
		{[]string{"--tools", "create_issue"}, nil, "add --allow-writes"},
		{[]string{"--exclude-tools", "get_blam"}, nil, `--exclude-tools names unknown tool "get_blam"`},
		{nil, map[string]string{"GITHUB_EXCLUDE_TOOLS": "nope"}, `--exclude-tools names unknown tool "nope"`},
		{nil, map[string]string{"GITHUB_ALLOW_WRITES": "yes please"}, `GITHUB_ALLOW_WRITES="yes please" is not valid: expected 1, true, 0 or false`},
		{[]string{"--no-confirm"}, nil, "--no-confirm only applies with --allow-writes"},
		{nil, map[string]string{"GITHUB_NO_CONFIRM": "1"}, "--no-confirm only applies with --allow-writes"},
		{nil, map[string]string{"GITHUB_LOCKDOWN": "on"}, `GITHUB_LOCKDOWN="on" is not valid: expected 1, true, 0 or false`},
		{[]string{"--repos", ""}, nil, "--repos is empty"},
		{[]string{"--repos", "octo"}, nil, `--repos entry "octo" has no '/'`},
		{nil, map[string]string{"GITHUB_REPOS": "octo/he*"}, "only a whole-name wildcard is supported"},
		{[]string{"--gh-host", "http://github.example.com"}, nil, "plain http, which is allowed only for loopback hosts"},
		{nil, map[string]string{"GITHUB_HOST": "https://github.example.com/some/path"}, "give the host only"},
		{nil, map[string]string{"GITHUB_TOKEN": "ghp_abc def"}, "contains spaces or control characters"},
		{[]string{"stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--no-such-flag"}, nil, "flag provided but not defined: -no-such-flag"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		err := run(context.Background(), tt.args, env(tt.env), strings.NewReader(""), io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q, env %v) = %v; want an error containing %q", tt.args, tt.env, err, tt.want)
		}
		if strings.Contains(stderr.String(), "ghp_abc") {
			t.Errorf("run(%q, env %v) logged the token: %s", tt.args, tt.env, stderr.String())
		}
	}
}

// serveStdio runs run() on in-memory stdio and connects a 2026-07-28 client to it.
func serveStdio(t *testing.T, args []string, environ map[string]string) (*mcpkittest.Client, *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), args, env(environ), inR, outW, &stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("run did not return within 5s of stdin closing")
		}
	})
	return mcpkittest.ConnectStream(t, outR, inW, "2026-07-28", &mcpkittest.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}}), &stderr
}

// syncBuffer is a bytes.Buffer the server's logger and the test can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStartsWithoutToken: with no token the server still lists its tools (so a host
// can be configured offline), and each call says which variable to set.
func TestStartsWithoutToken(t *testing.T) {
	c, stderr := serveStdio(t, []string{"--toolsets", "issues", "--tools", "get_file_contents"}, map[string]string{"GITHUB_HOST": "http://127.0.0.1:1"})
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if d := cmp.Diff([]string{"get_file_contents", "list_issues", "get_issue", "search_issues", "get_sub_issues"}, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	res := c.CallTool("get_issue", map[string]any{"owner": "octo", "repo": "hello", "number": 1})
	if !res.IsError || !strings.Contains(res.Text(), "set GITHUB_TOKEN (or GITHUB_PERSONAL_ACCESS_TOKEN)") {
		t.Errorf("call without a token: isError=%v %q", res.IsError, res.Text())
	}
	if !strings.Contains(stderr.String(), "no GitHub token") {
		t.Errorf("stderr does not warn about the missing token: %s", stderr.String())
	}
}

// TestFlagsOverrideEnvironment: a flag on the command line wins over its variable.
func TestFlagsOverrideEnvironment(t *testing.T) {
	c, _ := serveStdio(t, []string{"--toolsets", "code", "--allow-writes=false"},
		map[string]string{"GITHUB_TOOLSETS": "issues", "GITHUB_ALLOW_WRITES": "1", "GITHUB_TOKEN": "ghp_x"})
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(c.Call("tools/list", nil), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "search_code" {
		t.Errorf("tools = %+v; want only search_code (flags win over GITHUB_TOOLSETS and GITHUB_ALLOW_WRITES)", list.Tools)
	}
}
