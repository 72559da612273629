package event

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// CodeMapping maps the start of the file paths that stack frames report (the stack
// root) to a directory on this machine (the source root), as Sentry's code mappings
// do for repositories. A release built with -trimpath reports module paths
// (example.com/shop/checkout/payment.go: stack root example.com/shop/), a build made
// elsewhere reports that machine's paths (/build/shop/checkout/payment.go: stack root
// /build/shop/).
type CodeMapping struct {
	StackRoot  string
	SourceRoot string
}

// ParseCodeMapping reads STACK_ROOT=SOURCE_ROOT. The source root is made absolute and
// clean, so the paths it yields are the ones a filesystem server takes as given.
func ParseCodeMapping(s string) (CodeMapping, error) {
	stack, source, ok := strings.Cut(strings.TrimSpace(s), "=")
	stack, source = strings.TrimSpace(stack), strings.TrimSpace(source)
	if !ok || stack == "" || source == "" {
		return CodeMapping{}, fmt.Errorf("code mapping %q is not STACK_ROOT=SOURCE_ROOT, such as example.com/shop/=/home/me/src/shop", s)
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return CodeMapping{}, fmt.Errorf("code mapping %q: source root: %w", s, err)
	}
	return CodeMapping{StackRoot: stack, SourceRoot: abs}, nil
}

// SplitList splits the value of a list variable (ERRORS_CODE_MAPPINGS, ERRORS_IN_APP)
// at commas and semicolons, dropping empty entries.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CodeMap is what the view layer applies to stack frames: code mappings (local paths)
// and in-app prefixes. A nil *CodeMap changes nothing.
type CodeMap struct {
	Local []CodeMapping // stack roots in slash form without a trailing separator, longest first
	InApp []string      // prefixes of modules or files; empty: keep the SDK's in_app
	// repo are the backend's own code mappings (Sentry's), used for frames no local
	// mapping covers: SourceRoot is "repository:path in the repository".
	repo []CodeMapping
}

func NewCodeMap(mappings []CodeMapping, inApp []string) *CodeMap {
	c := &CodeMap{}
	for _, m := range mappings {
		m.StackRoot = trimRoot(m.StackRoot)
		c.Local = append(c.Local, m)
	}
	sortRoots(c.Local)
	for _, p := range inApp {
		if p = trimRoot(p); p != "" {
			c.InApp = append(c.InApp, p)
		}
	}
	if len(c.InApp) == 0 {
		// The stack roots of the code mappings are the application's own code.
		for _, m := range c.Local {
			c.InApp = append(c.InApp, m.StackRoot)
		}
	}
	if len(c.Local) == 0 && len(c.InApp) == 0 {
		return nil
	}
	return c
}

// withRepo returns a copy of c (which may be nil) with the backend's code mappings.
func (c *CodeMap) WithRepo(repo []CodeMapping) *CodeMap {
	if len(repo) == 0 {
		return c
	}
	out := &CodeMap{}
	if c != nil {
		*out = *c
	}
	out.repo = nil
	for _, m := range repo {
		m.StackRoot = trimRoot(m.StackRoot)
		out.repo = append(out.repo, m)
	}
	sortRoots(out.repo)
	return out
}

func sortRoots(ms []CodeMapping) {
	slices.SortStableFunc(ms, func(a, b CodeMapping) int { return len(b.StackRoot) - len(a.StackRoot) })
}

