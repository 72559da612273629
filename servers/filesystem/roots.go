// Package filesystem is the file-system layer of mcp-server-filesystem: allowed
// directories (Roots), the read and write operations the tools expose, files as
// resources, and a change watcher. It knows nothing about MCP wiring.
//
// Confinement is structural: every file access goes through an *os.Root opened on an
// allowed directory, so ".." chains, symbolic links that point outside (relative or
// absolute) and directories swapped for symlinks between two calls cannot reach
// anything outside, whatever string a client sends. Resolve only decides which root a
// path belongs to and gives a clear error early; it is not the security boundary.
package filesystem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Root is one allowed directory, held open as an *os.Root.
type Root struct {
	dir  string // absolute, cleaned path as configured (may go through symlinks)
	real string // dir with symlinks resolved once at start
	os   *os.Root
}

// Dir is the directory as configured (absolute and cleaned). Paths shown to clients
// are built on it.
func (r *Root) Dir() string { return r.dir }

// RealDir is Dir with symbolic links resolved when the root was opened.
func (r *Root) RealDir() string { return r.real }

// OSRoot is the confined handle every access goes through.
func (r *Root) OSRoot() *os.Root { return r.os }

// Join returns the absolute display path of rel (OS form, relative to the root).
func (r *Root) Join(rel string) string { return filepath.Join(r.dir, rel) }

// Roots is the set of directories a server may touch. Relative paths are resolved
// against the first one. It is safe for concurrent use.
type Roots struct {
	roots []*Root
}

// OpenRoots resolves each directory with filepath.EvalSymlinks (so a root that is itself
// a symlink works) and opens it with os.OpenRoot. Duplicates are dropped.
func OpenRoots(dirs ...string) (*Roots, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no allowed directories given: name at least one directory")
	}
	rs := &Roots{}
	for _, d := range dirs {
		r, err := openRoot(d)
		if err != nil {
			rs.Close()
			return nil, err
		}
		if rs.byReal(r.real) != nil {
			r.os.Close()
			continue
		}
		rs.roots = append(rs.roots, r)
	}
	return rs, nil
}

func openRoot(d string) (*Root, error) {
	if d == "" {
		return nil, errors.New("allowed directory is an empty string: give a directory path")
	}
	if strings.IndexByte(d, 0) >= 0 {
		return nil, fmt.Errorf("allowed directory %q contains a NUL byte", d)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %q: %v", d, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %q cannot be resolved: %v", d, innerErr(err))
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %q: %v", d, innerErr(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("allowed directory %q is not a directory", d)
	}
	or, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %q cannot be opened: %v", d, innerErr(err))
	}
	return &Root{dir: abs, real: real, os: or}, nil
}

// Close releases every root handle.
func (rs *Roots) Close() error {
	var first error
	for _, r := range rs.roots {
		if err := r.os.Close(); err != nil && first == nil {
			first = err
		}
	}
	rs.roots = nil
	return first
}

// List returns the roots in order; the first is the base for relative paths.
func (rs *Roots) List() []*Root { return append([]*Root(nil), rs.roots...) }

// Dirs returns the configured directories, for messages and for a tool that lists them.
func (rs *Roots) Dirs() []string {
	out := make([]string, len(rs.roots))
	for i, r := range rs.roots {
		out[i] = r.dir
	}
	return out
}

func (rs *Roots) byReal(real string) *Root {
	for _, r := range rs.roots {
		if r.real == real {
			return r
		}
	}
	return nil
}

func (rs *Roots) allowed() string {
	return "allowed directories: " + strings.Join(rs.Dirs(), ", ")
}

// Resolve maps a client path to the root it belongs to and a path relative to that root
// (OS form, "." for the root itself). An absolute path must lie inside one root's
// configured or resolved directory (compared component by component, never as a
// string prefix); a relative path is taken relative to the first root. The empty path
// means the first root. NUL bytes and relative paths that climb out with ".." are
// refused. Resolve does not touch the file system: symlinks are dealt with by os.Root
// when the path is used.
func (rs *Roots) Resolve(path string) (*Root, string, error) {
	if len(rs.roots) == 0 {
		return nil, "", errors.New("no allowed directories are configured")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return nil, "", fmt.Errorf("path %q contains a NUL byte; give a plain path inside the %s", path, rs.allowed())
	}
	if path == "" {
		return rs.roots[0], ".", nil
	}
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) {
		if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return nil, "", fmt.Errorf("path %q leads outside the allowed directories with '..'; relative paths are taken from %s; %s", path, rs.roots[0].dir, rs.allowed())
		}
		return rs.roots[0], clean, nil
	}
	var best *Root
	bestRel, bestLen := "", -1
	for _, r := range rs.roots {
		for _, base := range []string{r.dir, r.real} {
			if rel, ok := within(base, clean); ok && len(base) > bestLen {
				best, bestRel, bestLen = r, rel, len(base)
			}
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("path %q is outside the allowed directories; %s", path, rs.allowed())
	}
	return best, bestRel, nil
}

