package distcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// installPaths are the ways of installing a server that the root README's install
// table shows for every host, by a word of their column's header, with the mode of
// the snippets in that column. An MCP Bundle has no snippet: it is installed in the
// app (Claude Desktop), which writes its own configuration.
var installPaths = []struct {
	Word string
	Mode Mode
}{
	{"binary", Binary},
	{"npx", Npx},
	{"MCP Bundle", ""},
	{"container", Container},
}

// installTable finds the root README's host × path table: the table whose first
// header cell is "host" and whose other header cells name every install path.
func installTable(src string) (Table, map[string]int, error) {
	for _, t := range Tables(src) {
		if len(t.Header) == 0 || !strings.EqualFold(t.Header[0], "host") {
			continue
		}
		cols := map[string]int{}
		for _, p := range installPaths {
			for i, h := range t.Header[1:] {
				if strings.Contains(strings.ToLower(h), strings.ToLower(p.Word)) {
					cols[p.Word] = i + 1
					break
				}
			}
		}
		if len(cols) == len(installPaths) {
			return t, cols, nil
		}
	}
	var words []string
	for _, p := range installPaths {
		words = append(words, p.Word)
	}
	return Table{}, nil, fmt.Errorf("README.md has no install table: a table whose first header cell is \"host\" and whose other header cells name %s", strings.Join(words, ", "))
}

// TestInstallTable checks the root README's install table, host × install path:
// every host (Claude Desktop, VS Code, Claude Code, Cursor) has a row, every path
// (the binary from go install or a release archive, npx, the MCP Bundle, the
// container) has a column, and every cell says something. The snippets in a cell
// (inline code: a host config entry as JSON, or a command line such as claude mcp
// add) must be of the column's kind and are checked like the README snippets: the
// server exists, and its flags and environment variables are the server's (the
// binary judges the arguments). Claude Desktop's bundle cell must name the .mcpb.
func TestInstallTable(t *testing.T) {
	root := repoRoot(t)
	servers := builtServers(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, cols, err := installTable(string(src))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[Host]TableRow{}
	for _, r := range table.Rows {
		h := lastHost(r.Cells[0])
		if h == "" {
			t.Errorf("README.md:%d: install table row %q names no host", r.Line, r.Cells[0])
			continue
		}
		rows[h] = r
	}
	for _, h := range RequiredHosts {
		row, ok := rows[h]
		if !ok {
			t.Errorf("README.md install table has no row for %s", h)
			continue
		}
		for _, p := range installPaths {
			where := fmt.Sprintf("README.md:%d %s × %s", row.Line, h, p.Word)
			if cols[p.Word] >= len(row.Cells) || strings.TrimSpace(row.Cells[cols[p.Word]]) == "" {
				t.Errorf("%s: empty cell: say how, or that it cannot be done and what to use instead", where)
				continue
			}
			cell := row.Cells[cols[p.Word]]
			if p.Mode == "" {
				if h == ClaudeDesktop && !strings.Contains(cell, ".mcpb") {
					t.Errorf("%s: say how Claude Desktop installs the bundle (the .mcpb file)", where)
				}
				continue
			}
			n := 0
			for _, span := range CodeSpans(cell) {
				l, ok, err := tableLaunch(h, span, row.Line)
				if err != nil {
					t.Errorf("%s: %v\n\tsnippet: %s", where, err, span)
					continue
				}
				if !ok {
					continue
				}
				n++
				if l.Mode != p.Mode {
					t.Errorf("%s: a %s snippet in the %s column: %s", where, l.Mode, p.Word, span)
				}
				t.Logf("%s: server=%q args=%q env=%q", where, l.Server, l.Args, l.Env)
				// Every snippet names a real server (no mcp-server-x placeholder here).
				for _, problem := range checkLaunch(l, l.Server, servers) {
					t.Errorf("%s: %s\n\tsnippet: %s", where, problem, span)
				}
			}
			if n == 0 {
				t.Errorf("%s: no snippet (a config entry or command in inline code)", where)
			}
		}
	}
}

// tableLaunch reads one code span of the install table: a host config entry (a JSON
// object with "command" or "url") for the row's host, or a command line. ok is false
// for code that launches nothing.
func tableLaunch(host Host, span string, line int) (Launch, bool, error) {
	span = strings.TrimSpace(span)
	if strings.HasPrefix(span, "{") {
		var e configEntry
		dec := json.NewDecoder(strings.NewReader(span))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return Launch{}, false, fmt.Errorf("config entry is not valid JSON of a host's server entry: %v", err)
		}
		l := Launch{File: "README.md", Line: line, Source: span, Host: host}
		return l, true, l.fromConfigEntry(e)
	}
	l, ok, err := parseShellLine("README.md", NumberedLine{Text: span, Line: line})
	if err == nil && ok && l.Host != "" && l.Host != host {
		err = fmt.Errorf("a %s command in the %s row", l.Host, host)
	}
	return l, ok, err
}

