package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestPackage checks the rest of what make dist's package step makes (for this
// platform; TestNpx and TestBundles take the npm tarballs and bundles apart): each
// archive holds the binary, executable, with the license and the server's README;
// SHA256SUMS lists every file with its right digest; and each registry server.json
// is the repository's at the version, with the bundle's fileSha256, and valid
// against the registry's schema (testdata/registry/server.schema.json at the root).
func TestPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("packages the servers")
	}
	dist := packagedDist(t)
	schema := registrySchema(t)
	p := hostPlatform(t)
	srv := servers(t)
	nv := NpmVersion(testVersion)

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not sha256sum's format", line)
		}
		listed[name] = sum
		got, err := sha256File(filepath.Join(dist, filepath.FromSlash(name)))
		if err != nil || got != sum {
			t.Errorf("SHA256SUMS: %s has digest %s (%v), listed %s", name, got, err, sum)
		}
	}
	var want []string
	for _, s := range srv {
		base := ArtifactBase(s.Cmd, testVersion, p)
		ext := ".tar.gz"
		if p.GOOS == "windows" {
			ext = ".zip"
		}
		want = append(want, base+ext, base+".mcpb", "npm/"+NpmTarball(s.Package(), testVersion),
			"npm/"+NpmTarball(s.PlatformPackage(p), testVersion), "registry/"+s.Name+"/server.json")
		if ext == ".tar.gz" {
			checkArchive(t, filepath.Join(dist, base+ext), map[string]int64{s.Cmd: 0o755, "LICENSE": 0o644, "README.md": 0o644})
		}

		raw, err := os.ReadFile(filepath.Join(dist, "registry", s.Name, "server.json"))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("registry/%s/server.json does not validate against the registry schema:\n%v", s.Name, err)
		}
		var sj struct {
			Version  string
			Packages []struct {
				RegistryType, Identifier, Version, FileSha256 string
			}
		}
		if err := json.Unmarshal(raw, &sj); err != nil {
			t.Fatal(err)
		}
		if sj.Version != nv {
			t.Errorf("registry/%s/server.json version %q, want %q", s.Name, sj.Version, nv)
		}
		types := map[string]int{}
		for _, pk := range sj.Packages {
			types[pk.RegistryType]++
			switch pk.RegistryType {
			case "oci":
				if !strings.HasSuffix(pk.Identifier, ":v"+nv) {
					t.Errorf("registry/%s/server.json: image %s, want tag v%s", s.Name, pk.Identifier, nv)
				}
			case "npm":
				if pk.Identifier != s.Package() || pk.Version != nv {
					t.Errorf("registry/%s/server.json: npm %s@%s, want %s@%s", s.Name, pk.Identifier, pk.Version, s.Package(), nv)
				}
			case "mcpb":
				bundle := ArtifactBase(s.Cmd, testVersion, p) + ".mcpb"
				if pk.Identifier != releaseURL+"/"+testVersion+"/"+bundle || pk.FileSha256 != listed[bundle] || pk.Version != nv {
					t.Errorf("registry/%s/server.json: MCPB %s@%s sha256 %s; want %s/%s/%s@%s sha256 %s", s.Name, pk.Identifier, pk.Version, pk.FileSha256, releaseURL, testVersion, bundle, nv, listed[bundle])
				}
			}
		}
		if types["oci"] != 1 || types["npm"] != 1 || types["mcpb"] != 1 {
			t.Errorf("registry/%s/server.json packages %v: want one image, one npm package and this platform's bundle", s.Name, types)
		}
	}
	var got []string
	for name := range listed {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("SHA256SUMS lists\n%q\nwant\n%q", got, want)
	}
}

// checkArchive checks a .tar.gz holds exactly the files with the modes given.
func checkArchive(t *testing.T, path string, want map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	walkTarGz(t, path, func(h *tar.Header, _ io.Reader) { got[h.Name] = h.Mode })
	if len(got) != len(want) {
		t.Errorf("%s holds %v, want %v", filepath.Base(path), got, want)
	}
	for name, mode := range want {
		if got[name] != mode {
			t.Errorf("%s: %s mode %o (present: %v), want %o", filepath.Base(path), name, got[name], got, mode)
		}
	}
}

// registrySchema compiles the MCP Registry's server.json schema the repository keeps
// (testdata/registry, see SOURCE.md there), with format assertions on.
func registrySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(repoRoot(t), "testdata", "registry", "server.schema.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// walkTarGz calls f with each entry of the .tar.gz at path, and its content.
func walkTarGz(t *testing.T, path string, f func(h *tar.Header, r io.Reader)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		f(h, tr)
	}
}
