package tokens

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/servers/postgres/postgrestest"
)

func TestMain(m *testing.M) { os.Exit(postgrestest.Main(m)) }

// measured is everything one run measured, filled by the subtests of TestTokens.
type measured struct {
	defs    map[string]defs   // "server mode" -> definitions
	results map[string]result // "server call" -> result
	order   []string          // definition rows in the order measured
}

func (m *measured) addDefs(key string, d defs) {
	m.defs[key] = d
	m.order = append(m.order, key)
}

// TestTokens measures every server and mode and the anchors, prints the table (see
// the package documentation; `make tokens` shows it) and holds the budgets.
func TestTokens(t *testing.T) {
	m := &measured{defs: map[string]defs{}, results: map[string]result{}}
	dir := fsTree(t)

	t.Run("filesystem", func(t *testing.T) {
		for _, writes := range []bool{false, true} {
			c := connectInProcess(t, fsServer(t, dir, writes))
			m.addDefs("filesystem "+mode(writes), measureDefs(c.tools(t), c.instructions(t)))
			if writes {
				continue
			}
			read := measureResult(t, c.call(t, "read_text_file", map[string]any{"path": fsSourceFile, "head": 60}))
			read.raw = rawLines(60)
			m.results["filesystem read60"] = read
			numbered := measureResult(t, c.call(t, "read_text_file", map[string]any{"path": fsSourceFile, "head": 60, "lineNumbers": true}))
			numbered.raw = rawLines(60)
			m.results["filesystem read60 numbered"] = numbered
			m.results["filesystem list50"] = measureResult(t, c.call(t, "list_directory", map[string]any{"path": fsListDir}))
			m.results["filesystem search20"] = measureResult(t, c.call(t, "search_file_contents", map[string]any{"pattern": fsSearchText, "literal": true}))
		}
	})
	t.Run("reference filesystem", func(t *testing.T) {
		// The pinned reference server on the pinned Node 22, first on the PATH NpmBin
		// returns (both missing: fails in CI, skipped elsewhere).
		ref, env := realclient.NpmBin(t, "mcp-server-filesystem")
		c := startStdio(t, env, ref, dir)
		m.addDefs("reference-filesystem all", measureDefs(c.tools(t), c.instructions(t)))
		read := measureResult(t, c.call(t, "read_text_file", map[string]any{"path": filepath.Join(dir, fsSourceFile), "head": 60}))
		read.raw = rawLines(60)
		m.results["reference-filesystem read60"] = read
		m.results["reference-filesystem list50"] = measureResult(t, c.call(t, "list_directory", map[string]any{"path": filepath.Join(dir, fsListDir)}))
	})
	t.Run("postgres", func(t *testing.T) {
		for _, writes := range []bool{false, true} {
			c := connectInProcess(t, pgServer(t, writes))
			m.addDefs("postgres "+mode(writes), measureDefs(c.tools(t), c.instructions(t)))
			if !writes {
				m.results["postgres query20"] = measureResult(t, c.call(t, "query", map[string]any{"sql": pgQuery}))
			}
			c = connectInProcess(t, pgThreeServer(t, writes))
			m.addDefs("postgres three databases "+mode(writes), measureDefs(c.tools(t), c.instructions(t)))
		}
	})
	t.Run("errors", func(t *testing.T) {
		c := connectInProcess(t, errorsServer(t, errorsStore(t)))
		m.addDefs("errors read-only", measureDefs(c.tools(t), c.instructions(t)))
		search := c.call(t, "search_issues", map[string]any{"statsPeriod": "24h"})
		m.results["errors search"] = measureResult(t, search)
		var list struct {
			Issues []struct {
				ID    string `json:"id"`
				Count int    `json:"count"`
			} `json:"issues"`
		}
		if err := json.Unmarshal(structuredOrText(t, search), &list); err != nil || len(list.Issues) != 3 {
			t.Fatalf("search_issues found %+v (%v); want the fixture's three issues", list.Issues, err)
		}
		sort.Slice(list.Issues, func(i, j int) bool { return list.Issues[i].Count > list.Issues[j].Count })
		id := list.Issues[0].ID // the declined card: three events
		m.results["errors issue"] = measureResult(t, c.call(t, "get_issue", map[string]any{"issueId": id}))
		m.results["errors event"] = measureResult(t, c.call(t, "get_event", map[string]any{"issueId": id}))
	})
	t.Run("github", func(t *testing.T) {
		fake := githubFake(t)
		for _, writes := range []bool{false, true} {
			c := connectInProcess(t, githubServer(t, fake, writes))
			m.addDefs("github "+mode(writes), measureDefs(c.tools(t), c.instructions(t)))
			if !writes {
				m.results["github issue"] = measureResult(t, c.call(t, "get_issue", map[string]any{"owner": "octo", "repo": "hello", "number": 7}))
				m.results["github pull"] = measureResult(t, c.call(t, "get_pull_request", map[string]any{"owner": "octo", "repo": "hello", "number": 4}))
			}
			all := connectInProcess(t, githubServer(t, fake, writes, true))
			m.addDefs("github all "+mode(writes), measureDefs(all.tools(t), all.instructions(t)))
		}
	})
	t.Run("github-mcp-server snapshots", func(t *testing.T) {
		ro, all := githubSnapshots(t)
		m.addDefs("github-mcp-server read-only", measureDefs(ro, ""))
		m.addDefs("github-mcp-server allow-writes", measureDefs(all, ""))
	})

	// Printed, not logged: `make tokens` shows it whole, and under `make test` it is
	// part of the test's output, which tools/testsum shows when a budget fails.
	fmt.Print(m.table())
	t.Run("budgets", func(t *testing.T) { checkBudgets(t, m) })
}

