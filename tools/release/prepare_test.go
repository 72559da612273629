package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepare runs `release prepare` on a copy of the files it edits: every version
// moves to the new one (CheckPrepared agrees, the go.mod files still have no
// replace), and preparing the old version again gives back the files byte for byte.
func TestPrepare(t *testing.T) {
	root := repoRoot(t)
	srv := servers(t)
	copyRoot := t.TempDir()
	files := []string{"go.work", "LICENSE"}
	for _, d := range versionedModules {
		files = append(files, d+"/go.mod", d+"/server.json")
	}
	for _, s := range srv {
		files = append(files, s.Rel+"/go.mod", s.Rel+"/server.json", s.Rel+"/"+ManifestFile)
	}
	orig := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		orig[f] = b
		dst := filepath.Join(copyRoot, f)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var copied []Server
	for _, s := range srv {
		s.Dir = filepath.Join(copyRoot, s.Rel)
		copied = append(copied, s)
	}
	var old string
	for _, line := range strings.Split(string(orig[srv[0].Rel+"/go.mod"]), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == RootModule {
			old = f[1]
		}
	}
	if old == "" {
		t.Fatalf("%s/go.mod does not require %s", srv[0].Rel, RootModule)
	}
	if err := CheckPrepared(copyRoot, copied, old); err != nil {
		t.Fatalf("the repository is not prepared at its own version: %v", err)
	}
	const next = "v1.8.9"
	changed, err := Prepare(copyRoot, copied, next)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != len(files)-1 { // all but LICENSE
		t.Errorf("prepare changed %d files, want %d: %v", len(changed), len(files)-1, changed)
	}
	if err := CheckPrepared(copyRoot, copied, next); err != nil {
		t.Error(err)
	}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(copyRoot, f))
		if strings.Contains(string(b), strings.TrimPrefix(old, "v")) && f != "LICENSE" {
			t.Errorf("%s still names %s after prepare %s:\n%s", f, old, next, b)
		}
	}
	gomod, _ := os.ReadFile(filepath.Join(copyRoot, srv[0].Rel, "go.mod"))
	if !strings.Contains(string(gomod), RootModule+" "+next) || strings.Contains(string(gomod), "replace") {
		t.Errorf("%s/go.mod after prepare:\n%s", srv[0].Rel, gomod)
	}
	if _, err := Prepare(copyRoot, copied, old); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(copyRoot, f))
		if string(b) != string(orig[f]) {
			t.Errorf("%s differs after preparing %s and back to %s:\n%s", f, next, old, b)
		}
	}
}

// TestPlatforms keeps DefaultPlatforms (release package's default, the platforms
// each npm package lists) equal to the Makefile's PLATFORMS.
func TestPlatforms(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "PLATFORMS := "); ok {
			if strings.Join(strings.Fields(v), " ") != DefaultPlatforms {
				t.Errorf("Makefile PLATFORMS %q, DefaultPlatforms %q: keep them equal", v, DefaultPlatforms)
			}
			return
		}
	}
	t.Error("Makefile has no PLATFORMS")
}
