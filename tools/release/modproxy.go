package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// PublishedGoMod returns a server module's go.mod as it is published at version:
// its requirement of the root module set to that version (the release tags both at
// the same version). It refuses a go.mod with replace or exclude directives, which
// `go install module@version` rejects.
func PublishedGoMod(gomod []byte, file, version string) ([]byte, error) {
	f, err := modfile.Parse(file, gomod, nil)
	if err != nil {
		return nil, err
	}
	if len(f.Replace) > 0 {
		return nil, fmt.Errorf("%s has a replace directive (%s => %s): go install refuses modules with replace; go.work stands in for unpublished versions during development", file, f.Replace[0].Old.Path, f.Replace[0].New.Path)
	}
	if len(f.Exclude) > 0 {
		return nil, fmt.Errorf("%s has an exclude directive: go install refuses modules with exclude", file)
	}
	if f.Module.Mod.Path == RootModule {
		return gomod, nil
	}
	found := false
	for _, r := range f.Require {
		if r.Mod.Path == RootModule {
			found = true
		}
	}
	if !found {
		return gomod, nil // a module that does not use the library (none of the servers)
	}
	if err := f.AddRequire(RootModule, version); err != nil {
		return nil, err
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// ModuleSource is where the files of a module version come from.
type ModuleSource struct {
	Root     string // repository root
	Revision string // a git revision (a tag, a commit); empty for the working tree
}

// proxyFile is a file of a module zip read from the working tree, or given as data
// (the rewritten go.mod).
type proxyFile struct {
	rel  string // slash path in the module
	abs  string // file on disk, when data is nil
	data []byte
}

func (f proxyFile) Path() string { return f.rel }

func (f proxyFile) Lstat() (os.FileInfo, error) {
	if f.data != nil {
		return dataInfo{name: path.Base(f.rel), size: int64(len(f.data))}, nil
	}
	return os.Lstat(f.abs)
}

func (f proxyFile) Open() (io.ReadCloser, error) {
	if f.data != nil {
		return io.NopCloser(bytes.NewReader(f.data)), nil
	}
	return os.Open(f.abs)
}

type dataInfo struct {
	name string
	size int64
}

func (d dataInfo) Name() string       { return d.name }
func (d dataInfo) Size() int64        { return d.size }
func (d dataInfo) Mode() fs.FileMode  { return 0o644 }
func (d dataInfo) ModTime() time.Time { return time.Time{} }
func (d dataInfo) IsDir() bool        { return false }
func (d dataInfo) Sys() any           { return nil }

// worktreeFiles lists the files of the module in rel (slash path, "" for the root)
// that git would commit: tracked files still present, and untracked files that
// .gitignore does not exclude (so node_modules, bin/ and dist/ stay out, and a new
// file does not have to be committed to be tested). zip.Create leaves out the files
// of nested modules.
func worktreeFiles(root, rel string) ([]proxyFile, error) {
	args := []string{"ls-files", "-z", "--cached", "--others", "--exclude-standard"}
	if rel != "" {
		args = append(args, "--", rel)
	}
	out, err := gitRaw(root, args...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var files []proxyFile
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		abs := filepath.Join(root, filepath.FromSlash(p))
		if fi, err := os.Lstat(abs); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink (not in module zips)
		}
		r := p
		if rel != "" {
			r = strings.TrimPrefix(p, rel+"/")
		}
		files = append(files, proxyFile{rel: r, abs: abs})
	}
	return files, nil
}

// revisionFiles lists the files of the module in rel ("" for the root) at a git
// revision, as the go command's module fetch sees them: what `git archive` puts in an
// archive of the revision (so export-ignore attributes count), read into memory.
func revisionFiles(root, rev, rel string) ([]proxyFile, error) {
	args := []string{"-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", rev}
	if rel != "" {
		args = append(args, rel)
	}
	out, err := gitRaw(root, args...)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		return nil, err
	}
	var files []proxyFile
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") || !f.Mode().IsRegular() {
			continue
		}
		name := f.Name
		if rel != "" {
			if !strings.HasPrefix(name, rel+"/") {
				continue
			}
			name = strings.TrimPrefix(name, rel+"/")
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if data == nil {
			data = []byte{}
		}
		files = append(files, proxyFile{rel: name, data: data})
	}
	return files, nil
}