func mode(writes bool) string {
	if writes {
		return "allow-writes"
	}
	return "read-only"
}

// rawLines is the size of the fixture source file's first n lines.
func rawLines(n int) int {
	lines := strings.SplitAfter(paymentSource, "\n")
	size := 0
	for _, l := range lines[:n] {
		size += len(l)
	}
	return size
}

// structuredOrText is a result's structuredContent, or its text when it has none.
func structuredOrText(t testing.TB, raw json.RawMessage) []byte {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.StructuredContent) > 0 {
		return r.StructuredContent
	}
	if len(r.Content) == 0 {
		t.Fatalf("empty result %s", raw)
	}
	return []byte(r.Content[0].Text)
}

// githubSnapshots reads github-mcp-server's tool snapshots (testdata/github-mcp-server,
// SOURCE.md there): the 15 tools with our read tools' capabilities, and those plus the
// 4 with our write tools' capabilities.
func githubSnapshots(t testing.TB) (readOnly, all []json.RawMessage) {
	read := []string{"search_repositories", "get_file_contents", "list_branches", "list_tags", "list_releases", "list_commits",
		"get_commit", "list_issues", "issue_read", "search_issues", "list_pull_requests", "pull_request_read", "search_code",
		"actions_list", "get_job_logs"}
	writes := []string{"create_or_update_file", "issue_write", "add_issue_comment", "create_pull_request"}
	load := func(name string) json.RawMessage {
		b, err := os.ReadFile(filepath.Join("testdata", "github-mcp-server", name+".snap"))
		if err != nil {
			t.Fatal(err)
		}
		return json.RawMessage(reencode(b))
	}
	for _, n := range read {
		readOnly = append(readOnly, load(n))
	}
	all = append(all, readOnly...)
	for _, n := range writes {
		all = append(all, load(n))
	}
	return readOnly, all
}

// sentryQuoted is @sentry/mcp-server 0.39.0's tools/list as issue 16 quotes it: 9
// visible tools, 26,151 bytes. It does not run here (it needs a Sentry account).
var sentryQuoted = defs{tools: 9, list: 26151}

// table renders the measurements.
func (m *measured) table() string {
	var b strings.Builder
	num := func(n int) string {
		s := fmt.Sprint(n)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	bt := func(n int) string { return fmt.Sprintf("%s B ~%s tok", num(n), num(approxTokens(n))) }
	b.WriteString("\nContext cost (tokens ≈ bytes/4). model: Σ compact {name, description, inputSchema}; instr: instructions; list: compact tools/list.\n\n")
	fmt.Fprintf(&b, "%-32s %5s  %-22s %-20s %s\n", "server / mode", "tools", "model", "instr", "list")
	rows := append([]string(nil), m.order...)
	for i, key := range rows {
		if key == "errors read-only" {
			rows = append(rows[:i+1], append([]string{"@sentry/mcp-server (quoted)"}, rows[i+1:]...)...)
			break
		}
	}
	for _, key := range rows {
		d, ok := m.defs[key]
		if key == "@sentry/mcp-server (quoted)" {
			d, ok = sentryQuoted, true
		}
		if !ok {
			continue
		}
		model, instr := bt(d.model), bt(d.instructions)
		if d.model == 0 {
			model, instr = "—", "—"
		}
		fmt.Fprintf(&b, "%-32s %5d  %-22s %-20s %s\n", key, d.tools, model, instr, bt(d.list))
	}
	b.WriteString("\nTypical results. text: the text blocks; host: what VS Code and Claude Code pass the model (structuredContent's JSON when present).\n\n")
	fmt.Fprintf(&b, "%-40s %-22s %-22s %s\n", "server / call", "text", "host", "raw lines")
	keys := make([]string, 0, len(m.results))
	for k := range m.results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := m.results[k]
		raw := ""
		if r.raw > 0 {
			raw = fmt.Sprintf("%s B (host %.3f×)", num(r.raw), float64(r.host)/float64(r.raw))
		}
		fmt.Fprintf(&b, "%-40s %-22s %-22s %s\n", k, bt(r.text), bt(r.host), raw)
	}
	if inv, ok := m.investigation(); ok {
		b.WriteString("\nInvestigation (errors + filesystem, read-only): definitions and instructions of both servers, then\nsearch_issues, get_issue, get_event (latest) and a 60-line read, as VS Code and Claude Code pass them.\n\n")
		for _, l := range inv.lines {
			fmt.Fprintf(&b, "  %-44s %s\n", l.what, bt(l.bytes))
		}
		fmt.Fprintf(&b, "  %-44s %s\n", "total", bt(inv.total))
	}
	return b.String()
}

type investigation struct {
	lines []struct {
		what  string
		bytes int
	}
	total int
}

// investigation adds up the errors + filesystem investigation.
func (m *measured) investigation() (investigation, bool) {
	var inv investigation
	add := func(what string, n int) {
		inv.lines = append(inv.lines, struct {
			what  string
			bytes int
		}{what, n})
		inv.total += n
	}
	e, ok1 := m.defs["errors read-only"]
	f, ok2 := m.defs["filesystem read-only"]
	if !ok1 || !ok2 {
		return inv, false
	}
	add("errors definitions + instructions", e.model+e.instructions)
	add("filesystem definitions + instructions", f.model+f.instructions)
	for _, k := range []string{"errors search", "errors issue", "errors event", "filesystem read60"} {
		r, ok := m.results[k]
		if !ok {
			return inv, false
		}
		add(k, r.host)
	}
	return inv, true
}
