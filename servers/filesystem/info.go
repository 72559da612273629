package filesystem

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
)

// GetFileInfoInput names one path.
type GetFileInfoInput struct {
	Path string `json:"path"`
}

// FileInfo describes a path without following it if it is a symbolic link.
type FileInfo struct {
	Path            string `json:"path" jsonschema_description:"Absolute path"`
	Type            string `json:"type" jsonschema_description:"Entry type; a symlink is described itself and not followed" jsonschema:"enum=file,enum=directory,enum=symlink,enum=other"`
	Size            int64  `json:"size" jsonschema_description:"Size in bytes (for a symlink the length of its target text)"`
	Mode            string `json:"mode" jsonschema_description:"Type and permission bits as ls shows them (for example -rw-r--r--)"`
	Permissions     string `json:"permissions" jsonschema_description:"Permission bits in octal (for example 0644)"`
	Modified        string `json:"modified" jsonschema_description:"Last modification time (RFC 3339)"`
	Accessed        string `json:"accessed,omitempty" jsonschema_description:"Last access time (RFC 3339) where the platform reports it"`
	Changed         string `json:"changed,omitempty" jsonschema_description:"Last status change time (RFC 3339) where the platform reports it"`
	Created         string `json:"created,omitempty" jsonschema_description:"Creation time (RFC 3339) where the platform reports it"`
	HardLinks       int    `json:"hardLinks,omitempty" jsonschema_description:"Number of hard links to the same data where the platform reports it; more than 1 means the same file may also be reachable under other names"`
	SymlinkTarget   string `json:"symlinkTarget,omitempty" jsonschema_description:"For a symlink: the target text as stored in the link (not followed)"`
	SymlinkResolves string `json:"symlinkResolves,omitempty" jsonschema_description:"For a symlink: inside means it can be followed within its allowed directory; outside means it points out of it (or is absolute) and is never followed; broken means its target is missing or loops" jsonschema:"enum=inside,enum=outside,enum=broken"`
}

// GetFileInfo reports size, times, permissions and type with Lstat through the root: a
// symbolic link is described as a link, and its target is never followed outside.
func (rs *Roots) GetFileInfo(ctx context.Context, in GetFileInfoInput) (FileInfo, error) {
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return FileInfo{}, err
	}
	st, err := root.os.Lstat(rel)
	if err != nil {
		return FileInfo{}, rs.explain(display, err)
	}
	out := FileInfo{
		Path:        display,
		Type:        entryType(st.Mode()),
		Size:        st.Size(),
		Mode:        st.Mode().String(),
		Permissions: fmt.Sprintf("%04o", st.Mode().Perm()),
		Modified:    formatTime(st.ModTime()),
	}
	t := platformTimes(st)
	out.Accessed, out.Changed, out.Created = formatTime(t.accessed), formatTime(t.changed), formatTime(t.created)
	if t.links > 0 {
		out.HardLinks = int(t.links)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, err := root.os.Readlink(rel)
		if err == nil {
			out.SymlinkTarget = target
		}
		out.SymlinkResolves = symlinkResolution(root, rel, target)
	}
	return out, nil
}

// symlinkResolution tells whether os.Root would follow the link. Stat through the root
// follows links only while they stay inside, so a failure that says "escapes" means
// outside; the outside target itself is never touched.
func symlinkResolution(root *Root, rel, target string) string {
	if filepath.IsAbs(target) {
		return "outside"
	}
	_, err := root.os.Stat(rel)
	switch {
	case err == nil:
		return "inside"
	case isEscape(err):
		return "outside"
	}
	return "broken"
}