// within reports whether target lies at or below base, comparing path components (so
// /data/foo-evil is not inside /data/foo), and returns the relative path.
func within(base, target string) (string, bool) {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Narrow returns the intersection of these roots with the client's roots (absolute
// paths or file:// URIs): a client root inside a server root becomes a root of its own
// (opened through the server root, so it cannot escape it); a server root inside a
// client root is kept; a client root outside every server root is ignored. The result
// never allows more than rs. It is an error when nothing is left; the caller must then
// refuse access rather than fall back to rs. The returned Roots owns its handles.
func (rs *Roots) Narrow(clientRoots []string) (*Roots, error) {
	out := &Roots{}
	add := func(r *Root) {
		if out.byReal(r.real) != nil {
			r.os.Close()
			return
		}
		out.roots = append(out.roots, r)
	}
	for _, cr := range clientRoots {
		p, ok := clientRootPath(cr)
		if !ok {
			continue
		}
		for _, sr := range rs.roots {
			rel, inDir := within(sr.dir, p)
			relReal, inReal := within(sr.real, p)
			if !inDir && inReal {
				rel, inDir = relReal, true
			}
			switch {
			case inDir:
				sub, err := sr.os.OpenRoot(rel)
				if err != nil {
					continue // missing, not a directory, or leads outside: ignore
				}
				// No EvalSymlinks here: that would be a path-based walk that a link
				// swapped in could lead outside. The handle came through sr's root.
				add(&Root{dir: filepath.Join(sr.dir, rel), real: filepath.Join(sr.real, rel), os: sub})
			case isInside(p, sr.dir) || isInside(p, sr.real):
				sub, err := sr.os.OpenRoot(".")
				if err != nil {
					continue
				}
				add(&Root{dir: sr.dir, real: sr.real, os: sub})
			}
		}
	}
	if len(out.roots) == 0 {
		return nil, fmt.Errorf("%w: the client's roots (%s) and the server's directories (%s) do not overlap: none of the client's roots lies inside or contains the server's %s",
			ErrRootsDisjoint, strings.Join(clientRoots, ", "), strings.Join(rs.Dirs(), ", "), rs.allowed())
	}
	return out, nil
}

// ErrRootsDisjoint is Narrow's error when the client's roots and the server's
// directories have nothing in common: a listing then answers empty, a call that needs
// a path refuses, saying what to change.
var ErrRootsDisjoint = errors.New("access refused")

func isInside(base, target string) bool {
	_, ok := within(base, target)
	return ok
}

// clientRootPath accepts an absolute path or a file:// URI and returns a clean
// absolute path.
func clientRootPath(s string) (string, bool) {
	if strings.HasPrefix(s, "file:") {
		p, err := pathFromFileURI(s)
		if err != nil {
			return "", false
		}
		s = p
	}
	if s == "" || strings.IndexByte(s, 0) >= 0 || !filepath.IsAbs(s) {
		return "", false
	}
	return filepath.Clean(s), true
}

// explain turns an error from an os.Root call into a message that says what was wrong
// and, for confinement failures, what is allowed. The display path is the client's view.
func (rs *Roots) explain(display string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case isEscape(err):
		return fmt.Errorf("%s: leads outside the allowed directories (a symbolic link on the way points outside its root or is absolute, and such links are not followed); %s", display, rs.allowed())
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s: too many levels of symbolic links (a symbolic link loop)", display)
	case errors.Is(err, fs.ErrNotExist):
		return &explainedError{msg: display + ": no such file or directory", kind: fs.ErrNotExist}
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s: a component of the path is not a directory", display)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", display)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: already exists", display)
	}
	return fmt.Errorf("%s: %v", display, innerErr(err))
}

// explainedError is a message written for the client that still matches its kind
// with errors.Is (for example fs.ErrNotExist, which an MCP server answers as "resource
// not found"), without the root-relative *PathError text.
type explainedError struct {
	msg  string
	kind error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.kind }

// isEscape recognises os.Root's refusal to leave the root. The standard library does
// not export that error, so its text is matched; this only chooses a message, the
// refusal itself already happened.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// innerErr strips the *PathError wrapper whose path is root-relative and confusing.
func innerErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// resolveDisplay resolves a client path and returns the root, the relative path and the
// absolute path to show in results and messages.
func (rs *Roots) resolveDisplay(path string) (*Root, string, string, error) {
	r, rel, err := rs.Resolve(path)
	if err != nil {
		return nil, "", "", err
	}
	return r, rel, r.Join(rel), nil
}
