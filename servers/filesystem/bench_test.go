package filesystem

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// generateTree writes n small Go-like files as 100 top directories x 10 subdirectories
// x n/1000 files. Every file contains "func"; every 1000th also contains "needle".
func generateTree(b *testing.B, dir string, n int) {
	b.Helper()
	per := n / 1000
	i := 0
	var buf bytes.Buffer
	for top := 0; top < 100; top++ {
		for sub := 0; sub < 10; sub++ {
			d := filepath.Join(dir, "d"+strconv.Itoa(top), "s"+strconv.Itoa(sub))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := 0; f < per; f++ {
				buf.Reset()
				fmt.Fprintf(&buf, "package p\n\n// file %d\nfunc F%d() int {\n\treturn %d\n}\n", i, i, i)
				if i%1000 == 999 {
					buf.WriteString("// needle\n")
				}
				if err := os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(f)+".go"), buf.Bytes(), 0o644); err != nil {
					b.Fatal(err)
				}
				i++
			}
		}
	}
}

// BenchmarkTree100k generates 100,000 files once and measures capped walks over them:
// the walks must stop at their caps (files visited is reported per operation).
func BenchmarkTree100k(b *testing.B) {
	dir := b.TempDir()
	generateTree(b, dir, 100_000)
	rs := openTestRoots(b, dir)
	ctx := testCtx(b)
	for _, cap := range []int{1000, MaxTreeEntries} {
		b.Run(fmt.Sprintf("DirectoryTree/maxEntries=%d", cap), func(b *testing.B) {
			b.ReportAllocs()
			visited := 0
			for b.Loop() {
				out, err := rs.DirectoryTree(ctx, DirectoryTreeInput{MaxDepth: 10, MaxEntries: cap})
				if err != nil || !out.Truncated {
					b.Fatalf("tree: truncated=%v err=%v", out.Truncated, err)
				}
				visited = out.Visited
			}
			b.ReportMetric(float64(visited), "visited/op")
		})
	}
	for _, tc := range []struct {
		name, pattern string
		max           int
	}{
		{"common/maxResults=100", "func F", 100},
		{"rare/maxResults=20", "needle", 20},
		{"absent", "no such text anywhere", 100},
	} {
		b.Run("SearchFileContents/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var out SearchFileContentsOutput
			for b.Loop() {
				var err error
				out, err = rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: tc.pattern, MaxResults: tc.max})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.FilesSearched), "files/op")
			b.ReportMetric(float64(out.Visited), "visited/op")
			b.ReportMetric(float64(len(out.Matches)), "matches/op")
		})
	}
	b.Run("SearchFiles/maxResults=200", func(b *testing.B) {
		b.ReportAllocs()
		var out SearchFilesOutput
		for b.Loop() {
			out, _ = rs.SearchFiles(ctx, SearchFilesInput{Pattern: "f9*.go"})
		}
		b.ReportMetric(float64(out.Visited), "visited/op")
	})
}

// BenchmarkReadTextFile1GiB writes a 1 GiB text file (16 Mi lines of 64 bytes) once and
// reads its tail, an offset near its end and its head. Bytes allocated per operation
// (B/op) show memory stays bounded whatever the file size.
func BenchmarkReadTextFile1GiB(b *testing.B) {
	const size = 1 << 30
	const lineLen = 64
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.txt"))
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 0, 4<<20)
	line := 0
	for written := 0; written < size; written += len(chunk) {
		chunk = chunk[:0]
		for len(chunk) < cap(chunk) {
			chunk = fmt.Appendf(chunk, "%-*d\n", lineLen-1, line)
			line++
		}
		if _, err := f.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	f.Close()
	rs := openTestRoots(b, dir)
	ctx := testCtx(b)
	lines := line
	cases := []struct {
		name string
		in   ReadTextFileInput
		want string
	}{
		{"tail=10", ReadTextFileInput{Path: "huge.txt", Tail: 10}, strconv.Itoa(lines - 10)},
		{"offset=end-10", ReadTextFileInput{Path: "huge.txt", Offset: lines - 10, Limit: 10}, strconv.Itoa(lines - 10)},
		{"head=10", ReadTextFileInput{Path: "huge.txt", Head: 10}, "0"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(0)
			for b.Loop() {
				out, err := rs.ReadTextFile(ctx, tc.in)
				if err != nil {
					b.Fatal(err)
				}
				if out.LinesReturned != 10 || !bytes.HasPrefix([]byte(out.Content), []byte(tc.want+" ")) {
					b.Fatalf("%s: %d lines starting %.20q; want 10 starting %q", tc.name, out.LinesReturned, out.Content, tc.want)
				}
			}
		})
	}
}
