package distcheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The template docs/new-server.md tells users to copy, the arguments it needs to start
// (dir is a scratch directory of the test), and the most lines of non-test Go code it
// may have: it is meant to be read whole before it is copied.
const (
	templateDir      = "examples/hello"
	templateMaxLines = 300
)

func templateArgs(dir string) []string { return []string{"--dir", dir} }

// goLines counts the lines of the non-test Go files under dir (testdata left out).
func goLines(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		n += bytes.Count(b, []byte("\n"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTemplateCopyStandsAlone follows docs/new-server.md: it copies examples/hello to
// a directory outside the workspace, renames its module to example.com/myserver (go
// mod edit, and every import of the old path), points the replace of
// github.com/mcpkit/reference at this checkout (the library is not published yet),
// builds it with GOWORK=off, and runs the binary on stdio: it must answer
// server/discover with its serverInfo (the version stamped by -ldflags) and
// capabilities, and exit when stdin closes. It also keeps the template small.
func TestTemplateCopyStandsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the template outside the workspace")
	}
	root := repoRoot(t)
	src := filepath.Join(root, filepath.FromSlash(templateDir))
	loc := goLines(t, src)
	t.Logf("%s: %d lines of non-test Go code", templateDir, loc)
	if loc > templateMaxLines {
		t.Errorf("%s has %d lines of non-test Go code; the template is meant to stay under %d (docs/new-server.md says about how many)", templateDir, loc, templateMaxLines)
	}

	work := t.TempDir()
	dst := filepath.Join(work, "myserver")
	copyTree(t, src, dst)

	oldModule := "github.com/mcpkit/reference/" + templateDir
	const newModule = "example.com/myserver"
	goCmd(t, dst, "mod", "edit", "-module", newModule, "-replace", "github.com/mcpkit/reference="+root)
	rewriteImports(t, dst, oldModule, newModule)
	if left := filesContaining(t, dst, oldModule); len(left) > 0 {
		t.Fatalf("the old module path %s is still in %v", oldModule, left)
	}

	goCmd(t, dst, "build", "./...")
	const version = "v9.9.9-template"
	cmdName := "mcp-server-" + filepath.Base(templateDir)
	bin := filepath.Join(work, "bin", cmdName)
	goCmd(t, dst, "build", "-ldflags", "-X "+VersionLDFlag+"="+version, "-o", bin, "./cmd/"+cmdName)

	scratch := filepath.Join(work, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	got := discoverOverStdio(t, bin, templateArgs(scratch), work)
	want := discoverSummary{
		Name: cmdName, Version: version, ResultType: "complete",
		HasTools: true, Supports20260728: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server/discover of the copied server (-want +got):\n%s", diff)
	}
}

// discoverSummary is what the test reads from a server/discover result.
type discoverSummary struct {
	Name, Version, ResultType string
	HasTools                  bool // capabilities.tools present
	Supports20260728          bool // "2026-07-28" among supportedVersions
}

// discoverOverStdio starts bin, sends one server/discover request line, reads the
// response line, closes stdin and waits for the server to exit.
func discoverOverStdio(t *testing.T, bin string, args []string, home string) discoverSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"distcheck","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	if _, err := io.WriteString(stdin, req); err != nil {
		t.Fatalf("writing the request: %v (stderr: %s)", err, stderr.String())
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the response: %v (stderr: %s)", err, stderr.String())
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server did not exit cleanly on EOF: %v (stderr: %s)", err, stderr.String())
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ResultType        string                     `json:"resultType"`
			SupportedVersions []string                   `json:"supportedVersions"`
			Capabilities      map[string]json.RawMessage `json:"capabilities"`
			Meta              struct {
				ServerInfo struct{ Name, Version string } `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("response %s: %v", line, err)
	}
	if resp.Error != nil || resp.ID != 1 {
		t.Fatalf("response to id 1 expected, got %s", line)
	}
	r := resp.Result
	return discoverSummary{
		Name: r.Meta.ServerInfo.Name, Version: r.Meta.ServerInfo.Version, ResultType: r.ResultType,
		HasTools:         r.Capabilities["tools"] != nil,
		Supports20260728: slices.Contains(r.SupportedVersions, "2026-07-28"),
	}
}

// goCmd runs the go command in dir as a user of the copy would: outside any
// workspace, resolving missing requirements through the module proxy.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// copyTree copies the regular files of src to dst, leaving out compiled test
// binaries (*.test), which are build output.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular() || strings.HasSuffix(path, ".test"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rewriteImports replaces the old module path everywhere in every Go file (imports
// of the module's own packages, and comments naming them), as the guide's sed line
// does.
func rewriteImports(t *testing.T, dir, oldModule, newModule string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, bytes.ReplaceAll(b, []byte(oldModule), []byte(newModule)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// filesContaining lists the .go and go.mod files under dir that contain s.
func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".go") || filepath.Base(path) == "go.mod") {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(s)) {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTemplateRenamesEverything follows docs/new-server.md's "Rename every hello": it
// copies examples/hello outside the workspace, runs the document's rename block as
// written, and checks that no "hello" is left in any file name or content, then
// builds the copy and runs its tests with GOWORK=off (issue #25: a copy kept hello in
// nine files, of which the document named some).
func TestTemplateRenamesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of the template outside the workspace")
	}
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "new-server.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n### Rename every `hello`\n")
	if !ok {
		t.Fatal("docs/new-server.md has no \"### Rename every `hello`\" section")
	}
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	_, block, ok := strings.Cut(sec, "```sh\n")
	if !ok {
		t.Fatal("the rename section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")

	dst := filepath.Join(t.TempDir(), "myserver")
	copyTree(t, filepath.Join(root, filepath.FromSlash(templateDir)), dst)
	cmd := exec.Command("sh", "-c", block)
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the document's rename block failed: %v\n%s", err, out)
	}
	err = filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, path)
		if strings.Contains(strings.ToLower(rel), "hello") {
			t.Errorf("a name still says hello: %s", rel)
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(strings.ToLower(line), "hello") {
				t.Errorf("%s:%d still says hello: %s", rel, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goCmd(t, dst, "mod", "edit", "-replace", "github.com/mcpkit/reference="+root)
	goCmd(t, dst, "build", "./...")
	goCmd(t, dst, "vet", "./...")
	goCmd(t, dst, "test", "-count=1", "./...")

	// Image-build the copy as this repository builds its release images without a
	// container engine (tools/ocibuild: a static binary in a non-root, read-only image),
	// and smoke-test it under runc: the renamed server starts in the image and answers.
	cmds, _ := filepath.Glob(filepath.Join(dst, "cmd", "*"))
	if len(cmds) != 1 {
		t.Fatalf("the copy has %d command directories (%v); want one", len(cmds), cmds)
	}
	name := filepath.Base(cmds[0])
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/"+name)
	build.Dir = dst
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the copy's static binary: %v\n%s", err, out)
	}
	envName := strings.ToUpper(strings.TrimPrefix(name, "mcp-server-")) + "_NOTES_DIR"
	args := []string{"run", ".", "-binary", bin, "-name", name, "-out", filepath.Join(t.TempDir(), "image"), "-env", envName + "=/tmp"}
	_, runcErr := exec.LookPath("runc")
	_, umociErr := exec.LookPath("umoci")
	if (runcErr == nil && umociErr == nil) || os.Getenv("CI") != "" {
		args = append(args, "-smoke") // under CI a missing runc fails the smoke test
	} else {
		t.Log("runc or umoci missing: the copy's image is built but not smoke-tested")
	}
	image := exec.Command("go", args...)
	image.Dir = filepath.Join(root, "tools", "ocibuild")
	image.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	out, err := image.CombinedOutput()
	if err != nil {
		t.Fatalf("building the copy's image: %v\n%s", err, out)
	}
	t.Logf("the copy's image: %s", bytes.TrimSpace(out))
}
