package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
)

// versionedModules are the modules besides the servers whose go.mod requires the
// library: the template, kept in step so a copy of it requires a published version.
var versionedModules = []string{"examples/hello"}

// Prepare sets every version in the repository to version: each server's (and the
// template's) requirement of the root module, the go.work replace that stands in
// for that version during development, the version and package identifiers of
// every server.json, and the version of every bundle manifest. It returns the
// files it changed.
func Prepare(root string, servers []Server, version string) ([]string, error) {
	var changed []string
	write := func(rel string, old, new []byte) error {
		if bytes.Equal(old, new) {
			return nil
		}
		changed = append(changed, rel)
		return os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), new, 0o644)
	}
	dirs := versionedModules
	for _, s := range servers {
		dirs = append(dirs, s.Rel)
	}
	for _, d := range dirs {
		rel := d + "/go.mod"
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return changed, err
		}
		// Dropping a replace is not this step's job: a published go.mod must not have
		// one, and PublishedGoMod says so.
		newMod, err := PublishedGoMod(old, rel, version)
		if err != nil {
			return changed, err
		}
		if err := write(rel, old, newMod); err != nil {
			return changed, err
		}
	}
	oldWork, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return changed, err
	}
	newWork, err := SetWorkReplace(oldWork, version)
	if err != nil {
		return changed, err
	}
	if err := write("go.work", oldWork, newWork); err != nil {
		return changed, err
	}
	jsonDirs := append([]string{}, versionedModules...)
	for _, s := range servers {
		jsonDirs = append(jsonDirs, s.Rel)
	}
	for _, d := range jsonDirs {
		rel := d + "/server.json"
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return changed, err
		}
		newJSON, err := SetServerJSONVersion(old, version)
		if err != nil {
			return changed, fmt.Errorf("%s: %v", rel, err)
		}
		if err := write(rel, old, newJSON); err != nil {
			return changed, err
		}
	}
	for _, s := range servers {
		rel := s.Rel + "/" + ManifestFile
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return changed, err
		}
		newManifest, err := setJSONString(old, "version", NpmVersion(version))
		if err != nil {
			return changed, fmt.Errorf("%s: %v", rel, err)
		}
		if err := write(rel, old, newManifest); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// SetWorkReplace points go.work's replace of the root module at version: the
