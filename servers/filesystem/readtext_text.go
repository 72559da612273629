package filesystem

import (
	"strconv"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// MCPText is the text block of a read_text_file result (an [mcpkit.TextRenderer]): the
// text itself, neither quoted nor escaped, numbered when lineNumbers asked for it, after
// a one-line header in brackets that names the file, the lines returned and anything
// unusual (encoding, line breaks, removed characters, a note, truncation with its hint):
//
//	[/src/shop/checkout/payment.go: lines 50-56 of 120]
//	50	func charge(o Order) error {
//
// A whole file with nothing unusual has no header: the text block is the file, as the
// reference server returns it. structuredContent keeps every field, content unnumbered.
func (o ReadTextFileOutput) MCPText() string {
	header := o.textHeader()
	var sb strings.Builder
	grow := len(header) + 1 + len(o.Content)
	numbered := o.Numbered && o.StartLine > 0 && o.LinesReturned > 0
	if numbered {
		grow += o.LinesReturned * (len(strconv.Itoa(o.EndLine)) + 1)
	}
	sb.Grow(grow)
	if header != "" {
		sb.WriteString(header)
		sb.WriteByte('\n')
	}
	if !numbered {
		sb.WriteString(o.Content)
		return sb.String()
	}
	// Numbers as cat -n writes them (right-aligned, then a tab), but only as wide as
	// the largest number here: one tab keeps the line's own indentation intact and
	// costs one byte.
	width := len(strconv.Itoa(o.EndLine))
	var num [24]byte
	rest := o.Content
	for n := o.StartLine; rest != ""; n++ {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		digits := strconv.AppendInt(num[:0], int64(n), 10)
		for range width - len(digits) {
			sb.WriteByte(' ')
		}
		sb.Write(digits)
		sb.WriteByte('\t')
		sb.WriteString(line)
	}
	return sb.String()
}

// textHeader is MCPText's first line, or "" for a whole file with nothing to report.
func (o ReadTextFileOutput) textHeader() string {
	var parts []string
	whole := o.StartLine == 1 && o.TotalLines > 0 && o.EndLine == o.TotalLines
	switch {
	case o.LinesReturned == 0 && o.TotalLines == 0:
		parts = append(parts, "empty file")
	case o.LinesReturned == 0:
		parts = append(parts, "no lines: the file has "+strconv.Itoa(o.TotalLines))
	case o.StartLine == 0:
		s := "last " + strconv.Itoa(o.LinesReturned) + " lines"
		if o.Numbered {
			s += ", not numbered (too large to count)"
		}
		parts = append(parts, s)
	case !whole:
		s := "lines " + strconv.Itoa(o.StartLine) + "-" + strconv.Itoa(o.EndLine)
		if o.StartLine == o.EndLine {
			s = "line " + strconv.Itoa(o.StartLine)
		}
		if o.TotalLines > 0 {
			s += " of " + strconv.Itoa(o.TotalLines)
		}
		parts = append(parts, s)
	}
	if o.Encoding != "" && o.Encoding != "utf-8" {
		parts = append(parts, o.Encoding)
	}
	switch o.LineEnding {
	case "crlf":
		parts = append(parts, "crlf")
	case "mixed":
		parts = append(parts, "mixed line breaks")
	}
	if o.Sanitized {
		parts = append(parts, "invisible characters removed")
	}
	if o.Note != "" {
		parts = append(parts, o.Note)
	}
	if o.Truncated {
		parts = append(parts, "truncated: "+o.Hint)
	}
	if len(parts) == 0 {
		return ""
	}
	if whole {
		all := strconv.Itoa(o.TotalLines) + " lines"
		if o.TotalLines == 1 {
			all = "1 line"
		}
		parts = append([]string{all}, parts...)
	}
	path := o.Path
	if mcpkit.SanitizeText(path) != path || strings.ContainsAny(path, "\t\r\n") {
		path = strconv.Quote(path)
	}
	return "[" + path + ": " + strings.Join(parts, "; ") + "]"
}
