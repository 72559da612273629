package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// textOfSize makes numbered 64-byte lines adding up to n bytes.
func textOfSize(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %07d %s\n", i, strings.Repeat("z", 50))
	}
	return b.String()[:n]
}

// serveFile answers the contents API for path like GitHub: JSON with base64 content
// up to 1 MB, JSON with encoding "none" and empty content above that, and the raw
// bytes when the raw media type is asked for.
func serveFile(f *fakeGitHub, path, content string) {
	f.override("GET /api/v3/repos/octo/hello/contents/"+path, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "raw") {
			serveWithETag(w, r, "application/octet-stream", []byte(content))
			return
		}
		enc, body := "base64", base64.StdEncoding.EncodeToString([]byte(content))
		if len(content) > 1<<20 {
			enc, body = "none", ""
		}
		writeJSON(w, 200, map[string]any{"type": "file", "encoding": enc, "size": len(content), "name": path, "path": path,
			"content": body, "sha": "5f2f16bfff90e6620509c0cf442e7a3586dad8fb"})
	})
}

func TestOneMegabyteFileIsBoundedAndMarked(t *testing.T) {
	for _, size := range []int{1 << 20, 3 << 20} { // inline base64, then raw download
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			f := newFake(t)
			content := textOfSize(size)
			serveFile(f, "big.txt", content)
			b := f.backend(BackendConfig{})
			ctx := context.Background()
			got, err := b.GetFileContents(ctx, FileContentsInput{Owner: "octo", Repo: "hello", Path: "big.txt"})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") // 64-byte lines end exactly at size
			fit := MaxFileBytes / 64                                             // whole 64-byte lines that fit the cap
			want := FileContents{Type: "file", Path: "big.txt", SHA: "5f2f16bfff90e6620509c0cf442e7a3586dad8fb", Size: size,
				StartLine: 1, EndLine: fit, TotalLines: len(lines), Content: strings.Join(lines[:fit], ""),
				Truncation: mcpkit.Truncation{Truncated: true, Hint: fmt.Sprintf("content was cut at %d bytes after line %d of %d: call again with startLine=%d", MaxFileBytes, fit, len(lines), fit+1)}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			// Following the hint continues exactly where the first window ended.
			next, err := b.GetFileContents(ctx, FileContentsInput{Owner: "octo", Repo: "hello", Path: "big.txt", StartLine: fit + 1, EndLine: fit + 2})
			if err != nil {
				t.Fatal(err)
			}
			if next.Content != lines[fit]+lines[fit+1] || next.Truncated {
				t.Errorf("next window = %q (truncated %v); want lines %d-%d", next.Content, next.Truncated, fit+1, fit+2)
			}
			raw := 0
			for _, r := range f.requests() {
				if strings.Contains(r.Accept, "raw") {
					raw++
				}
			}
			if wantRaw := map[bool]int{true: 2, false: 0}[size > 1<<20]; raw != wantRaw {
				t.Errorf("%d raw downloads; want %d", raw, wantRaw)
			}
		})
	}
}

func TestFileContentEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    FileContents
	}{
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", FileContents{Binary: true,
			Truncation: mcpkit.Truncation{Truncated: true, Hint: "binary file: content is not shown"}}},
		{"one long line", strings.Repeat("m", 200000), FileContents{StartLine: 1, EndLine: 1, TotalLines: 1, Content: strings.Repeat("m", MaxFileBytes),
			Truncation: mcpkit.Truncation{Truncated: true, Hint: fmt.Sprintf("line 1 is longer than %d bytes and was cut; the file is not line-oriented text", MaxFileBytes)}}},
		{"hidden characters", "ok\u200b \u202egnp.exe\nno newline", FileContents{StartLine: 1, EndLine: 2, TotalLines: 2, Content: "ok gnp.exe\nno newline"}},
		{"empty", "", FileContents{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			serveFile(f, "f.bin", tt.content)
			b := f.backend(BackendConfig{})
			got, err := b.GetFileContents(context.Background(), FileContentsInput{Owner: "octo", Repo: "hello", Path: "f.bin"})
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Type, tt.want.Path, tt.want.SHA, tt.want.Size = "file", "f.bin", "5f2f16bfff90e6620509c0cf442e7a3586dad8fb", len(tt.content)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestReadLines(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		start, end int
		max        int
		want       lineWindow
	}{
		{"all", "a\nb\nc\n", 0, 0, 100, lineWindow{Content: "a\nb\nc\n", First: 1, Last: 3, Total: 3}},
		{"no final newline", "a\nb", 0, 0, 100, lineWindow{Content: "a\nb", First: 1, Last: 2, Total: 2}},
		{"middle", "a\nb\nc\n", 2, 2, 100, lineWindow{Content: "b\n", First: 2, Last: 2, Total: 3}},
		{"past the end", "a\n", 5, 0, 100, lineWindow{Total: 1}},
		{"byte cap between lines", "aaa\nbbb\nccc\n", 0, 0, 9, lineWindow{Content: "aaa\nbbb\n", First: 1, Last: 2, Total: 3, CutByBytes: true}},
		{"byte cap inside first line", "aaaaaaaa\nb\n", 0, 0, 4, lineWindow{Content: "aaaa", First: 1, Last: 1, Total: 2, CutByBytes: true, LongLine: true}},
		{"cap keeps UTF-8 whole", "ééé\n", 0, 0, 5, lineWindow{Content: "éé", First: 1, Last: 1, Total: 1, CutByBytes: true, LongLine: true}},
		{"line longer than the read buffer", strings.Repeat("q", 200<<10) + "\nend\n", 2, 0, 100, lineWindow{Content: "end\n", First: 2, Last: 2, Total: 2}},
		{"NUL means binary", "a\x00b", 0, 0, 100, lineWindow{Binary: true}},
	}
	for _, tt := range tests {
		got, err := readLines(strings.NewReader(tt.in), tt.start, tt.end, tt.max)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestCappedReader(t *testing.T) {
	for _, tt := range []struct {
		in    string
		limit int64
		read  string
		hit   bool
	}{
		{"abcdef", 3, "abc", true},
		{"abc", 3, "abc", false},
		{"ab", 3, "ab", false},
	} {
		c := newCappedReader(strings.NewReader(tt.in), tt.limit)
		var sb strings.Builder
		buf := make([]byte, 2)
		for {
			n, err := c.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if sb.String() != tt.read || c.Hit != tt.hit {
			t.Errorf("cappedReader(%q, %d) read %q hit=%v; want %q hit=%v", tt.in, tt.limit, sb.String(), c.Hit, tt.read, tt.hit)
		}
	}
}
