package filesystem

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiffGolden(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insert at start", "b\n", "a\nb\n", "--- f\n+++ f\n@@ -1 +1,2 @@\n+a\n b\n"},
		{"delete all", "a\nb\n", "", "--- f\n+++ f\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"create", "", "x\n", "--- f\n+++ f\n@@ -0,0 +1 @@\n+x\n"},
		{"no newline at end", "a\nb", "a\nc", "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"newline added at end", "a", "a\n", "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{
			"two hunks far apart",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			"1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"--- f\n+++ f\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n",
		},
		{
			"close changes merge into one hunk",
			"1\n2\n3\n4\n5\n6\n7\n8\n",
			"1\nX\n3\n4\n5\n6\nY\n8\n",
			"--- f\n+++ f\n@@ -1,8 +1,8 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n-7\n+Y\n 8\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unifiedDiff("f", tt.a, tt.b)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("unifiedDiff mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// applyUnifiedDiff is a minimal patch for unifiedDiff's own output, used to check that
// every diff it makes turns a into b.
func applyUnifiedDiff(t *testing.T, a, diff string) string {
	t.Helper()
	if diff == "" {
		return a
	}
	src := splitLines(a)
	var out []string
	pos := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "@@ ") {
			t.Fatalf("expected hunk header, got %q in\n%s", l, diff)
		}
		var aStart int
		fields := strings.Fields(l)
		aRange := strings.TrimPrefix(fields[1], "-")
		startStr, lenStr, hasLen := strings.Cut(aRange, ",")
		aStart, _ = strconv.Atoi(startStr)
		aLen := 1
		if hasLen {
			aLen, _ = strconv.Atoi(lenStr)
		}
		if aLen > 0 {
			aStart--
		}
		out = append(out, src[pos:aStart]...)
		pos = aStart
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			body := lines[i]
			noNL := i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline")
			text := body[1:]
			if noNL {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch body[0] {
			case ' ':
				if src[pos] != text {
					t.Fatalf("context mismatch at line %d: %q vs %q", pos+1, src[pos], text)
				}
				out = append(out, text)
				pos++
			case '-':
				if src[pos] != text {
					t.Fatalf("deletion mismatch at line %d: %q vs %q", pos+1, src[pos], text)
				}
				pos++
			case '+':
				out = append(out, text)
			default:
				t.Fatalf("bad diff line %q", body)
			}
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}

// TestUnifiedDiffRoundTrip checks on random texts that the diff applies back exactly
// and that Myers finds a minimal script (changed lines never exceed the trivial one).
func TestUnifiedDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func() string {
		n := rng.Intn(30)
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "l%d\n", rng.Intn(8))
		}
		s := sb.String()
		if s != "" && rng.Intn(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := 0; i < 500; i++ {
		a, b := gen(), gen()
		d := unifiedDiff("f", a, b)
		if got := applyUnifiedDiff(t, a, d); got != b {
			t.Fatalf("case %d: applying the diff gave %q; want %q\ndiff:\n%s", i, got, b, d)
		}
		ops := diffLines(splitLines(a), splitLines(b))
		changes := 0
		for _, op := range ops {
			if op.kind != ' ' {
				changes++
			}
		}
		if lcs := lcsLen(splitLines(a), splitLines(b)); changes != len(splitLines(a))+len(splitLines(b))-2*lcs {
			t.Fatalf("case %d: %d changed lines; the minimum is %d", i, changes, len(splitLines(a))+len(splitLines(b))-2*lcs)
		}
	}
}

// lcsLen is the textbook dynamic programme, to check Myers against.
func lcsLen(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestUnifiedDiffLargeDistanceFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	d := unifiedDiff("f", a.String(), b.String())
	if got := applyUnifiedDiff(t, a.String(), d); got != b.String() {
		t.Fatal("fallback diff does not apply")
	}
}
