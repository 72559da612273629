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
