package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// TestConformance runs the official MCP conformance suite against the fixture over
// Streamable HTTP, once per requirements set, and fails with every failing check.
func TestConformance(t *testing.T) {
	bin, env := realclient.NpmBin(t, "conformance")
	for _, req := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(req, func(t *testing.T) {
			s := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
			srv := httptest.NewServer(s.HTTPHandler(nil))
			defer srv.Close()
			out := t.TempDir()
			logPath := filepath.Join(out, "suite.log")
			logFile, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			defer logFile.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "server", "--url", srv.URL+"/mcp", "--requirements", req, "-o", filepath.Join(out, "results"))
			cmd.Env = env
			cmd.Stdout, cmd.Stderr = logFile, logFile
			runErr := cmd.Run()
			results, skipped := readChecks(t, filepath.Join(out, "results"))
			if len(results) == 0 {
				log, _ := os.ReadFile(logPath)
				t.Fatalf("the suite produced no results (%v); its output:\n%s", runErr, tail(string(log), 4000))
			}
			scored, extensions := requirements(t, req)
			// The Tasks extension is implemented (mcpkit serves
			// io.modelcontextprotocol/tasks): its scenarios count like scored ones,
			// though the suite does not score extensions.
			var tasks []string
			for name := range extensions {
				if strings.HasPrefix(name, "tasks-") {
					tasks = append(tasks, name)
				}
			}
			sort.Strings(tasks)
			for _, name := range append(slices.Clone(scored), tasks...) {
				if _, ran := results[name]; !ran {
					t.Errorf("required scenario %s did not run", name)
				}
			}
			var names []string
			for name := range results {
				names = append(names, name)
			}
			sort.Strings(names)
			passed, failed, optional, tasksPassed := 0, 0, 0, 0
			for _, name := range names {
				bad := results[name]
				switch {
				case len(bad) == 0:
					passed++
					if slices.Contains(tasks, name) {
						tasksPassed++
					}
					if skipped[name] {
						t.Logf("scenario %s: every check was skipped by the suite", name)
					}
				case extensions[name] && !slices.Contains(tasks, name):
					// Optional extensions (tasks) are reported, not required.
					optional++
					t.Logf("extension scenario %s not implemented (%d failing checks)", name, len(bad))
				default:
					// Scored scenarios and pending ones alike: we pass both.
					failed++
					t.Errorf("scenario %s failed:\n  %s", name, strings.Join(bad, "\n  "))
				}
			}
			t.Logf("conformance %s: %d scored and %d tasks-* scenarios required; %d scenarios passed (%d tasks-*), %d failed, %d optional extension scenarios not passed (suite log: %s)",
				req, len(scored), len(tasks), passed, tasksPassed, failed, optional, logPath)
			if runErr != nil && failed == 0 {
				log, _ := os.ReadFile(logPath)
				t.Errorf("the suite exited with %v although no check failed; its output:\n%s", runErr, tail(string(log), 4000))
			}
			if t.Failed() {
				keep := filepath.Join(realclient.RepoRoot(t), "out", "conformance", req)
				_ = os.RemoveAll(keep)
				_ = os.MkdirAll(filepath.Dir(keep), 0o755)
				_ = os.Rename(out, keep)
				t.Logf("suite output kept in %s", keep)
			}
		})
	}
}

// readChecks reads every scenario's checks.json and returns, per scenario, the
// failing checks as "id: message", and which scenarios had only skipped checks.
func readChecks(t *testing.T, dir string) (map[string][]string, map[string]bool) {
	t.Helper()
	out := map[string][]string{}
	skipped := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			ID           string `json:"id"`
			Name         string `json:"name"`
			Status       string `json:"status"`
			ErrorMessage string `json:"errorMessage"`
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		scenario := filepath.Base(filepath.Dir(f))
		scenario = timestampSuffix.ReplaceAllString(scenario, "")
		scenario = strings.TrimPrefix(scenario, "server-")
		bad := []string{}
		onlySkipped := len(checks) > 0
		for _, c := range checks {
			if c.Status == "FAILURE" {
				bad = append(bad, c.ID+": "+c.ErrorMessage)
			}
			if c.Status != "SKIPPED" {
				onlySkipped = false
			}
		}
		out[scenario] = append(out[scenario], bad...)
		if onlySkipped {
			skipped[scenario] = true
		}
	}
	return out, skipped
}

// requirements reads the suite's requirements file for a revision: the scored server
// scenarios, and the not-scored ones whose reason is "extension".
func requirements(t *testing.T, rev string) (scored []string, extensions map[string]bool) {
	t.Helper()
	path := filepath.Join(realclient.RepoRoot(t), "tools", "npm", "node_modules", "@modelcontextprotocol", "conformance", "requirements", rev+".yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the suite's requirements: %v", err)
	}
	extensions = map[string]bool{}
	section, current, leg := "", "", ""
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "server:"), strings.HasPrefix(line, "client:"), strings.HasPrefix(line, "not_scored:"):
			section = strings.TrimSuffix(trimmed, ":")
		case section == "server" && strings.HasPrefix(trimmed, "- "):
			scored = append(scored, strings.TrimPrefix(trimmed, "- "))
		case section == "not_scored" && strings.HasPrefix(trimmed, "- scenario:"):
			current, leg = strings.TrimSpace(strings.TrimPrefix(trimmed, "- scenario:")), ""
		case section == "not_scored" && strings.HasPrefix(trimmed, "leg:"):
			leg = strings.TrimSpace(strings.TrimPrefix(trimmed, "leg:"))
		case section == "not_scored" && strings.HasPrefix(trimmed, "reason:"):
			if leg == "server" && strings.TrimSpace(strings.TrimPrefix(trimmed, "reason:")) == "extension" {
				extensions[current] = true
			}
		}
	}
	if len(scored) == 0 {
		t.Fatalf("no scored server scenarios found in %s", path)
	}
	return scored, extensions
}

var timestampSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T.*$`)

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
