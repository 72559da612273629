package filesystem

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestEditWhitespaceFallback (issue 30): an oldText that is not in the file exactly
// but matches one place when each line's leading and trailing whitespace is ignored
// is applied there, with the file's own indentation, encoding and line breaks, and the
// result says which lines matched that way. Each case fails on the code before the
// fallback, which answered "oldText was not found".
func TestEditWhitespaceFallback(t *testing.T) {
	goFile := "func f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	tests := []struct {
		name       string
		before     string
		edit       Edit
		after      string
		start, end int
		lines      string
	}{
		{"unique, re-indented quote", "a:\n    b: 1\n    c: 2\nd: 3\n",
			Edit{"b: 1\nc: 2\n", "b: 10\nc: 20\n"}, "a:\n    b: 10\n    c: 20\nd: 3\n", 2, 3, "    b: 1\n    c: 2"},
		{"tabs against spaces", goFile,
			Edit{"    if x {\n        return 1\n    }", "    if x {\n        log(x)\n        return 1\n    }"},
			"func f() {\n\tif x {\n\t\tlog(x)\n\t\treturn 1\n\t}\n\treturn 0\n}\n", 2, 4, "\tif x {\n\t\treturn 1\n\t}"},
		{"one level deeper than quoted", goFile,
			Edit{"if x {\n    return 1\n}", "if x {\n    return 2\n        // deeper\n}"},
			"func f() {\n\tif x {\n\t\treturn 2\n\t\t    // deeper\n\t}\n\treturn 0\n}\n", 2, 4, "\tif x {\n\t\treturn 1\n\t}"},
		{"trailing whitespace in the file", "x = 1   \ny = 2\t\n", Edit{"x = 1\ny = 2", "x = 3\ny = 4"}, "x = 3\ny = 4\n", 1, 2, "x = 1   \ny = 2\t"},
		{"crlf file", "<a>\r\n  <b/>\r\n</a>\r\n", Edit{"<a>\n<b/>\n", "<a>\n<b/>\n<c/>\n"}, "<a>\r\n  <b/>\r\n  <c/>\r\n</a>\r\n", 1, 2, "<a>\n  <b/>"},
		{"utf-16le crlf file", utf16le("x:\r\n\t\ty = 2\r\n", true), Edit{"  y = 2\n", "  y = 😀\n"}, utf16le("x:\r\n\t\ty = 😀\r\n", true), 2, 2, "\t\ty = 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, dir := newTestRoot(t, map[string]string{"f.txt": tt.before})
			out, err := rs.EditFile(testCtx(t), EditFileInput{Path: "f.txt", Edits: []Edit{tt.edit}})
			if err != nil {
				t.Fatalf("EditFile: %v", err)
			}
			if got := readFile(t, filepath.Join(dir, "f.txt")); got != tt.after {
				t.Errorf("bytes on disk = %q; want %q", got, tt.after)
			}
			want := []WhitespaceMatch{{Edit: 1, StartLine: tt.start, EndLine: tt.end, Lines: tt.lines}}
			if d := cmp.Diff(want, out.WhitespaceMatches); d != "" || out.Replacements != 1 {
				t.Errorf("replacements %d, whitespaceMatches (-want +got):\n%s", out.Replacements, d)
			}
		})
	}
}

// TestEditWhitespaceFallbackRefuses: two or more places refuse with their line
// numbers and change nothing; an exact match never takes the fallback; text found
// nowhere even ignoring whitespace is still "not found".
func TestEditWhitespaceFallbackRefuses(t *testing.T) {
	before := "if a {\n\tdone()\n}\nif b {\n    done()\n}\nfor {\n  done()\n}\n"
	rs, dir := newTestRoot(t, map[string]string{"f.txt": before})
	ctx := testCtx(t)
	_, err := rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{" done() ", "stop()"}}})
	if err == nil || !strings.Contains(err.Error(), "matches 3 places (lines 2, 5, 8)") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("ambiguous fallback: %v; want a refusal naming lines 2, 5 and 8", err)
	}
	_, err = rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{"done()\n  }", "x"}}})
	if err == nil || !strings.Contains(err.Error(), "matches 3 places (lines 2-3, 5-6, 8-9)") {
		t.Errorf("ambiguous two-line fallback: %v; want lines 2-3, 5-6 and 8-9", err)
	}
	// replaceAll does not make an ambiguous fallback acceptable.
	_, err = rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{"done()  ", "stop()"}}, ReplaceAll: true})
	if err == nil || !strings.Contains(err.Error(), "matches 3 places") {
		t.Errorf("replaceAll with an ambiguous fallback: %v; want the refusal", err)
	}
	_, err = rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{"  gone()", "x"}}})
	if err == nil || !strings.Contains(err.Error(), "not found, not even ignoring") {
		t.Errorf("text found nowhere: %v", err)
	}
	// Blank lines alone never match loosely.
	_, err = rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{"  \n\t\n", "x"}}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("blank oldText: %v; want not found", err)
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != before {
		t.Fatalf("a refused edit changed the file: %q", got)
	}
	// Exact text is matched exactly, even where a loose match would find more.
	out, err := rs.EditFile(ctx, EditFileInput{Path: "f.txt", Edits: []Edit{{"\tdone()", "\tstop()"}}})
	if err != nil || out.WhitespaceMatches != nil || readFile(t, filepath.Join(dir, "f.txt")) != strings.Replace(before, "\tdone()", "\tstop()", 1) {
		t.Errorf("exact edit: %+v, %v", out, err)
	}
}

// TestEditWhitespaceFallbackConfirmed: through the tool, the confirmation names the
// loosely matched lines and shows the diff of the file's real lines (its tabs), and
// the result lists the match.
func TestEditWhitespaceFallbackConfirmed(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.go": "func f() {\n\treturn 0\n}\n"})
	c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})
	args := map[string]any{"path": "f.go", "edits": []map[string]string{{"oldText": "    return 0", "newText": "    return 1"}}}
	state, msg := asked(t, c, "edit_file", args)
	containsAll(t, "the confirmation", msg, "matched ignoring leading and trailing whitespace (the only such place): edit 1 at lines 2-2",
		"-\treturn 0\n+\treturn 1\n")
	res := answered(t, c, "edit_file", args, state, acceptAnswer)
	out := structured[EditFileOutput](t, "edit_file", res)
	if len(out.WhitespaceMatches) != 1 || out.WhitespaceMatches[0].Lines != "\treturn 0" {
		t.Errorf("whitespaceMatches = %+v", out.WhitespaceMatches)
	}
	if got := readFile(t, filepath.Join(dir, "f.go")); got != "func f() {\n\treturn 1\n}\n" {
		t.Errorf("file = %q", got)
	}
}
