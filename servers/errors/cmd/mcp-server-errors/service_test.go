package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// splitExecStart splits a systemd ExecStart line into words the way systemd does for
// what systemdQuote writes: spaces separate, double quotes group with \\ and \"
// escapes, and %% and $$ stand for % and $.
func splitExecStart(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == '"':
			inQuote, have = !inQuote, true
		case c == ' ' && !inQuote:
			if have || cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if inQuote {
		t.Fatalf("unbalanced quotes in ExecStart %q", line)
	}
	if have || cur.Len() > 0 {
		words = append(words, cur.String())
	}
	for i, w := range words {
		words[i] = strings.NewReplacer("%%", "%", "$$", "$").Replace(w)
	}
	return words
}

// parseServiceFlags registers this server's flags (and the standard serve flags) and
// parses args as the binary would.
func parseServiceFlags(t *testing.T, args []string, environ map[string]string) *flag.FlagSet {
	t.Helper()
	fs := flag.NewFlagSet("mcp-server-errors", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	serve.RegisterFlags(fs)
	registerFlags(fs)
	fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := serve.EnvFlags(fs, env(environ), flagEnv); err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestServiceFiles: --install-service writes a systemd user unit (Linux) and a launchd
// agent (macOS) that run this binary as the collector with the local settings given
// (flags and their variables; a data directory with a space and a % in its name
// survives the quoting); the command line in each file is one the binary accepts;
// systemd-analyze, where it is installed, finds nothing to say about the unit.
func TestServiceFiles(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "my events 100%")
	environ := map[string]string{"HOME": home, "ERRORS_MAX_AGE": "2w", "ERRORS_PAGE": "false"}
	src := t.TempDir()
	fs := parseServiceFlags(t, []string{"--install-service", "--data", data, "--ingest", "127.0.0.1:8971",
		"--code-mapping", "example.com/shop/=" + src, "--in-app", "example.com/shop"}, environ)
	exe, _ := os.Executable()
	args, err := serviceArgs(fs, exe)
	if err != nil {
		t.Fatal(err)
	}
	// Every collector setting is carried, code mappings and in-app prefixes too (issue
	// #25: without them a service collector never showed source lines).
	want := []string{exe, "--ingest-only", "--data", data, "--ingest", "127.0.0.1:8971", "--max-age", "2w",
		"--code-mapping", "example.com/shop/=" + src, "--in-app", "example.com/shop", "--page=false"}
	if d := cmp.Diff(want, args); d != "" {
		t.Fatalf("collector command line (-want +got):\n%s", d)
	}
	// The binary takes the command line as it is (--version stops it before it runs).
	if err := run(context.Background(), append(args[1:], "--version"), env(map[string]string{"HOME": home}), strings.NewReader(""), io.Discard, io.Discard); err != nil {
		t.Errorf("the service's command line is refused: %v", err)
	}

	t.Run("systemd", func(t *testing.T) {
		var out bytes.Buffer
		if err := installService(fs, env(environ), "linux", &out); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, ".config", "systemd", "user", "mcp-server-errors.service")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "systemctl --user enable --now mcp-server-errors") {
			t.Errorf("install output %q does not say how to start the service", out.String())
		}
		var execStart string
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
				execStart = v
			}
		}
		if d := cmp.Diff(want, splitExecStart(t, execStart)); d != "" {
			t.Errorf("ExecStart %q (-want +got):\n%s", execStart, d)
		}
		for _, line := range []string{"[Install]", "WantedBy=default.target", "Restart=on-failure", "TimeoutStopSec=15"} {
			if !strings.Contains(string(b), line+"\n") {
				t.Errorf("unit lacks %q:\n%s", line, b)
			}
		}
		if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
			out, _ := exec.Command(analyze, "verify", path).CombinedOutput()
			if strings.Contains(string(out), path) {
				t.Errorf("systemd-analyze verify %s:\n%s", path, out)
			}
		} else {
			t.Log("systemd-analyze is not installed: the unit is checked by the parser above only")
		}
		// Installing again replaces the unit and says to reload.
		out.Reset()
		if err := installService(fs, env(environ), "linux", &out); err != nil || !strings.Contains(out.String(), "daemon-reload") {
			t.Errorf("second install: %v, %q; want a daemon-reload hint", err, out.String())
		}
	})

	t.Run("launchd", func(t *testing.T) {
		var out bytes.Buffer
		if err := installService(fs, env(environ), "darwin", &out); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, "Library", "LaunchAgents", "io.mcpkit.mcp-server-errors.plist")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "launchctl bootstrap gui/$(id -u) "+path) {
			t.Errorf("install output %q does not say how to start the agent", out.String())
		}
		// A plist is a dict of alternating key and value elements.
		var plist struct {
			Dict struct {
				Items []struct {
					XMLName xml.Name
					Text    string   `xml:",chardata"`
					Strings []string `xml:"string"`
				} `xml:",any"`
			} `xml:"dict"`
		}
		if err := xml.Unmarshal(b, &plist); err != nil {
			t.Fatalf("the plist is not XML: %v\n%s", err, b)
		}
		got := map[string]any{}
		items := plist.Dict.Items
		for i := 0; i+1 < len(items); i += 2 {
			if items[i].XMLName.Local != "key" {
				t.Fatalf("plist dict item %d is <%s>, want <key>", i, items[i].XMLName.Local)
			}
			v := items[i+1]
			switch v.XMLName.Local {
			case "string":
				got[items[i].Text] = v.Text
			case "array":
				got[items[i].Text] = v.Strings
			default:
				got[items[i].Text] = v.XMLName.Local
			}
		}
		wantPlist := map[string]any{
			"Label": "io.mcpkit.mcp-server-errors", "ProgramArguments": want, "RunAtLoad": "true", "KeepAlive": "dict",
			"ProcessType": "Background", "ExitTimeOut": "integer", "StandardErrorPath": filepath.Join(home, "Library", "Logs", "mcp-server-errors.log"),
		}
		if d := cmp.Diff(wantPlist, got); d != "" {
			t.Errorf("plist (-want +got):\n%s", d)
		}
		if plutil, err := exec.LookPath("plutil"); err == nil {
			if out, err := exec.Command(plutil, "-lint", path).CombinedOutput(); err != nil {
				t.Errorf("plutil -lint: %v\n%s", err, out)
			}
		}
	})

	if err := installService(fs, env(environ), "plan9", io.Discard); err == nil || !strings.Contains(err.Error(), "--ingest-only") {
		t.Errorf("install on an unknown system: %v; want an error that says what to run", err)
	}
}

