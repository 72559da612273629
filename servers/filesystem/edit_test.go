package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEditFileKeepsEncodingAndLineEndings checks the exact bytes on disk after an edit
// for every encoding and line-break style the editor preserves.
func TestEditFileKeepsEncodingAndLineEndings(t *testing.T) {
	tests := []struct {
		name     string
		before   string
		edits    []Edit
		after    string
		encoding string
		ending   string
	}{
		{"utf-8 lf", "a\nb\nc\n", []Edit{{"b\n", "B\nB2\n"}}, "a\nB\nB2\nc\n", "utf-8", "lf"},
		{"crlf with lf edit", "one\r\ntwo\r\nthree\r\n", []Edit{{"two\nthree", "2\nmore\n3"}}, "one\r\n2\r\nmore\r\n3\r\n", "utf-8", "crlf"},
		{"crlf with crlf edit", "one\r\ntwo\r\n", []Edit{{"one\r\ntwo", "x\r\ny"}}, "x\r\ny\r\n", "utf-8", "crlf"},
		{"mixed tries crlf", "lf\nwin\r\ndows\r\n", []Edit{{"win\ndows", "W\nD"}}, "lf\nW\r\nD\r\n", "utf-8", "mixed"},
		{"utf-8 bom", "\xEF\xBB\xBFhello world\n", []Edit{{"world", "wörld"}}, "\xEF\xBB\xBFhello wörld\n", "utf-8-bom", "lf"},
		{"utf-16le bom crlf", utf16le("x = 1\r\ny = 2\r\n", true), []Edit{{"y = 2\n", "y = 😀\n"}}, utf16le("x = 1\r\ny = 😀\r\n", true), "utf-16le", "crlf"},
		{"utf-16be bom", utf16be("alpha\nbeta\n"), []Edit{{"beta", "βeta"}}, utf16be("alpha\nβeta\n"), "utf-16be", "lf"},
		{"latin-1", "caf\xe9 cr\xe8me\n", []Edit{{"crème", "brûlée"}}, "caf\xe9 br\xfbl\xe9e\n", "latin-1", "lf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, dir := newTestRoot(t, map[string]string{"f.txt": tt.before})
			path := filepath.Join(dir, "f.txt")
			if err := os.Chmod(path, 0o640); err != nil {
				t.Fatal(err)
			}
			out, err := rs.EditFile(testCtx(t), EditFileInput{Path: "f.txt", Edits: tt.edits})
			if err != nil {
				t.Fatalf("EditFile: %v", err)
			}
			if got := readFile(t, path); got != tt.after {
				t.Errorf("bytes on disk = %q; want %q", got, tt.after)
			}
			if diff := cmp.Diff([]any{tt.encoding, tt.ending, 1, false}, []any{out.Encoding, out.LineEnding, out.Replacements, out.DryRun}); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != 0o640 {
				t.Errorf("permissions = %v; want 0640 kept", st.Mode().Perm())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory has %d entries after the edit; a temporary file was left behind", len(entries))
			}
		})
	}
}

func TestEditFileDryRunDiff(t *testing.T) {
	before := "package main\r\n\r\nfunc main() {\r\n\tprintln(\"hi\")\r\n}\r\n"
	rs, dir := newTestRoot(t, map[string]string{"main.go": before})
	path := filepath.Join(dir, "main.go")
	out, err := rs.EditFile(testCtx(t), EditFileInput{Path: "main.go", DryRun: true, Edits: []Edit{{"\tprintln(\"hi\")\n", "\tprintln(\"hello\")\n\tprintln(\"world\")\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "--- " + path + "\n+++ " + path + "\n@@ -1,5 +1,6 @@\n package main\n \n func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n+\tprintln(\"world\")\n }\n"
	if diff := cmp.Diff(want, out.Diff); diff != "" {
		t.Errorf("dry-run diff (-want +got):\n%s", diff)
	}
	if !out.DryRun || out.Replacements != 1 {
		t.Errorf("dryRun=%v replacements=%d; want true, 1", out.DryRun, out.Replacements)
	}
	if got := readFile(t, path); got != before {
		t.Errorf("dry run changed the file to %q", got)
	}
}

func TestEditFileErrors(t *testing.T) {
	files := map[string]string{
		"dup.txt":    "x = 1\ny = 2\nx = 1\n",
		"f.txt":      "alpha beta\ngamma\n",
		"latin1.txt": "caf\xe9\n",
		"bin.dat":    "\x00\x01binary",
	}
	tests := []struct {
		name string
		in   EditFileInput
		want string
	}{
		{"ambiguous", EditFileInput{Path: "dup.txt", Edits: []Edit{{"x = 1", "x = 3"}}}, "edit 1: oldText occurs 2 times (at lines 1, 3); include more surrounding lines"},
		{"not found", EditFileInput{Path: "f.txt", Edits: []Edit{{"delta", "x"}}}, "edit 1: oldText was not found"},
		{"first line found hint", EditFileInput{Path: "f.txt", Edits: []Edit{{"gamma\nzeta", "x"}}}, "its first line appears at line 2"},
		{"second edit fails", EditFileInput{Path: "f.txt", Edits: []Edit{{"alpha", "A"}, {"nope", "x"}}}, "edit 2: oldText was not found"},
		{"empty old", EditFileInput{Path: "f.txt", Edits: []Edit{{"", "x"}}}, "oldText is empty"},
		{"no edits", EditFileInput{Path: "f.txt"}, "edits is empty"},
		{"latin-1 cannot hold", EditFileInput{Path: "latin1.txt", Edits: []Edit{{"café", "caf€"}}}, "cannot represent"},
		{"binary", EditFileInput{Path: "bin.dat", Edits: []Edit{{"binary", "x"}}}, "binary"},
		{"missing", EditFileInput{Path: "nope.txt", Edits: []Edit{{"a", "b"}}}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, dir := newTestRoot(t, files)
			_, err := rs.EditFile(testCtx(t), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v; want it to contain %q", err, tt.want)
			}
			for name, content := range files { // all or nothing
				if got := readFile(t, filepath.Join(dir, name)); got != content {
					t.Errorf("%s changed to %q after a failed edit", name, got)
				}
			}
		})
	}
}

func TestEditFileReplaceAll(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"dup.txt": "x = 1\ny = 2\nx = 1\n"})
	out, err := rs.EditFile(testCtx(t), EditFileInput{Path: "dup.txt", ReplaceAll: true, Edits: []Edit{{"x = 1", "x = 3"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "dup.txt")); got != "x = 3\ny = 2\nx = 3\n" || out.Replacements != 2 {
		t.Errorf("content %q, replacements %d; want both replaced", got, out.Replacements)
	}
}
