package filesystem

import (
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// The whitespace-tolerant fallback of edit_file (issue 30). Models often re-indent the
// text they quote (spaces for tabs, a level more or less, trailing blanks dropped), and
// an exact match then fails. When an edit's oldText is not found exactly, its lines are
// compared with the file's lines ignoring leading and trailing whitespace (so the
// indentation's width and kind do not matter). The fallback is used only when that
// finds exactly one place: two or more are refused with their line numbers, as an
// ambiguous exact match is. The replacement takes the file's own indentation (see
// reindent), the result says which lines were matched this way, and the confirmation
// shows the diff of what is really written.

// WhitespaceMatch records an edit that matched only when whitespace was ignored.
type WhitespaceMatch struct {
	Edit      int    `json:"edit" jsonschema_description:"Which edit (1-based) matched this way"`
	StartLine int    `json:"startLine" jsonschema_description:"First line matched (1-based; in the file as the earlier edits left it)"`
	EndLine   int    `json:"endLine" jsonschema_description:"Last line matched"`
	Lines     string `json:"lines" jsonschema_description:"The file's lines that were replaced, as they were (cut when long)"`
}

// maxFallbackShown bounds the matched lines a WhitespaceMatch shows.
const maxFallbackShown = 2 << 10

// lineSpan is one line of a text: its bytes are text[start:end], without the line
// break (nor a CR before it).
type lineSpan struct{ start, end int }

// splitLineSpans returns the lines of text; a final line break does not start an
// empty line.
func splitLineSpans(text string) []lineSpan {
	var spans []lineSpan
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '\n')
		next := len(text)
		end := len(text)
		if i >= 0 {
			end, next = off+i, off+i+1
		}
		if end > off && text[end-1] == '\r' {
			end--
		}
		spans = append(spans, lineSpan{off, end})
		off = next
	}
	return spans
}

// fallbackResult is a whitespace-tolerant match: text with the edit applied, or the
// places found when there is not exactly one.
type fallbackResult struct {
	text       string
	match      WhitespaceMatch
	candidates []int // first lines (0-based) of the places found, when not exactly one
	lines      int   // how many lines each place spans
}

// whitespaceFallback looks for oldT among work's lines ignoring each line's leading
// and trailing whitespace. oldT and newT use LF breaks; in a file whose matched lines
// end in CRLF, newT's lines are written with CRLF.
func whitespaceFallback(work, oldT, newT string, edit int) (fallbackResult, bool) {
	oldLines := strings.Split(strings.TrimSuffix(oldT, "\n"), "\n")
	nonBlank := false
	for i, l := range oldLines {
		oldLines[i] = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) != "" {
			nonBlank = true
		}
	}
	if !nonBlank {
		return fallbackResult{}, false
	}
	spans := splitLineSpans(work)
	var found []int
	for i := 0; i+len(oldLines) <= len(spans); i++ {
		if linesMatchTrimmed(work, spans[i:i+len(oldLines)], oldLines) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return fallbackResult{}, false
	case 1:
	default:
		return fallbackResult{candidates: found, lines: len(oldLines)}, true
	}
	first, last := spans[found[0]], spans[found[0]+len(oldLines)-1]
	fileLines := make([]string, len(oldLines))
	for j := range oldLines {
		sp := spans[found[0]+j]
		fileLines[j] = work[sp.start:sp.end]
	}
	if strings.HasSuffix(oldT, "\n") {
		newT = strings.TrimSuffix(newT, "\n")
	}
	repl := reindent(newT, oldLines, fileLines)
	if last.end < len(work) && work[last.end] == '\r' { // the matched lines end in CRLF
		repl = strings.ReplaceAll(repl, "\n", "\r\n")
	}
	shown, cut := mcpkit.CleanText(toLF(work[first.start:last.end]), maxFallbackShown)
	if cut {
		shown += "[…]"
	}
	return fallbackResult{
		text: work[:first.start] + repl + work[last.end:],
		match: WhitespaceMatch{Edit: edit, StartLine: found[0] + 1, EndLine: found[0] + len(oldLines),
			Lines: shown},
	}, true
}

func linesMatchTrimmed(work string, spans []lineSpan, want []string) bool {
	for j, sp := range spans {
		if strings.TrimSpace(work[sp.start:sp.end]) != strings.TrimSpace(want[j]) {
			return false
		}
	}
	return true
}

// reindent gives newT the file's indentation, line by line:
//
//   - a new line that repeats a quoted line (same text, same indentation; in order)
//     takes the indentation of the file's line matched to it;
//   - a line indented exactly as quoted lines were takes their file indentation (when
//     those differ, the one of the nearest repeated line above);
//   - a line indented more takes, for the longest quoted indentation that begins it,
//     the file's, and keeps the rest (one level deeper stays one level deeper);
//   - anything else keeps its own.
//
// Quoted with spaces, a file indented with tabs thus gets tabs back.
func reindent(newT string, oldLines, fileLines []string) string {
	lines := strings.Split(newT, "\n")
	quoted := make([]string, len(oldLines))
	file := make([]string, len(oldLines))
	for j := range oldLines {
		quoted[j], file[j] = leadingSpace(oldLines[j]), leadingSpace(fileLines[j])
	}
	next, prev := 0, -1 // next old line an anchor may take; the last anchor's old line
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if trimmed == "" {
			continue
		}
		ind := leadingSpace(l)
		anchored := -1
		for j := next; j < len(oldLines); j++ {
			if quoted[j] == ind && strings.TrimSpace(oldLines[j]) == trimmed {
				anchored = j
				break
			}
		}
		if anchored >= 0 {
			lines[i] = file[anchored] + l[len(ind):]
			next, prev = anchored+1, anchored
			continue
		}
		best := -1 // the quoted line whose indentation is the longest prefix of ind
		for j := range oldLines {
			if strings.TrimSpace(oldLines[j]) == "" || !strings.HasPrefix(ind, quoted[j]) {
				continue
			}
			if best < 0 || len(quoted[j]) > len(quoted[best]) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		if prev >= 0 && quoted[prev] == quoted[best] {
			best = prev // same quoted indentation: the nearest repeated line above decides
		}
		lines[i] = file[best] + l[len(quoted[best]):]
	}
	return strings.Join(lines, "\n")
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// ambiguousFallbackError refuses a fallback that found several places.
func ambiguousFallbackError(edit int, starts []int, n int) error {
	var at []string
	for _, s := range starts[:min(len(starts), 5)] {
		if n == 1 {
			at = append(at, fmt.Sprint(s+1))
		} else {
			at = append(at, fmt.Sprintf("%d-%d", s+1, s+n))
		}
	}
	more := ""
	if len(starts) > 5 {
		more = fmt.Sprintf(" and %d more", len(starts)-5)
	}
	return fmt.Errorf("edit %d: oldText was not found exactly, and ignoring leading and trailing whitespace it matches %d places (lines %s%s); nothing was changed: copy the exact text from the file, or include more surrounding lines to make it unique",
		edit, len(starts), strings.Join(at, ", "), more)
}
