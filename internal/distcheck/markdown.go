package distcheck

import (
	"regexp"
	"strings"
)

// Host is an MCP host application whose configuration a README shows.
type Host string

// The hosts every server README must show a configuration for (issue "Distribution":
// Claude Desktop, VS Code, Claude Code and Cursor).
const (
	ClaudeDesktop Host = "Claude Desktop"
	VSCode        Host = "VS Code"
	ClaudeCode    Host = "Claude Code"
	Cursor        Host = "Cursor"
)

// RequiredHosts lists the hosts in the order reports name them.
var RequiredHosts = []Host{ClaudeDesktop, VSCode, ClaudeCode, Cursor}

// hostWords are the phrases that name a host in the prose before a snippet. The file
// names count too: "(`claude_desktop_config.json`)" is how READMEs label a block.
var hostWords = []struct {
	word string
	host Host
}{
	{"Claude Desktop", ClaudeDesktop},
	{"claude_desktop_config", ClaudeDesktop},
	{"VS Code", VSCode},
	{"Visual Studio Code", VSCode},
	{".vscode/mcp.json", VSCode},
	{"Claude Code", ClaudeCode},
	{"Cursor", Cursor},
	{".cursor/mcp.json", Cursor},
}

// Block is a fenced code block of a Markdown file.
type Block struct {
	Lang string // first word of the info string: json, sh, ...
	Line int    // 1-based line of the block's first content line
	Text string // the content, without the fences
	// Host is the host the prose before the block names (the last one named between
	// the previous block and this one), else the previous block's host in the same
	// section, so "Sentry:" after "Claude Desktop (...), local store:" stays Claude
	// Desktop. Empty when no host was named since the last heading.
	Host Host
}

// FencedBlocks returns the fenced code blocks of a Markdown document (``` or ~~~
// fences, indented or not) with the host the surrounding prose names.
func FencedBlocks(src string) []Block {
	var (
		blocks  []Block
		prose   strings.Builder // text since the previous block or heading
		section Host            // host of the previous block in this section
		open    string          // the opening fence while inside a block
		cur     Block
		body    []string
	)
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if open != "" {
			if strings.HasPrefix(trimmed, open) && strings.Trim(trimmed, open[:1]) == "" {
				cur.Text = strings.Join(body, "\n")
				blocks = append(blocks, cur)
				open, body = "", nil
				continue
			}
			body = append(body, line)
			continue
		}
		if fence := fenceOf(trimmed); fence != "" {
			info := strings.Fields(strings.TrimPrefix(trimmed, fence))
			lang := ""
			if len(info) > 0 {
				lang = strings.ToLower(info[0])
			}
			host := lastHost(prose.String())
			if host == "" {
				host = section
			}
			section = host
			prose.Reset()
			cur = Block{Lang: lang, Line: i + 2, Host: host}
			open = fence
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			prose.Reset()
			section = ""
			continue
		}
		prose.WriteString(line)
		prose.WriteString("\n")
	}
	return blocks
}

// fenceOf returns the opening fence (three or more backticks or tildes) a line
// starts with, or "".
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(trimmed) && trimmed[n] == c[0] {
			n++
		}
		if n >= 3 {
			return trimmed[:n]
		}
	}
	return ""
}

// hostPatterns match the host words as whole words ("Cursor", not "nextCursor").
var hostPatterns = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, hw := range hostWords {
		p := regexp.QuoteMeta(hw.word)
		if isWordByte(hw.word[0]) {
			p = `\b` + p
		}
		if isWordByte(hw.word[len(hw.word)-1]) {
			p += `\b`
		}
		out = append(out, regexp.MustCompile(p))
	}
	return out
}()

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lastHost returns the host named last in text, or "".
func lastHost(text string) Host {
	best, at := Host(""), -1
	for i, re := range hostPatterns {
		locs := re.FindAllStringIndex(text, -1)
		if len(locs) > 0 && locs[len(locs)-1][0] > at {
			best, at = hostWords[i].host, locs[len(locs)-1][0]
		}
	}
	return best
}

// Table is a Markdown table outside code blocks: its header cells and rows of cells,
// each cell trimmed, with the 1-based line of each row.
type Table struct {
	Line   int // line of the header row
	Header []string
	Rows   []TableRow
}

// TableRow is one body row of a Table.
type TableRow struct {
	Line  int
	Cells []string
}

// Tables returns the Markdown tables of a document: runs of lines starting with "|"
// whose second line is the delimiter row (| --- | --- |), outside fenced blocks.
func Tables(src string) []Table {
	var tables []Table
	lines := strings.Split(src, "\n")
	open := ""
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if open != "" {
			if strings.HasPrefix(trimmed, open) && strings.Trim(trimmed, open[:1]) == "" {
				open = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			open = f
			continue
		}
		if !strings.HasPrefix(trimmed, "|") || i+1 >= len(lines) || !isDelimiterRow(lines[i+1]) {
			continue
		}
		t := Table{Line: i + 1, Header: tableCells(trimmed)}
		i += 2
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			t.Rows = append(t.Rows, TableRow{Line: i + 1, Cells: tableCells(strings.TrimSpace(lines[i]))})
		}
		tables = append(tables, t)
	}
	return tables
}

func isDelimiterRow(line string) bool {
	cells := tableCells(strings.TrimSpace(line))
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// tableCells splits a table row at its unescaped pipes; a pipe inside a code span
// splits too, as GitHub renders it, so cells must not hold one.
func tableCells(row string) []string {
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// CodeSpans returns the inline code of a piece of Markdown.
func CodeSpans(text string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
