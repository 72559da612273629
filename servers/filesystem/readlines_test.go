package filesystem

// Reading by line (issue #12): 1-based line, context, startLine/endLine, numbered lines,
// and a text block that is the text itself under a one-line header.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// payment is a 120-line Go file whose line n ends in "// line n", so that a number in
// the output can be checked against the line it labels.
func payment() string {
	var sb strings.Builder
	sb.WriteString("package checkout // line 1\n")
	for n := 2; n <= 120; n++ {
		fmt.Fprintf(&sb, "\tcharge(order, %d) // line %d\n", n*7, n)
	}
	return sb.String()
}

// lines returns lines from..to (1-based, inclusive) of text, each with its "\n".
func lines(text string, from, to int) string {
	all := strings.SplitAfter(text, "\n")
	return strings.Join(all[from-1:to], "")
}

// TestReadTextFileByLine: the line-based arguments select the same lines as the
// equivalent offset and limit, and say so in 1-based startLine/endLine.
func TestReadTextFileByLine(t *testing.T) {
	text := payment()
	rs, dir := newTestRoot(t, map[string]string{"payment.go": text, "crlf.txt": "one\r\ntwo\r\nthree\r\n", "u16.txt": utf16le("héllo\nwörld\n😀 end\n", true)})
	for _, tt := range []struct {
		name        string
		in          ReadTextFileInput
		start, end  int
		next, total int
	}{
		{"line with context", ReadTextFileInput{Line: 53, Context: 3}, 50, 56, 56, 120},
		{"line alone", ReadTextFileInput{Line: 53}, 53, 53, 53, 120},
		{"range", ReadTextFileInput{StartLine: 10, EndLine: 20}, 10, 20, 20, 120},
		{"range with context", ReadTextFileInput{StartLine: 10, EndLine: 20, Context: 2}, 8, 22, 22, 120},
		{"startLine to the end", ReadTextFileInput{StartLine: 118}, 118, 120, 0, 120},
		{"endLine alone", ReadTextFileInput{EndLine: 3}, 1, 3, 3, 120},
		{"context clamped at the start", ReadTextFileInput{Line: 2, Context: 5}, 1, 7, 7, 120},
		{"context clamped at the end", ReadTextFileInput{Line: 119, Context: 5}, 114, 120, 0, 120},
		{"endLine past the end", ReadTextFileInput{StartLine: 100, EndLine: 500}, 100, 120, 0, 120},
		{"huge context", ReadTextFileInput{Line: 60, Context: maxLineArg}, 1, 120, 0, 120},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Path = "payment.go"
			got, err := rs.ReadTextFile(testCtx(t), in)
			if err != nil {
				t.Fatal(err)
			}
			want := ReadTextFileOutput{Path: filepath.Join(dir, "payment.go"), Content: lines(text, tt.start, tt.end), Encoding: "utf-8", LineEnding: "lf",
				StartLine: tt.start, EndLine: tt.end, LinesReturned: tt.end - tt.start + 1, TotalLines: tt.total, NextOffset: tt.next, Size: int64(len(text))}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}

	// CRLF and UTF-16 files read by line as they read by offset: decoded, LF.
	crlf, err := rs.ReadTextFile(testCtx(t), ReadTextFileInput{Path: "crlf.txt", Line: 2, Context: 1, LineNumbers: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[" + filepath.Join(dir, "crlf.txt") + ": 3 lines; crlf]\n1\tone\n2\ttwo\n3\tthree\n"; crlf.MCPText() != want || crlf.Content != "one\ntwo\nthree\n" {
		t.Errorf("crlf: content %q, text %q; want text %q", crlf.Content, crlf.MCPText(), want)
	}
	u16, err := rs.ReadTextFile(testCtx(t), ReadTextFileInput{Path: "u16.txt", StartLine: 2, EndLine: 3, LineNumbers: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[" + filepath.Join(dir, "u16.txt") + ": lines 2-3 of 3; utf-16le]\n2\twörld\n3\t😀 end\n"; u16.MCPText() != want {
		t.Errorf("utf-16le text %q; want %q", u16.MCPText(), want)
	}
}

func TestReadTextFileByLineErrors(t *testing.T) {
	rs, _ := newTestRoot(t, map[string]string{"three.txt": "1\n2\n3\n", "empty.txt": ""})
	for _, tt := range []struct {
		name string
		in   ReadTextFileInput
		want string
	}{
		{"line past the end", ReadTextFileInput{Path: "three.txt", Line: 4}, "line 4 is past the end of the file, which has 3 lines"},
		{"line past the end with context", ReadTextFileInput{Path: "three.txt", Line: 5, Context: 3}, "line 5 is past the end of the file, which has 3 lines"},
		{"line far past the end", ReadTextFileInput{Path: "three.txt", Line: 50, Context: 3}, "line 50 is past the end of the file, which has 3 lines"},
		{"startLine past the end", ReadTextFileInput{Path: "three.txt", StartLine: 9, EndLine: 10}, "line 9 is past the end"},
		{"empty file", ReadTextFileInput{Path: "empty.txt", Line: 1}, "line 1 is past the end of the file, which has 0 lines"},
		{"line and startLine", ReadTextFileInput{Path: "three.txt", Line: 1, StartLine: 1}, "not both"},
		{"line and offset", ReadTextFileInput{Path: "three.txt", Line: 1, Offset: 1}, "give one kind"},
		{"startLine and tail", ReadTextFileInput{Path: "three.txt", StartLine: 1, Tail: 1}, "give one kind"},
		{"context alone", ReadTextFileInput{Path: "three.txt", Context: 2}, "context goes with line"},
		{"endLine before startLine", ReadTextFileInput{Path: "three.txt", StartLine: 3, EndLine: 2}, "endLine 2 is before startLine 3"},
		{"negative line", ReadTextFileInput{Path: "three.txt", Line: -1}, "1-based"},
		{"negative context", ReadTextFileInput{Path: "three.txt", Line: 1, Context: -1}, "must not be negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rs.ReadTextFile(testCtx(t), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestReadTextFileTextBlock: over MCP the text block is the text itself (numbered on
// request) under a one-line header, and it is the whole result: no structuredContent,
// whose JSON VS Code and Claude Code would show the model instead (mcpkit's output
// policy); head and tail select what they always did.
func TestReadTextFileTextBlock(t *testing.T) {
	text := payment()
	var ten strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %d\n", i)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"payment.go": text, "ten.txt": ten.String(), "empty.txt": "", "lat.txt": "caf\xe9\n", "hidden.txt": "safe\u202etxt\n"})
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, rev := range revisions {
		c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), rev, nil)
		for _, tt := range []struct {
			name string
			args map[string]any
			want string
		}{
			// The stack trace says line 53: lines 50-56 in one call, each with its number.
			{"line 53 context 3 numbered", map[string]any{"path": "payment.go", "line": 53, "context": 3, "lineNumbers": true},
				"[" + p("payment.go") + ": lines 50-56 of 120]\n" +
					"50\t\tcharge(order, 350) // line 50\n51\t\tcharge(order, 357) // line 51\n52\t\tcharge(order, 364) // line 52\n" +
					"53\t\tcharge(order, 371) // line 53\n54\t\tcharge(order, 378) // line 54\n55\t\tcharge(order, 385) // line 55\n" +
					"56\t\tcharge(order, 392) // line 56\n"},
			{"line 53 context 3 unnumbered", map[string]any{"path": "payment.go", "line": 53, "context": 3},
				"[" + p("payment.go") + ": lines 50-56 of 120]\n" + lines(text, 50, 56)},
			{"range", map[string]any{"path": "payment.go", "startLine": 98, "endLine": 102, "lineNumbers": true},
				"[" + p("payment.go") + ": lines 98-102 of 120]\n" +
					" 98\t\tcharge(order, 686) // line 98\n 99\t\tcharge(order, 693) // line 99\n100\t\tcharge(order, 700) // line 100\n" +
					"101\t\tcharge(order, 707) // line 101\n102\t\tcharge(order, 714) // line 102\n"},
			{"one line", map[string]any{"path": "payment.go", "line": 1}, "[" + p("payment.go") + ": line 1 of 120]\npackage checkout // line 1\n"},
			{"whole file: no header", map[string]any{"path": "ten.txt"}, ten.String()},
			{"whole file numbered", map[string]any{"path": "ten.txt", "startLine": 1, "lineNumbers": true},
				" 1\tline 1\n 2\tline 2\n 3\tline 3\n 4\tline 4\n 5\tline 5\n 6\tline 6\n 7\tline 7\n 8\tline 8\n 9\tline 9\n10\tline 10\n"},
			{"head as before", map[string]any{"path": "ten.txt", "head": 2}, "[" + p("ten.txt") + ": lines 1-2 of 10]\nline 1\nline 2\n"},
			{"tail as before", map[string]any{"path": "ten.txt", "tail": 2, "lineNumbers": true}, "[" + p("ten.txt") + ": lines 9-10 of 10]\n 9\tline 9\n10\tline 10\n"},
			{"offset as before", map[string]any{"path": "ten.txt", "offset": 3, "limit": 1}, "[" + p("ten.txt") + ": line 4 of 10]\nline 4\n"},
			{"truncated", map[string]any{"path": "ten.txt", "startLine": 2, "maxBytes": 14},
				"[" + p("ten.txt") + ": lines 2-3 of 10; truncated: the output reached maxBytes=14; call again with startLine=4 to read on]\nline 2\nline 3\n"},
			{"empty", map[string]any{"path": "empty.txt"}, "[" + p("empty.txt") + ": empty file]\n"},
			{"latin-1", map[string]any{"path": "lat.txt"}, "[" + p("lat.txt") + ": 1 line; latin-1; not valid UTF-8 at byte 3; decoded as Latin-1 (ISO-8859-1), and edits keep that encoding]\ncafé\n"},
			{"sanitized", map[string]any{"path": "hidden.txt"}, "[" + p("hidden.txt") + ": 1 line; invisible characters removed]\nsafetxt\n"},
		} {
			res := c.CallTool("read_text_file", tt.args)
			if res.IsError || len(res.Content) != 1 || res.Text() != tt.want {
				t.Errorf("%s %s: isError=%v %d blocks, text:\n%s\nwant:\n%s", rev, tt.name, res.IsError, len(res.Content), res.Text(), tt.want)
			}
			if res.StructuredContent != nil {
				t.Errorf("%s %s: structuredContent %.200s; want the text alone", rev, tt.name, res.StructuredContent)
			}
		}
		// line 0 is a 0-based guess: the schema refuses it before the handler runs.
		if res := c.CallTool("read_text_file", map[string]any{"path": "ten.txt", "line": 0}); !res.IsError || !strings.Contains(res.Text(), "line") {
			t.Errorf("%s line 0: isError=%v %q; want a refusal", rev, res.IsError, res.Text())
		}
	}
}

// TestReadTextFileTextBytes measures what a 60-line read of Go source costs in the
// text block against the raw bytes of those lines (issue #16: at most 1.05 times plus
// a small fixed header), unnumbered and numbered, and against the JSON text block
// that read_text_file returned before.
func TestReadTextFileTextBytes(t *testing.T) {
	src, err := os.ReadFile("readtail.go") // real Go source, 180-odd lines
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src.go": string(src)})
	c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), mcpkit.Revision20260728, nil)
	raw := lines(string(src), 61, 120)
	header := "[" + filepath.Join(dir, "src.go") + fmt.Sprintf(": lines 61-120 of %d]\n", strings.Count(string(src), "\n"))

	plain := c.CallTool("read_text_file", map[string]any{"path": "src.go", "startLine": 61, "endLine": 120}).Text()
	if plain != header+raw {
		t.Fatalf("text block is not the header and the raw lines:\n%s", plain)
	}
	if ratio := float64(len(plain)-len(header)) / float64(len(raw)); ratio > 1.05 || len(header) > len(dir)+40 {
		t.Errorf("text block %d bytes for %d raw bytes: %.3f plus a %d-byte header; want at most 1.05 plus a small header", len(plain), len(raw), ratio, len(header))
	}

	res := c.CallTool("read_text_file", map[string]any{"path": "src.go", "startLine": 61, "endLine": 120, "lineNumbers": true})
	numbered := res.Text()
	if !strings.HasPrefix(numbered, header) {
		t.Fatalf("numbered text block has another header:\n%.200s", numbered)
	}
	// Each line costs its number (3 digits here) and a tab over the raw bytes.
	if extra := len(numbered) - len(header) - len(raw); extra != 60*4 {
		t.Errorf("numbering added %d bytes to 60 lines; want 4 a line (3 digits and a tab)", extra)
	}
	rs, _ := newTestRoot(t, map[string]string{"src.go": string(src)})
	out, err := rs.ReadTextFile(testCtx(t), ReadTextFileInput{Path: "src.go", StartLine: 61, EndLine: 120})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := mcpkit.JSONText(out) // what read_text_file's text block was before, and what VS Code and Claude Code showed while structuredContent went along
	t.Logf("60 lines of Go, %d raw bytes: text block %d bytes unnumbered (%.3f× + %d-byte header), %d numbered (%.3f× + header); JSON text block before: %d bytes (%.3f×)",
		len(raw), len(plain), float64(len(plain)-len(header))/float64(len(raw)), len(header),
		len(numbered), float64(len(numbered)-len(header))/float64(len(raw)), len(before), float64(len(before))/float64(len(raw)))
}
