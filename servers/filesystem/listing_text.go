package filesystem

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// The text of list_directory and directory_tree (issue 30). Both outputs are
// mcpkit.TextRenderers: under the servers' output policy a model reads this text alone,
// one entry a line, instead of the JSON of every entry's size and time, which made a
// 50-entry listing four times the reference server's. A directory ends in "/", a
// symbolic link or special file says so in parentheses, and sizes and modification
// times come only when the call asks for them (details). structuredContent, where a
// client has it (ServerOptions.OutputSchemas, Config.OutputSchemas), keeps every field
// of every entry whatever details says.
//
//	[/srv/app/web/assets: 50 entries]
//	account.css
//	fonts/
//	logo.svg (symlink)

// MCPText renders one page of a directory listing; see the comment above.
func (o ListDirectoryOutput) MCPText() string {
	var parts []string
	n := len(o.Entries)
	switch {
	case o.Total == 0:
		parts = append(parts, "empty directory")
	case n == 0:
		parts = append(parts, "no entries at offset "+strconv.Itoa(o.Offset)+"; "+plural(o.Total, "entry", "entries")+" in all")
	case o.Offset == 0 && n == o.Total:
		parts = append(parts, plural(n, "entry", "entries"))
	default:
		parts = append(parts, "entries "+strconv.Itoa(o.Offset+1)+"-"+strconv.Itoa(o.Offset+n)+" of "+strconv.Itoa(o.Total))
	}
	switch o.sortBy {
	case "size":
		parts = append(parts, "largest first")
	case "modified":
		parts = append(parts, "newest first")
	}
	if o.details && n > 0 {
		parts = append(parts, "name, bytes, modified (UTC)")
	}
	if o.Truncated {
		parts = append(parts, "truncated: "+o.Hint)
	}
	var b strings.Builder
	b.Grow(32 + len(o.Path) + n*24)
	writeHeader(&b, o.Path, parts)
	for _, e := range o.Entries {
		writeEntry(&b, e.Name, e.Type, o.details, e.Size, e.Modified)
	}
	return b.String()
}

// MCPText renders a directory tree as one relative path a line, in the order of
// Entries (a directory's contents follow it).
func (o DirectoryTreeOutput) MCPText() string {
	parts := []string{plural(len(o.Entries), "entry", "entries")}
	if len(o.Entries) == 0 {
		parts[0] = "empty directory"
	}
	if o.details && len(o.Entries) > 0 {
		parts = append(parts, "path, bytes, modified (UTC)")
	}
	switch {
	case o.Truncated:
		parts = append(parts, "truncated: "+o.Hint)
	case o.Hint != "":
		parts = append(parts, o.Hint)
	}
	var b strings.Builder
	b.Grow(32 + len(o.Path) + len(o.Entries)*32)
	writeHeader(&b, o.Path, parts)
	for _, e := range o.Entries {
		writeEntry(&b, e.Path, e.Type, o.details, e.Size, e.Modified)
	}
	return b.String()
}

func writeHeader(b *strings.Builder, path string, parts []string) {
	b.WriteByte('[')
	b.WriteString(quoteName(path))
	b.WriteString(": ")
	b.WriteString(strings.Join(parts, "; "))
	b.WriteString("]\n")
}

// writeEntry writes one line: the name (quoted when it could be misread), a type
// mark, and with details its size (files only; "-" otherwise) and time.
func writeEntry(b *strings.Builder, name, typ string, details bool, size int64, modified string) {
	b.WriteString(quoteName(name))
	switch typ {
	case "directory":
		b.WriteByte('/')
	case "symlink":
		b.WriteString(" (symlink)")
	case "other":
		b.WriteString(" (special file)")
	}
	if details {
		b.WriteByte('\t')
		if typ == "file" {
			b.WriteString(strconv.FormatInt(size, 10))
		} else {
			b.WriteByte('-')
		}
		b.WriteByte('\t')
		b.WriteString(modified)
	}
	b.WriteByte('\n')
}

// quoteName writes a name as it is unless a reader could take it for something else:
// one with a line break, tab or other control character, an invisible or
// bidirectional character, invalid UTF-8, leading or trailing spaces, a leading quote
// or what looks like a type mark at its end is written as a Go string literal, so every
// byte shows and one entry is always one line.
func quoteName(s string) string {
	if s == "" {
		return `""`
	}
	if s[0] == '"' || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ')' || s[len(s)-1] == '/' || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || mcpkit.IsHidden(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