// TestInstallServiceRefuses: --install-service refuses what it cannot install
// faithfully (issue #25): the temporary binary of `go run` (named, with the command
// that installs one), and flags the service would drop, such as --http.
func TestInstallServiceRefuses(t *testing.T) {
	home := t.TempDir()
	environ := map[string]string{"HOME": home}
	fs := parseServiceFlags(t, []string{"--install-service"}, environ)
	goRun := filepath.Join(os.TempDir(), "go-build2716413/b001/exe/mcp-server-errors")
	err := installServiceFor(fs, env(environ), "linux", io.Discard, goRun)
	if err == nil || !strings.Contains(err.Error(), "go install github.com/mcpkit/reference/servers/errors/cmd/mcp-server-errors@") || !strings.Contains(err.Error(), "make build") {
		t.Errorf("a go run binary: %v; want a refusal naming go install and make build", err)
	}
	fs = parseServiceFlags(t, []string{"--install-service", "--http", "127.0.0.1:8080"}, environ)
	err = installServiceFor(fs, env(environ), "linux", io.Discard, "/usr/local/bin/mcp-server-errors")
	if err == nil || !strings.Contains(err.Error(), "cannot carry --http") {
		t.Errorf("--http with --install-service: %v; want a refusal naming --http", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".config", "systemd", "user")); len(entries) != 0 {
		t.Errorf("a refused install wrote %v", entries)
	}
}
