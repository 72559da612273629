package filesystem

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

func utf16le(s string, bom bool) string {
	b, _ := encodeText(s, encUTF16LE)
	if !bom {
		b = b[2:]
	}
	return string(b)
}

func utf16be(s string) string {
	b, _ := encodeText(s, encUTF16BE)
	return string(b)
}

func TestReadTextFile(t *testing.T) {
	numbered := func(n int) string {
		var sb strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
		return sb.String()
	}
	files := map[string]string{
		"ten.txt":        numbered(10),
		"nonl.txt":       "a\nb\nc",
		"crlf.txt":       "one\r\ntwo\r\nthree\r\n",
		"bom.txt":        "\xEF\xBB\xBFhello\nworld\n",
		"u16le.txt":      utf16le("héllo\nwörld\n😀 end\n", true),
		"u16be.txt":      utf16be("alpha\nbeta\ngamma"),
		"latin1.txt":     "caf\xe9\nna\xefve\n",
		"multibyte.txt":  "日本語のテキスト\nßeta ünïcödé\n😀😀😀😀\n",
		"empty.txt":      "",
		"hidden.txt":     "safe\u202etxt.exe\n",
		"long-line.txt":  strings.Repeat("é", 100) + "\nshort\n",
		"blank-tail.txt": "a\n\n",
	}
	rs, dir := newTestRoot(t, files)
	p := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		name string
		in   ReadTextFileInput
		want ReadTextFileOutput
	}{
		{"whole", ReadTextFileInput{Path: "ten.txt"}, ReadTextFileOutput{Content: numbered(10), StartLine: 1, EndLine: 10, LinesReturned: 10, TotalLines: 10}},
		{"offset limit", ReadTextFileInput{Path: "ten.txt", Offset: 3, Limit: 2}, ReadTextFileOutput{Content: "line 4\nline 5\n", StartLine: 4, EndLine: 5, LinesReturned: 2, TotalLines: 10, NextOffset: 5}},
		{"offset to end", ReadTextFileInput{Path: "ten.txt", Offset: 8}, ReadTextFileOutput{Content: "line 9\nline 10\n", StartLine: 9, EndLine: 10, LinesReturned: 2, TotalLines: 10}},
		{"offset at end", ReadTextFileInput{Path: "ten.txt", Offset: 10}, ReadTextFileOutput{Content: "", TotalLines: 10}},
		{"head", ReadTextFileInput{Path: "ten.txt", Head: 2}, ReadTextFileOutput{Content: "line 1\nline 2\n", StartLine: 1, EndLine: 2, LinesReturned: 2, TotalLines: 10, NextOffset: 2}},
		{"tail", ReadTextFileInput{Path: "ten.txt", Tail: 3}, ReadTextFileOutput{Content: "line 8\nline 9\nline 10\n", StartLine: 8, EndLine: 10, LinesReturned: 3, TotalLines: 10}},
		{"tail more than file", ReadTextFileInput{Path: "ten.txt", Tail: 50}, ReadTextFileOutput{Content: numbered(10), StartLine: 1, EndLine: 10, LinesReturned: 10, TotalLines: 10}},
		{"no final newline", ReadTextFileInput{Path: "nonl.txt"}, ReadTextFileOutput{Content: "a\nb\nc", StartLine: 1, EndLine: 3, LinesReturned: 3, TotalLines: 3}},
		{"no final newline tail", ReadTextFileInput{Path: "nonl.txt", Tail: 1}, ReadTextFileOutput{Content: "c", StartLine: 3, EndLine: 3, LinesReturned: 1, TotalLines: 3}},
		{"no final newline offset", ReadTextFileInput{Path: "nonl.txt", Offset: 2}, ReadTextFileOutput{Content: "c", StartLine: 3, EndLine: 3, LinesReturned: 1, TotalLines: 3}},
		{"blank last line tail", ReadTextFileInput{Path: "blank-tail.txt", Tail: 1}, ReadTextFileOutput{Content: "\n", StartLine: 2, EndLine: 2, LinesReturned: 1, TotalLines: 2}},
		{"crlf shown as lf", ReadTextFileInput{Path: "crlf.txt"}, ReadTextFileOutput{Content: "one\ntwo\nthree\n", LineEnding: "crlf", StartLine: 1, EndLine: 3, LinesReturned: 3, TotalLines: 3}},
		{"crlf tail", ReadTextFileInput{Path: "crlf.txt", Tail: 2}, ReadTextFileOutput{Content: "two\nthree\n", LineEnding: "crlf", StartLine: 2, EndLine: 3, LinesReturned: 2, TotalLines: 3}},
		{"utf-8 bom", ReadTextFileInput{Path: "bom.txt"}, ReadTextFileOutput{Content: "hello\nworld\n", Encoding: "utf-8-bom", StartLine: 1, EndLine: 2, LinesReturned: 2, TotalLines: 2}},
		{"utf-16le", ReadTextFileInput{Path: "u16le.txt"}, ReadTextFileOutput{Content: "héllo\nwörld\n😀 end\n", Encoding: "utf-16le", StartLine: 1, EndLine: 3, LinesReturned: 3, TotalLines: 3}},
		{"utf-16le tail", ReadTextFileInput{Path: "u16le.txt", Tail: 1}, ReadTextFileOutput{Content: "😀 end\n", Encoding: "utf-16le", StartLine: 3, EndLine: 3, LinesReturned: 1, TotalLines: 3}},
		{"utf-16le offset", ReadTextFileInput{Path: "u16le.txt", Offset: 1, Limit: 1}, ReadTextFileOutput{Content: "wörld\n", Encoding: "utf-16le", StartLine: 2, EndLine: 2, LinesReturned: 1, TotalLines: 3, NextOffset: 2}},
		{"utf-16be", ReadTextFileInput{Path: "u16be.txt", Tail: 2}, ReadTextFileOutput{Content: "beta\ngamma", Encoding: "utf-16be", LineEnding: "lf", StartLine: 2, EndLine: 3, LinesReturned: 2, TotalLines: 3}},
		{"latin-1", ReadTextFileInput{Path: "latin1.txt"}, ReadTextFileOutput{Content: "café\nnaïve\n", Encoding: "latin-1", StartLine: 1, EndLine: 2, LinesReturned: 2, TotalLines: 2, Note: "not valid UTF-8 at byte 3; decoded as Latin-1 (ISO-8859-1), and edits keep that encoding"}},
		{"multibyte offset", ReadTextFileInput{Path: "multibyte.txt", Offset: 1, Limit: 1}, ReadTextFileOutput{Content: "ßeta ünïcödé\n", StartLine: 2, EndLine: 2, LinesReturned: 1, TotalLines: 3, NextOffset: 2}},
		{"multibyte tail", ReadTextFileInput{Path: "multibyte.txt", Tail: 1}, ReadTextFileOutput{Content: "😀😀😀😀\n", StartLine: 3, EndLine: 3, LinesReturned: 1, TotalLines: 3}},
		{"empty", ReadTextFileInput{Path: "empty.txt"}, ReadTextFileOutput{LineEnding: "none"}},
		{"empty tail", ReadTextFileInput{Path: "empty.txt", Tail: 5}, ReadTextFileOutput{LineEnding: "none"}},
		{"sanitized", ReadTextFileInput{Path: "hidden.txt"}, ReadTextFileOutput{Content: "safetxt.exe\n", Sanitized: true, StartLine: 1, EndLine: 1, LinesReturned: 1, TotalLines: 1}},
		// maxBytes cuts: never inside a character.
		{"maxBytes stops at a line", ReadTextFileInput{Path: "ten.txt", MaxBytes: 16}, ReadTextFileOutput{Content: "line 1\nline 2\n", StartLine: 1, EndLine: 2, LinesReturned: 2, TotalLines: 10, NextOffset: 2,
			Truncation: mcpkit.Truncation{Truncated: true, Hint: "the output reached maxBytes=16; call again with offset=2 to read on"}}},
		{"maxBytes cuts a long first line on a rune boundary", ReadTextFileInput{Path: "long-line.txt", MaxBytes: 7}, ReadTextFileOutput{Content: "ééé", StartLine: 1, EndLine: 1, LinesReturned: 1, TotalLines: 2, NextOffset: 1,
			Truncation: mcpkit.Truncation{Truncated: true, Hint: "line 1 is longer than maxBytes=7: only its first 6 bytes are shown; raise maxBytes (at most 4194304) or use search_file_contents to find text in it"}}},
		{"tail maxBytes keeps whole lines", ReadTextFileInput{Path: "ten.txt", Tail: 5, MaxBytes: 16}, ReadTextFileOutput{Content: "line 9\nline 10\n", StartLine: 9, EndLine: 10, LinesReturned: 2, TotalLines: 10,
			Truncation: mcpkit.Truncation{Truncated: true, Hint: "only the last 2 lines fit in maxBytes=16; raise maxBytes (at most 4194304) or read earlier lines with offset and limit"}}},
		{"tail of a long line cuts on a rune boundary", ReadTextFileInput{Path: "multibyte.txt", Tail: 1, MaxBytes: 7}, ReadTextFileOutput{Content: "😀\n", StartLine: 3, EndLine: 3, LinesReturned: 1, TotalLines: 3,
			Truncation: mcpkit.Truncation{Truncated: true, Hint: "the last line is longer than maxBytes=7: only its final 5 bytes are shown; raise maxBytes (at most 4194304)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rs.ReadTextFile(testCtx(t), tt.in)
			if err != nil {
				t.Fatalf("ReadTextFile(%+v): %v", tt.in, err)
			}
			want := tt.want
			want.Path = p(tt.in.Path)
			want.Size = int64(len(files[tt.in.Path]))
			if want.Encoding == "" {
				want.Encoding = "utf-8"
			}
			if want.LineEnding == "" {
				want.LineEnding = "lf"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ReadTextFile(%+v) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if !utf8.ValidString(got.Content) {
				t.Errorf("content is not valid UTF-8: %q", got.Content)
			}
			max := tt.in.MaxBytes
			if max == 0 {
				max = DefaultReadBytes
			}
			if len(got.Content) > max {
				t.Errorf("content is %d bytes, over maxBytes %d", len(got.Content), max)
			}
		})
	}
}

// TestReadTextFileRuneBoundaries cuts a file of multi-byte characters at every maxBytes
// from 1 to 40 with each read mode: the output must always be valid UTF-8, within the
// cap, and a prefix (head/offset) or suffix (tail) of the file's text.
func TestReadTextFileRuneBoundaries(t *testing.T) {
	text := "aé日😀\nβγ😀😀δ\nend日本\n"
	rs, _ := newTestRoot(t, map[string]string{"m.txt": text})
	for max := 1; max <= 40; max++ {
		for _, mode := range []string{"head", "tail", "offset"} {
			in := ReadTextFileInput{Path: "m.txt", MaxBytes: max}
			want := text
			switch mode {
			case "tail":
				in.Tail = 3
			case "offset":
				in.Offset = 1
				want = text[strings.Index(text, "\n")+1:]
			}
			got, err := rs.ReadTextFile(testCtx(t), in)
			if err != nil {
				t.Fatalf("%s maxBytes=%d: %v", mode, max, err)
			}
			c := got.Content
			if !utf8.ValidString(c) || len(c) > max {
				t.Fatalf("%s maxBytes=%d: content %q invalid or over the cap", mode, max, c)
			}
			ok := strings.HasPrefix(want, c)
			if mode == "tail" {
				ok = strings.HasSuffix(want, c)
			}
			if !ok {
				t.Fatalf("%s maxBytes=%d: %q is not a %s of the text", mode, max, c, map[bool]string{true: "suffix", false: "prefix"}[mode == "tail"])
			}
			if len(c) < len(want) && !got.Truncated {
				t.Fatalf("%s maxBytes=%d: %q cut but not marked truncated", mode, max, c)
			}
		}
	}
}

func TestReadTextFileErrors(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{
		"bin.dat":  "PK\x03\x04\x00\x00binary",
		"ctrl.dat": strings.Repeat("\x01\x02\x03\x80\x81", 100),
		"ten.txt":  "1\n2\n3\n",
		"sub/":     "",
	})
	tests := []struct {
		name string
		in   ReadTextFileInput
		want string
	}{
		{"binary", ReadTextFileInput{Path: "bin.dat"}, "looks like binary data"},
		{"control bytes", ReadTextFileInput{Path: "ctrl.dat"}, "not valid UTF-8 at byte 3 and looks like binary"},
		{"directory", ReadTextFileInput{Path: "sub"}, "is a directory"},
		{"missing", ReadTextFileInput{Path: "nope.txt"}, "no such file or directory"},
		{"offset past end", ReadTextFileInput{Path: "ten.txt", Offset: 5}, "offset 5 is past the end of the file, which has 3 lines"},
		{"negative", ReadTextFileInput{Path: "ten.txt", Offset: -1}, "must not be negative"},
		{"head and tail", ReadTextFileInput{Path: "ten.txt", Head: 1, Tail: 1}, "either head or tail"},
		{"tail and offset", ReadTextFileInput{Path: "ten.txt", Tail: 1, Offset: 1}, "tail cannot be combined"},
		{"head and limit", ReadTextFileInput{Path: "ten.txt", Head: 1, Limit: 1}, "head N is the same"},
		{"maxBytes too big", ReadTextFileInput{Path: "ten.txt", MaxBytes: MaxReadBytes + 1}, "over the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rs.ReadTextFile(testCtx(t), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
	_ = dir
}

// TestReadTextFileLargeStreams reads the tail, an offset near the end and the head of
// a file far larger than any buffer and checks exact line numbers.
func TestReadTextFileLargeStreams(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	const lines = 200000
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&buf, "row %06d ünï\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := openTestRoots(t, dir)
	ctx := testCtx(t)
	tail, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "big.txt", Tail: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"row 199999 ünï\nrow 200000 ünï\n", 199999, lines}, []any{tail.Content, tail.StartLine, tail.TotalLines}); diff != "" {
		t.Errorf("tail (-want +got):\n%s", diff)
	}
	off, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "big.txt", Offset: lines - 3, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"row 199998 ünï\nrow 199999 ünï\n", 199998, lines, lines - 1}, []any{off.Content, off.StartLine, off.TotalLines, off.NextOffset}); diff != "" {
		t.Errorf("offset near end (-want +got):\n%s", diff)
	}
	head, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !head.Truncated || head.NextOffset != head.LinesReturned || len(head.Content) > DefaultReadBytes || head.TotalLines != lines {
		t.Errorf("default read of a big file: truncated=%v nextOffset=%d lines=%d bytes=%d total=%d", head.Truncated, head.NextOffset, head.LinesReturned, len(head.Content), head.TotalLines)
	}
}