// WriteModuleVersion adds module mod (in directory rel of the repository, "" for the
// root) at version to the file-based module proxy in dir: the .info, .mod and .zip
// files and the version list the go command reads through GOPROXY=file://dir. The
// go.mod is published as PublishedGoMod makes it.
func WriteModuleVersion(dir string, src ModuleSource, mod, rel, version string) error {
	var gomod []byte
	var err error
	gomodPath := path.Join(rel, "go.mod")
	if src.Revision == "" {
		gomod, err = os.ReadFile(filepath.Join(src.Root, filepath.FromSlash(gomodPath)))
	} else {
		gomod, err = gitRaw(src.Root, "show", src.Revision+":"+gomodPath)
	}
	if err != nil {
		return err
	}
	if got := modfile.ModulePath(gomod); got != mod {
		return fmt.Errorf("%s declares module %q, not %q", gomodPath, got, mod)
	}
	published, err := PublishedGoMod(gomod, gomodPath, version)
	if err != nil {
		return err
	}
	if src.Revision != "" && !bytes.Equal(bytes.TrimSpace(published), bytes.TrimSpace(gomod)) {
		return fmt.Errorf("%s at %s does not require %s %s: run `release prepare %s` before tagging", gomodPath, src.Revision, RootModule, version, version)
	}
	escPath, err := module.EscapePath(mod)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	m := module.Version{Path: mod, Version: version}
	zf, err := os.Create(filepath.Join(vdir, escVersion+".zip"))
	if err != nil {
		return err
	}
	var files []proxyFile
	if src.Revision == "" {
		files, err = worktreeFiles(src.Root, rel)
	} else {
		files, err = revisionFiles(src.Root, src.Revision, rel)
	}
	if err == nil {
		zfiles := make([]modzip.File, 0, len(files)+1)
		haveLicense := false
		for _, f := range files {
			if f.rel == "go.mod" {
				f = proxyFile{rel: "go.mod", data: published}
			}
			haveLicense = haveLicense || f.rel == "LICENSE"
			zfiles = append(zfiles, f)
		}
		if !haveLicense && rel != "" {
			// The go command puts the repository's LICENSE in a module zip of a
			// subdirectory that has none of its own; so does this proxy.
			if lic, lerr := os.ReadFile(filepath.Join(src.Root, "LICENSE")); lerr == nil {
				zfiles = append(zfiles, proxyFile{rel: "LICENSE", data: lic})
			}
		}
		err = modzip.Create(zf, m, zfiles)
	}
	if cerr := zf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("zip of %s: %w", m, err)
	}
	if err := os.WriteFile(filepath.Join(vdir, escVersion+".mod"), published, 0o644); err != nil {
		return err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err := os.WriteFile(filepath.Join(vdir, escVersion+".info"), info, 0o644); err != nil {
		return err
	}
	// The list holds every version in the proxy, one a line.
	list := filepath.Join(vdir, "list")
	old, _ := os.ReadFile(list)
	for _, l := range strings.Split(string(old), "\n") {
		if l == version {
			return nil
		}
	}
	lf, err := os.OpenFile(list, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(lf, version)
	if cerr := lf.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteProxy writes the root module and every server module at version into a
// file-based module proxy in dir, as the release publishes them: what `go install
// <server>/cmd/mcp-server-<name>@<version>` downloads. Third-party modules are not
// included; chain another proxy after it (GOPROXY=file://dir,...).
func WriteProxy(dir string, src ModuleSource, servers []Server, version string) error {
	if err := WriteModuleVersion(dir, src, RootModule, "", version); err != nil {
		return err
	}
	for _, s := range servers {
		if err := WriteModuleVersion(dir, src, s.Module, s.Rel, version); err != nil {
			return err
		}
	}
	return nil
}
