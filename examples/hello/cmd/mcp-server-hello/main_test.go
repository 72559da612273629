package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
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
	if d := cmp.Diff("mcp-server-hello "+mcpkit.Version+"\n", out.String()); d != "" {
		t.Errorf("--version (-want +got):\n%s", d)
	}
}

// TestBadConfiguration: every mistake stops the server, before anything is served,
// with a message that says what was wrong.
func TestBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "no notes directory: pass --dir DIR or set HELLO_NOTES_DIR"},
		{[]string{"--dir", dir + "/missing"}, nil, "the notes directory: "},
		{[]string{"--dir", dir}, map[string]string{"HELLO_ALLOW_WRITES": "yes please"}, `HELLO_ALLOW_WRITES="yes please" is not valid`},
		{[]string{"--dir", dir, "--no-confirm"}, nil, "--no-confirm only applies with --allow-writes"},
		{[]string{"--dir", dir, "stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--no-such-flag"}, nil, "flag provided but not defined: -no-such-flag"},
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, env(tt.env), strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q, env %v) = %v; want an error containing %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestServeStdio runs run() on in-memory stdio, configured through the environment,
// and lists the tools: a flag on the command line wins over its variable.
func TestServeStdio(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"read_note", "write_note"}},
		{[]string{"--allow-writes=false"}, []string{"read_note"}},
	} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		environ := map[string]string{"HELLO_NOTES_DIR": t.TempDir(), "HELLO_ALLOW_WRITES": "true"}
		go func() {
			done <- run(context.Background(), tc.args, env(environ), inR, outW, io.Discard)
			outW.Close()
		}()
		c := mcpkittest.ConnectStream(t, outR, inW, mcpkit.Revision20260728, nil)
		var list struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(c.Call("tools/list", nil), &list); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		if d := cmp.Diff(tc.want, names); d != "" {
			t.Errorf("run(%q): tools (-want +got):\n%s", tc.args, d)
		}
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run(%q): %v", tc.args, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("run(%q) did not return within 5s of stdin closing", tc.args)
		}
	}
}
