package filesystem

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change in a hunk.
const diffContext = 3

// maxDiffDistance bounds the Myers search (its memory grows with the square of the
// edit distance). Past it the differing middle is shown as one replaced block: still a
// correct diff, only not a minimal one.
const maxDiffDistance = 2000

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// unifiedDiff renders the line differences between a and b in unified format with
// three lines of context; it returns "" when they are equal.
func unifiedDiff(name string, a, b string) string {
	if a == b {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	for _, h := range hunks(ops) {
		writeHunk(&sb, ops, h)
	}
	return sb.String()
}

// splitLines splits after each "\n"; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines trims the common prefix and suffix, then runs Myers' O(ND) algorithm on
// the middle.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// myers returns a shortest edit script from a to b (deletions before insertions within
// a change), or a whole-block replacement when the distance exceeds maxDiffDistance.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceBlock(a, b)
	}
	offset := n + m
	v := make([]int, 2*offset+2)
	var trace [][]int
	found := -1
	for d := 0; d <= n+m && d <= maxDiffDistance; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: insertion
			} else {
				x = v[offset+k-1] + 1 // right: deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
		snap := make([]int, 2*d+1)
		copy(snap, v[offset-d:offset+d+1])
		trace = append(trace, snap)
		if found >= 0 {
			break
		}
	}
	if found < 0 {
		return replaceBlock(a, b)
	}
	// Walk back: the state at the start of step d is the snapshot taken after step
	// d-1, which covers diagonals -(d-1)..d-1.
	var rev []diffOp
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1]
		get := func(k int) int { return prev[k+d-1] }
		k := x - y
		down := k == -d || (k != d && get(k-1) < get(k+1))
		pk := k - 1
		if down {
			pk = k + 1
		}
		px := get(pk)
		py := px - pk
		mx, my := px+1, py // where the move of step d ended
		if down {
			mx, my = px, py+1
		}
		for x > mx && y > my {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x]})
		}
		if down {
			rev = append(rev, diffOp{'+', b[py]})
		} else {
			rev = append(rev, diffOp{'-', a[px]})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x]})
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return reorderChanges(ops)
}

// reorderChanges puts the deletions of each run of changes before its insertions, as
// unified diffs conventionally show them.
func reorderChanges(ops []diffOp) []diffOp {
	out := make([]diffOp, 0, len(ops))
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		for _, op := range ops[i:j] {
			if op.kind == '-' {
				out = append(out, op)
			}
		}
		for _, op := range ops[i:j] {
			if op.kind == '+' {
				out = append(out, op)
			}
		}
		i = j
	}
	return out
}

func replaceBlock(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}

type hunk struct{ start, end int } // range of ops

// hunks groups changes with diffContext lines around them, merging groups whose
// context would overlap.
func hunks(ops []diffOp) []hunk {
	var out []hunk
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next < len(ops) && next-end <= 2*diffContext {
				end = next
				continue
			}
			end = min(len(ops), end+diffContext)
			break
		}
		if len(out) > 0 && start <= out[len(out)-1].end {
			out[len(out)-1].end = end
		} else {
			out = append(out, hunk{start, end})
		}
		i = end - 1
	}
	return out
}

func writeHunk(sb *strings.Builder, ops []diffOp, h hunk) {
	aStart, bStart := 0, 0 // lines before the hunk
	for _, op := range ops[:h.start] {
		if op.kind != '+' {
			aStart++
		}
		if op.kind != '-' {
			bStart++
		}
	}
	aLen, bLen := 0, 0
	for _, op := range ops[h.start:h.end] {
		if op.kind != '+' {
			aLen++
		}
		if op.kind != '-' {
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, op := range ops[h.start:h.end] {
		sb.WriteByte(op.kind)
		sb.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats "start,len" the way GNU diff does: an empty range names the line
// before it, and a length of 1 is left out.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