// trimRoot puts a stack root or prefix in slash form without a trailing separator.
func trimRoot(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), `\`, "/")
	if len(s) > 1 {
		s = strings.TrimRight(s, "/.")
	}
	return s
}

// Separators at which a stack root or prefix may end: paths end at a slash, modules
// also at a dot or a colon (com.acme.shop, Elixir.Shop).
const (
	pathSeps   = "/"
	moduleSeps = "/.:"
)

// under reports whether p starts with root at a boundary (root itself, or root then one
// of seps), and returns the rest after it.
func under(p, root, seps string) (string, bool) {
	if root == "" || !strings.HasPrefix(p, root) {
		return "", false
	}
	rest := p[len(root):]
	if rest == "" {
		return "", true
	}
	if strings.HasSuffix(root, "/") {
		return rest, true
	}
	if strings.ContainsRune(seps, rune(rest[0])) {
		return strings.TrimLeft(rest[1:], "/"), true
	}
	return "", false
}

// localPath maps a frame's file to a file under a source root, or "" when no mapping
// covers it. The result never leaves its source root, whatever ".." the event holds.
func (c *CodeMap) LocalPath(f *Frame) string {
	if c == nil {
		return ""
	}
	for _, file := range []string{f.AbsPath, f.Filename} {
		file = strings.ReplaceAll(file, `\`, "/")
		for _, m := range c.Local {
			rest, ok := under(file, m.StackRoot, pathSeps)
			if !ok || rest == "" {
				continue
			}
			p := filepath.Join(m.SourceRoot, filepath.FromSlash(rest))
			if rel, err := filepath.Rel(m.SourceRoot, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return p
			}
		}
	}
	return ""
}

// repoPath maps a frame's file with the backend's code mappings: "repository:path".
func (c *CodeMap) RepoPath(f *Frame) string {
	if c == nil {
		return ""
	}
	for _, file := range []string{f.Filename, f.AbsPath} {
		file = strings.ReplaceAll(file, `\`, "/")
		for _, m := range c.repo {
			rest, ok := under(file, m.StackRoot, pathSeps)
			if m.StackRoot == "" && file != "" && !strings.HasPrefix(file, "/") {
				rest, ok = file, true // Sentry: an empty stack root prefixes every relative path
			}
			if ok && rest != "" {
				repo, root, _ := strings.Cut(m.SourceRoot, ":")
				if p := path.Clean(path.Join(root, rest)); !strings.HasPrefix(p, "..") && !strings.HasPrefix(p, "/") {
					return repo + ":" + p
				}
			}
		}
	}
	return ""
}

// applyInApp decides in_app by the configured prefixes (matched against the module
// and the file), replacing the SDK's guess: sentry-go marks no frame of a -trimpath
// build in-app and every frame of the module cache in-app. A frame whose file is a
// dependency's (the module cache, or a path with a module version such as
// github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go) is decided by the file
// alone: the module the SDK reports for it may be the application's (a handler
// wrapped by sentryhttp). Without prefixes the frames are returned as they are.
func (c *CodeMap) ApplyInApp(frames []Frame) []Frame {
	if c == nil || len(c.InApp) == 0 || len(frames) == 0 {
		return frames
	}
	out := slices.Clone(frames)
	for i := range out {
		f := &out[i]
		f.InApp = false
		for _, p := range c.InApp {
			_, mod := under(f.Module, p, moduleSeps)
			_, file := under(strings.ReplaceAll(f.Filename, `\`, "/"), p, pathSeps)
			_, abs := under(strings.ReplaceAll(f.AbsPath, `\`, "/"), p, pathSeps)
			if file || abs || mod && !dependencyFile(f) {
				f.InApp = true
				break
			}
		}
	}
	return out
}

// dependencyFile reports whether the frame's file belongs to a downloaded module: a
// path in the module cache (.../pkg/mod/...) or with a module version
// (module@vX.Y.Z/...).
func dependencyFile(f *Frame) bool {
	for _, file := range []string{f.AbsPath, f.Filename} {
		file = strings.ReplaceAll(file, `\`, "/")
		if strings.Contains(file, "/pkg/mod/") || strings.HasPrefix(file, "pkg/mod/") {
			return true
		}
		for _, seg := range strings.Split(file, "/") {
			if _, v, ok := strings.Cut(seg, "@v"); ok && v != "" && v[0] >= '0' && v[0] <= '9' {
				return true
			}
		}
	}
	return false
}

// culprit is the event's culprit by the configured in-app prefixes: the innermost
// in-app frame of the reported exception, as the store computes it with the SDK's
// in_app. Empty: keep the stored culprit (no prefixes, a transaction names the
// culprit, or no frame is in-app).
func (c *CodeMap) Culprit(e *Event) string {
	if c == nil || len(c.InApp) == 0 || e.Transaction != "" {
		return ""
	}
	frames := e.Stacktrace
	if n := len(e.Exceptions); n > 0 {
		frames = e.Exceptions[n-1].Frames
	}
	frames = c.ApplyInApp(frames)
	for i := len(frames) - 1; i >= 0; i-- {
		if f := frames[i]; f.InApp {
			return FirstNonEmpty(f.Module, f.Filename, f.AbsPath) + " in " + f.Function
		}
	}
	return ""
}
