package filesystem

import (
	"fmt"
	"path"
	"strings"
)

// maxBraceAlternatives bounds brace expansion so "{a,b}{c,d}..." cannot explode.
const maxBraceAlternatives = 64

// globPattern is a compiled glob over slash-separated relative paths. A pattern without
// a slash matches an entry's name at any depth ("*.go"); a pattern with a slash matches
// the path relative to the search base ("cmd/**/main.go"). "**" as a whole segment
// matches zero or more directories; "*", "?", "[...]" and "{a,b}" work as in shells.
type globPattern struct {
	raw  string
	alts [][]string // brace alternatives, each split into segments
}

func compileGlob(raw string) (globPattern, error) {
	if strings.TrimSpace(raw) == "" {
		return globPattern{}, fmt.Errorf("empty glob pattern: give a pattern such as *.go or src/**/*.ts")
	}
	if strings.IndexByte(raw, 0) >= 0 {
		return globPattern{}, fmt.Errorf("glob pattern %q contains a NUL byte", raw)
	}
	expanded, err := expandBraces(raw)
	if err != nil {
		return globPattern{}, fmt.Errorf("invalid glob pattern %q: %v", raw, err)
	}
	g := globPattern{raw: raw}
	for _, p := range expanded {
		p = strings.TrimPrefix(p, "./")
		anchored := strings.Contains(strings.TrimSuffix(p, "/"), "/")
		p = strings.Trim(p, "/")
		segs := splitGlobSegments(p)
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return globPattern{}, fmt.Errorf("invalid glob pattern %q: bad segment %q (check [ ] and \\ escapes)", raw, s)
			}
		}
		if !anchored {
			segs = append([]string{"**"}, segs...)
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// splitGlobSegments splits on "/" and converts git/shell style "[!...]" classes to the
// "[^...]" that path.Match understands.
func splitGlobSegments(p string) []string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(s, "[!", "[^")
	}
	return segs
}

// match reports whether the slash-separated relative path matches.
func (g globPattern) match(rel string) bool {
	segs := strings.Split(rel, "/")
	for _, alt := range g.alts {
		if matchSegments(alt, segs) {
			return true
		}
	}
	return false
}

// matchSegments matches pattern segments against path segments with "**" spanning any
// number of whole segments. A trailing "**" needs at least one segment ("dir/**" matches
// what is inside dir, not dir itself).
func matchSegments(p, s []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			for len(p) > 1 && p[1] == "**" {
				p = p[1:]
			}
			if len(p) == 1 {
				return len(s) > 0
			}
			for i := 0; i <= len(s); i++ {
				if matchSegments(p[1:], s[i:]) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 {
			return false
		}
		if ok, err := path.Match(p[0], s[0]); err != nil || !ok {
			return false
		}
		p, s = p[1:], s[1:]
	}
	return len(s) == 0
}

// expandBraces expands "{a,b}" alternatives (nested allowed), bounded in count.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("unmatched '}'")
			}
			depth--
			if depth == 0 {
				var out []string
				for _, alt := range splitTopLevelCommas(p[open+1 : i]) {
					rest, err := expandBraces(p[:open] + alt + p[i+1:])
					if err != nil {
						return nil, err
					}
					out = append(out, rest...)
					if len(out) > maxBraceAlternatives {
						return nil, fmt.Errorf("braces expand to more than %d alternatives", maxBraceAlternatives)
					}
				}
				return out, nil
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unmatched '{'")
	}
	return []string{p}, nil
}

func splitTopLevelCommas(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// compileGlobs compiles a list of patterns (for exclude lists).
func compileGlobs(raws []string) ([]globPattern, error) {
	out := make([]globPattern, 0, len(raws))
	for _, r := range raws {
		g, err := compileGlob(r)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func anyGlobMatch(gs []globPattern, rel string) bool {
	for _, g := range gs {
		if g.match(rel) {
			return true
		}
	}
	return false
}