var goInstallLine = regexp.MustCompile("go install\\s+([^\\s`@]*/[^\\s`@]*)@([^\\s`]+)")

// TestGoInstallCommands checks every `go install …@version` in the READMEs and docs:
// it must name the command package of a released server
// (github.com/mcpkit/reference/servers/<name>/cmd/mcp-server-<name>) at latest or a
// version tag. tools/release's TestGoInstall runs that command for every server.
func TestGoInstallCommands(t *testing.T) {
	root := repoRoot(t)
	builtServers(t) // for serverDirs
	files := readmeFiles(t, root)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, filepath.ToSlash(rel))
	}
	var released []string
	for _, sd := range serverDirs {
		if !sd.Example() {
			released = append(released, "github.com/mcpkit/reference/"+sd.Rel+"/cmd/"+sd.Cmd)
		}
	}
	found := 0
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			for _, m := range goInstallLine.FindAllSubmatch(line, -1) {
				found++
				pkg, version := string(m[1]), string(m[2])
				if !slices.Contains(released, pkg) {
					t.Errorf("%s:%d: go install %s: not the command of a released server (%s)", rel, i+1, pkg, strings.Join(released, ", "))
				}
				if version != "latest" && !regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(version) {
					t.Errorf("%s:%d: go install …@%s: use @latest or a version tag", rel, i+1, version)
				}
			}
		}
	}
	if found == 0 {
		t.Error("no README shows `go install …@latest`")
	}
}

// TestInstallTableCatchesMistakes runs the install table's parsing on a broken table:
// each mistake must be found.
func TestInstallTableCatchesMistakes(t *testing.T) {
	servers := builtServers(t)
	src := "intro\n\n" +
		"| host | binary | npx | MCP Bundle | container |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| Claude Desktop | `{\"command\": \"mcp-server-filesystem\", \"args\": [\"--allow-writez\", \"/x\"]}` | `{\"command\": \"npx\", \"args\": [\"-y\", \"@mcpkit/mcp-server-nope\"]}` | install it | `{\"command\": \"docker\", \"args\": [\"run\", \"--rm\", \"img/mcp-server-filesystem\"]}` |\n" +
		"| Claude Code | `claude mcp add fs -- npx @mcpkit/mcp-server-filesystem /x` | `{\"command\": \"npx\", \"args\": [\"-y\", \"left-pad\"]}` | no | `{\"comand\": \"docker\"}` |\n"
	table, cols, err := installTable(src)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, r := range table.Rows {
		h := lastHost(r.Cells[0])
		for _, p := range installPaths {
			if p.Mode == "" {
				continue
			}
			for _, span := range CodeSpans(r.Cells[cols[p.Word]]) {
				l, ok, err := tableLaunch(h, span, r.Line)
				if err != nil {
					problems = append(problems, err.Error())
					continue
				}
				if ok {
					problems = append(problems, checkLaunch(l, l.Server, servers)...)
				}
			}
		}
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{
		"has no flag --allow-writez",
		`there is no server "nope"`,
		"without -i",
		"npx without -y",
		"not a server package of this repository",
		`unknown field "comand"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q; got:\n%s", want, all)
		}
	}
}
