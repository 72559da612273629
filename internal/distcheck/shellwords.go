package distcheck

import (
	"fmt"
	"strings"
)

// SplitShell splits one shell command line into words the way a POSIX shell does for
// the quoting that README commands use: single quotes, double quotes (with \" \\ \$
// and \` escapes), backslash escapes outside quotes, and a # comment at the start of
// a word. Nothing is expanded: "$PWD" stays the word $PWD, which is what a check of
// flag names needs. An unterminated quote is an error.
func SplitShell(line string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool
	)
	for _, r := range line {
		switch {
		case escaped:
			if quote == '"' && !strings.ContainsRune("\"\\$`", r) {
				cur.WriteRune('\\') // inside double quotes only these are escapes
			}
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words, nil // a comment runs to the end of the line
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, line)
	}
	if escaped {
		return nil, fmt.Errorf("line ends with a lone backslash: %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// LogicalLines joins the lines of a shell block that end with a backslash with the
// line after them, as the shell does, and reports the 1-based line (counted from
// first) each logical line starts on. A console block's lines are taken only when
// they start with a "$ " prompt, which is removed.
func LogicalLines(text string, first int, console bool) []NumberedLine {
	var out []NumberedLine
	var cur strings.Builder
	start := 0
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if cur.Len() == 0 {
			start = first + i
			if console {
				trimmed := strings.TrimLeft(line, " ")
				if !strings.HasPrefix(trimmed, "$ ") {
					continue
				}
				line = strings.TrimPrefix(trimmed, "$ ")
			}
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			cur.WriteString(" ")
			continue
		}
		cur.WriteString(line)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, NumberedLine{Line: start, Text: s})
		}
		cur.Reset()
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, NumberedLine{Line: start, Text: s})
	}
	return out
}

// NumberedLine is a line of a file with its 1-based line number.
type NumberedLine struct {
	Line int
	Text string
}