// version the servers require, which go.work serves from this checkout.
func SetWorkReplace(gowork []byte, version string) ([]byte, error) {
	wf, err := modfile.ParseWork("go.work", gowork, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range wf.Replace {
		if r.Old.Path == RootModule && r.Old.Version != version {
			if err := wf.DropReplace(RootModule, r.Old.Version); err != nil {
				return nil, err
			}
		}
	}
	if err := wf.AddReplace(RootModule, version, "./", ""); err != nil {
		return nil, err
	}
	wf.Cleanup()
	return modfile.Format(wf.Syntax), nil
}

// jsonStringField matches a top-level-looking "key": "value" pair; setJSONString
// uses the first, which in server.json and the manifests is the document's own.
func jsonStringField(key string) *regexp.Regexp {
	return regexp.MustCompile(`("` + regexp.QuoteMeta(key) + `"\s*:\s*")([^"]*)(")`)
}

// setJSONString replaces the value of the first "key": "..." in a JSON document,
// keeping its layout.
func setJSONString(doc []byte, key, value string) ([]byte, error) {
	re := jsonStringField(key)
	loc := re.FindSubmatchIndex(doc)
	if loc == nil {
		return nil, fmt.Errorf("no %q string", key)
	}
	out := append([]byte{}, doc[:loc[4]]...)
	out = append(out, value...)
	return append(out, doc[loc[5]:]...), nil
}

// SetServerJSONVersion sets the version of a server.json and of each package in it:
// the document's "version" and each package's "version" (1.2.3), the OCI image tag
// (:v1.2.3), and the release download URLs of the bundles (.../download/v1.2.3/
// mcp-server-x_1.2.3_os_arch.mcpb). The layout of the file is kept.
func SetServerJSONVersion(doc []byte, version string) ([]byte, error) {
	var sj struct {
		Version  string `json:"version"`
		Packages []struct {
			RegistryType, Identifier, Version string
		} `json:"packages"`
	}
	if err := json.Unmarshal(doc, &sj); err != nil {
		return nil, err
	}
	old, nv := sj.Version, NpmVersion(version)
	if old == "" {
		return nil, fmt.Errorf("no version")
	}
	if old == nv {
		return doc, nil
	}
	s := string(doc)
	s = regexp.MustCompile(`("version"\s*:\s*")`+regexp.QuoteMeta(old)+`"`).ReplaceAllString(s, `${1}`+nv+`"`)
	s = strings.ReplaceAll(s, ":v"+old+`"`, ":v"+nv+`"`)
	s = strings.ReplaceAll(s, "/download/v"+old+"/", "/download/v"+nv+"/")
	s = regexp.MustCompile(`(mcp-server-[a-z0-9-]+_)`+regexp.QuoteMeta(old)+`(_[a-z0-9]+_[a-z0-9]+\.mcpb)`).ReplaceAllString(s, `${1}`+nv+`${2}`)
	if err := json.Unmarshal([]byte(s), &sj); err != nil {
		return nil, err
	}
	if sj.Version != nv {
		return nil, fmt.Errorf("version not updated")
	}
	for _, p := range sj.Packages {
		if strings.Contains(p.Identifier, old) && !strings.Contains(p.Identifier, nv) {
			return nil, fmt.Errorf("package %s still names version %s", p.Identifier, old)
		}
		if p.Version != "" && p.Version != nv {
			return nil, fmt.Errorf("package %s version %s not updated", p.Identifier, p.Version)
		}
	}
	return []byte(s), nil
}

// CheckPrepared reports what in the working tree is not at version: what `release
// tag` refuses to tag.
func CheckPrepared(root string, servers []Server, version string) error {
	tmp := root
	var problems []string
	dirs := append([]string{}, versionedModules...)
	for _, s := range servers {
		dirs = append(dirs, s.Rel)
	}
	for _, d := range dirs {
		rel := d + "/go.mod"
		b, err := os.ReadFile(filepath.Join(tmp, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		pub, err := PublishedGoMod(b, rel, version)
		if err != nil {
			problems = append(problems, err.Error())
		} else if !bytes.Equal(pub, b) {
			problems = append(problems, fmt.Sprintf("%s does not require %s %s", rel, RootModule, version))
		}
	}
	for _, s := range servers {
		b, err := os.ReadFile(filepath.Join(s.Dir, "server.json"))
		if err != nil {
			return err
		}
		if pub, err := SetServerJSONVersion(b, version); err != nil || !bytes.Equal(pub, b) {
			problems = append(problems, fmt.Sprintf("%s/server.json is not at version %s", s.Rel, NpmVersion(version)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the working tree is not prepared for %s (run `make release-prepare VERSION=%s` and commit):\n  %s", version, version, strings.Join(problems, "\n  "))
	}
	return nil
}

// Tag tags HEAD for the release: the root module (v1.2.3) first, then each server
// module (servers/<name>/v1.2.3). With a remote, it pushes the root tag, waits until
// the Go module proxy serves that version (the servers require it), then pushes the
// server tags and asks the proxy for each, so `go install …@latest` finds them.
func Tag(root string, servers []Server, version, remote string, log io.Writer) error {
	if st, err := git(root, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return err
	} else if st != "" {
		return fmt.Errorf("the working tree has uncommitted changes:\n%s", st)
	}
	if err := CheckPrepared(root, servers, version); err != nil {
		return err
	}
	tags := []string{version}
	for _, s := range servers {
		tags = append(tags, s.Tag(version))
	}
	for _, t := range tags {
		if _, err := git(root, "rev-parse", "-q", "--verify", "refs/tags/"+t); err == nil {
			return fmt.Errorf("tag %s exists already", t)
		}
	}
	for i, t := range tags {
		mod := RootModule
		if i > 0 {
			mod = servers[i-1].Module
		}
		if _, err := git(root, "tag", "-a", t, "-m", mod+" "+version); err != nil {
			return err
		}
		fmt.Fprintln(log, "tagged", t)
	}
	if remote == "" {
		fmt.Fprintf(log, "\nnot pushed; push the root module's tag first, then the servers':\n  git push <remote> %s\n  GOPROXY=https://proxy.golang.org go list -m %s@%s\n  git push <remote> %s\n", version, RootModule, version, strings.Join(tags[1:], " "))
		return nil
	}
	if _, err := git(root, "push", remote, "refs/tags/"+version); err != nil {
		return err
	}
	if err := waitForProxy(RootModule, version, log); err != nil {
		return err
	}
	args := []string{"push", remote}
	for _, t := range tags[1:] {
		args = append(args, "refs/tags/"+t)
	}
	if _, err := git(root, args...); err != nil {
		return err
	}
	for _, s := range servers {
		if err := waitForProxy(s.Module, version, log); err != nil {
			return err
		}
		fmt.Fprintf(log, "go install %s@%s\n", s.InstallPath(), version)
	}
	return nil
}

// waitForProxy asks proxy.golang.org for module@version until it answers (it
// fetches new tags from the origin on request), for up to ten minutes.
func waitForProxy(mod, version string, log io.Writer) error {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "go", "list", "-m", mod+"@"+version)
		cmd.Env = append(os.Environ(), "GOPROXY=https://proxy.golang.org", "GOWORK=off", "GOFLAGS=-mod=mod")
		cmd.Dir = os.TempDir()
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			fmt.Fprintf(log, "proxy.golang.org serves %s\n", strings.TrimSpace(string(out)))
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proxy.golang.org does not serve %s@%s after 10 minutes: %s", mod, version, out)
		}
		time.Sleep(15 * time.Second)
	}
}
