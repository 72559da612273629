package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildFixture compiles the conformance fixture as a static linux binary.
func buildFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X github.com/mcpkit/reference/pkg/mcpkit.Version=v0.0.0-test", "-o", bin, "./pkg/mcpkit/internal/everything")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOWORK="+filepath.Join(root, "go.work"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, out)
	}
	return bin
}

func TestBuildIsReproducibleAndSmall(t *testing.T) {
	bin := buildFixture(t)
	spec := Spec{Binary: bin, Name: "everything", Version: "v0.0.0-test", Description: "conformance fixture", Source: "https://github.com/mcpkit/reference", Arch: "amd64"}
	a, err := Build(spec, filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(spec, filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest {
		t.Errorf("two builds of the same binary differ: %s vs %s", a.Digest, b.Digest)
	}
	t.Logf("image everything: %s, %.1f MB", a.Digest, float64(a.Size)/1e6)
	if a.Size > 20e6 {
		t.Errorf("image is %d bytes, over the 20 MB target", a.Size)
	}
	for _, p := range []string{filepath.Join(a.LayoutDir, "index.json"), filepath.Join(a.LayoutDir, "oci-layout"), a.Tarball} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
	}
}

func TestSmokeRunsTheImageHardened(t *testing.T) {
	requireRunc(t) // the same rule as the server images: fails in CI, skips elsewhere
	bin := buildFixture(t)
	spec := Spec{Binary: bin, Name: "everything", Version: "v0.0.0-test", Arch: "amd64"}
	res, err := Build(spec, filepath.Join(t.TempDir(), "img"))
	if err != nil {
		t.Fatal(err)
	}
	report, err := Smoke(res.LayoutDir, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, "tools/list ok") {
		t.Errorf("report %q", report)
	}
}