// The whole-small-file shortcut must answer exactly what the general line-by-line path
// answers for the same file.
func TestWholeSmallFileMatchesReadForward(t *testing.T) {
	for _, text := range []string{
		"", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "line 1\n\nline 3\n", "no newline at all",
		"ünïcödé\nçä\n", "tab\tseparated\n", strings.Repeat("x", 200) + "\n" + strings.Repeat("y\n", 50),
	} {
		sample := []byte(text)
		var fast, general ReadTextFileOutput
		got := wholeSmallFile(sample, encUTF8, DefaultReadBytes, &fast)
		if got == nil {
			t.Fatalf("%q: shortcut not taken", text)
		}
		want, err := readForward(context.Background(), bytes.NewReader(sample), encUTF8, int64(len(sample)), 0, 0, DefaultReadBytes, false, &general)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%q: content %q, general path %q", text, got, want)
		}
		if diff := cmp.Diff(general, fast); diff != "" {
			t.Errorf("%q: output differs from the general path (-general +shortcut):\n%s", text, diff)
		}
	}
	for _, text := range []string{"crlf\r\n", "a\rb"} {
		var out ReadTextFileOutput
		if wholeSmallFile([]byte(text), encUTF8, DefaultReadBytes, &out) != nil {
			t.Errorf("%q: shortcut taken for text with CR, which must be normalised", text)
		}
	}
	var out ReadTextFileOutput
	if wholeSmallFile([]byte("abcdef\n"), encUTF8, 3, &out) != nil {
		t.Error("shortcut taken for a file over maxBytes")
	}
	if wholeSmallFile([]byte("abc\n"), encLatin1, DefaultReadBytes, &out) != nil {
		t.Error("shortcut taken for Latin-1 text, which must be decoded")
	}
}
