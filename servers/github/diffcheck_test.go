package github

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPullRequestDiffCutShortIsAnError: a diff served in part with a matching
// Content-Length (a proxy serving the first 60 % of it, on a line boundary) is an
// error saying the answer was cut, every time it is asked for; never a result.
func TestPullRequestDiffCutShortIsAnError(t *testing.T) {
	whole := bigDiff(10000)
	cut := whole[:strings.LastIndex(whole[:len(whole)*6/10], "\n")+1]
	interrupted := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n x\n+y\n" +
		"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-a\n+b\n"
	complete := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n x\n+y\n y\n-z\n+w\n" +
		"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n" +
		"diff --git a/c.png b/c.png\nBinary files a/c.png and b/c.png differ\n@@ -0,0 +1,2 @@\n+1\n+2\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"60 % of a 10,000-line diff", cut, "the answer ends after line 6"},
		{"a hunk interrupted by the next file", interrupted, `line 7 ("diff --git a/b.txt b/b.txt") interrupts it`},
		{"a whole diff", complete, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.handle("GET /api/v3/repos/octo/big/pulls/{n}", func(w http.ResponseWriter, r *http.Request) {
				serveWithETag(w, r, "text/plain", []byte(tc.body))
			})
			// The default cache checks the whole answer; past a small cache's largest
			// entry, the diff is checked as it streams.
			for _, b := range []*Backend{f.backend(BackendConfig{}), f.backend(BackendConfig{Cache: NewHTTPCache(16 << 10)})} {
				got, err := b.GetPullRequestDiff(context.Background(), PullRequestDiffInput{Owner: "octo", Repo: "big", Number: 9})
				if tc.want == "" {
					if err != nil || got.Diff != tc.body {
						t.Fatalf("whole diff: %v, %q", err, got.Diff)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "sent a diff cut short") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %d lines and error %v; want an error saying the diff was cut short (%q)", got.EndLine, err, tc.want)
				}
			}
		})
	}
}

// TestDiffCheckReaderMatchesDiffCut: the streaming check and the in-memory one agree,
// whatever the read sizes.
func TestDiffCheckReaderMatchesDiffCut(t *testing.T) {
	whole := bigDiff(300)
	for _, body := range []string{whole, whole[:len(whole)/2], whole[:strings.LastIndex(whole[:len(whole)/2], "\n")+1]} {
		want := diffCut([]byte(body)) != nil
		for _, chunk := range []int{1, 7, 4096} {
			d := newDiffCheckReader(&chunkReader{s: body, n: chunk})
			buf := make([]byte, 8192)
			for {
				if _, err := d.Read(buf); err != nil {
					break
				}
			}
			if got := d.complete() != nil; got != want {
				t.Errorf("%d bytes read %d at a time: cut %v, diffCut says %v", len(body), chunk, got, want)
			}
		}
	}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
