package filesystem

import (
	"bufio"
	"bytes"
	"strings"
)

// maxGitignoreBytes bounds how much of one .gitignore file is read.
const maxGitignoreBytes = 256 << 10

// ignorePattern is one line of a .gitignore file.
type ignorePattern struct {
	negate  bool
	dirOnly bool
	segs    []string // slash segments; unanchored patterns start with "**"
}

// ignoreFile holds the patterns of one .gitignore, whose directory is base (a slash
// path relative to the root, "" for the root itself).
type ignoreFile struct {
	base     string
	patterns []ignorePattern
}

// parseGitignore implements the common gitignore rules: blank lines and "#" comments,
// "\#" and "\!" escapes, unescaped trailing spaces dropped, "!" negation, a trailing "/"
// for directories only, a slash at the start or in the middle anchoring the pattern to
// the .gitignore's directory (otherwise it matches a name at any depth), and "**" as a
// leading, middle or trailing segment.
func parseGitignore(base string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxGitignoreBytes)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = trimUnescapedTrailingSpaces(line)
		var p ignorePattern
		if strings.HasPrefix(line, "!") {
			p.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimLeft(line, "/")
		if line == "" {
			continue
		}
		p.segs = splitGlobSegments(line)
		if !anchored {
			p.segs = append([]string{"**"}, p.segs...)
		}
		f.patterns = append(f.patterns, p)
	}
	return f
}

func trimUnescapedTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// match reports whether the last pattern in this file that matches rel (slash path
// relative to the file's directory) exists, and whether it was a negation.
func (f *ignoreFile) match(rel string, isDir bool) (matched, negated bool) {
	segs := strings.Split(rel, "/")
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := f.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if matchSegments(p.segs, segs) {
			return true, p.negate
		}
	}
	return false, false
}

// ignoreStack is the chain of .gitignore files that apply in a directory, from the
// root down. Later (deeper) files take precedence, as in git. It is never mutated in
// place, so directories can share their parent's stack.
type ignoreStack []*ignoreFile

func (s ignoreStack) push(f *ignoreFile) ignoreStack {
	if f == nil || len(f.patterns) == 0 {
		return s
	}
	out := make(ignoreStack, len(s), len(s)+1)
	copy(out, s)
	return append(out, f)
}

// ignored reports whether the path (slash, relative to the root) is ignored by the
// stack. A walk never descends into an ignored directory, which gives git's rule that
// a file inside an excluded directory cannot be re-included.
func (s ignoreStack) ignored(rootRel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		rel, ok := relUnder(f.base, rootRel)
		if !ok {
			continue
		}
		if m, neg := f.match(rel, isDir); m {
			return !neg
		}
	}
	return false
}

// relUnder returns p relative to the slash directory base ("" is the root).
func relUnder(base, p string) (string, bool) {
	if base == "" {
		return p, p != ""
	}
	if strings.HasPrefix(p, base+"/") {
		return p[len(base)+1:], true
	}
	return "", false
}
