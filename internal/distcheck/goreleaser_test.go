package distcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"
)

// goreleaserConfig is the part of .goreleaser.yaml the test reads.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Dir     string   `yaml:"dir"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		ID  string   `yaml:"id"`
		IDs []string `yaml:"ids"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

// makefileDist is what the Makefile's dist target builds with.
type makefileDist struct {
	LDFlags   string   // LDFLAGS, with $(VERSION) as is
	Platforms []string // PLATFORMS: linux/amd64 ...
	BuildLine string   // the go build command of the dist target
}

// readMakefileDist reads LDFLAGS, PLATFORMS and the dist target's go build line.
func readMakefileDist(t *testing.T, root string) makefileDist {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var md makefileDist
	inDist := false
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "LDFLAGS := "); ok {
			md.LDFlags = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "PLATFORMS := "); ok {
			md.Platforms = strings.Fields(v)
		}
		if strings.HasPrefix(line, "dist:") {
			inDist = true
			continue
		}
		if inDist && strings.Contains(line, "go build") {
			md.BuildLine = line
			inDist = false
		}
	}
	if md.LDFlags == "" || len(md.Platforms) == 0 || md.BuildLine == "" {
		t.Fatalf("Makefile: could not find LDFLAGS, PLATFORMS and the dist target's go build (got %+v)", md)
	}
	return md
}

// goreleaserVersion is the template .goreleaser.yaml stamps the version with: the
// tag, which is what the Makefile's VERSION (git describe) gives on a tagged commit.
const goreleaserVersion = "{{ .Tag }}"

var spaces = regexp.MustCompile(`\s+`)

// TestGoreleaserConfig checks .goreleaser.yaml against the servers and the Makefile:
// every server with a cmd/ (examples/hello aside: it is not released) has a build in its module directory with main
// ./cmd/mcp-server-<name> and binary mcp-server-<name>; every build has the Makefile
// dist target's ldflags (version placeholder aside), -trimpath, CGO_ENABLED=0 and
// exactly its platforms; no build names a server that does not exist; each build is
// in exactly one archive; and the checksum file is SHA256SUMS as make dist writes it.
// (The file also loads strictly with GoReleaser v2.15.1's own config package; that
// check needs GoReleaser's module and is not run here.)
func TestGoreleaserConfig(t *testing.T) {
	root := repoRoot(t)
	all, err := FindServers(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []ServerDir
	for _, sd := range all {
		if !sd.Example() { // make dist builds servers/*/cmd only
			dirs = append(dirs, sd)
		}
	}
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf(".goreleaser.yaml version %d: GoReleaser v2 reads only version: 2", cfg.Version)
	}
	md := readMakefileDist(t, root)
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-ldflags '$(LDFLAGS)'"} {
		if !strings.Contains(md.BuildLine, want) {
			t.Errorf("the Makefile's dist build no longer has %s; update this test and .goreleaser.yaml together:\n%s", want, md.BuildLine)
		}
	}
	var wantPlatforms []string
	wantPlatforms = append(wantPlatforms, md.Platforms...)
	slices.Sort(wantPlatforms)

	byID := map[string]int{}
	for i, b := range cfg.Builds {
		byID[b.ID] = i
	}
	for _, sd := range dirs {
		t.Run(sd.Name, func(t *testing.T) {
			i, ok := byID[sd.Name]
			if !ok {
				t.Fatalf(".goreleaser.yaml has no build with id %q for servers/%s", sd.Name, sd.Name)
			}
			b := cfg.Builds[i]
			type buildPlace struct{ Dir, Main, Binary string }
			if diff := cmp.Diff(buildPlace{sd.Rel, "./cmd/" + sd.Cmd, sd.Cmd}, buildPlace{b.Dir, b.Main, b.Binary}); diff != "" {
				t.Errorf("build %q (-want +got):\n%s", b.ID, diff)
			}
			ld := strings.ReplaceAll(spaces.ReplaceAllString(strings.Join(b.Ldflags, " "), " "), goreleaserVersion, "$(VERSION)")
			if ld != md.LDFlags {
				t.Errorf("build %q ldflags %q, want the Makefile's %q with $(VERSION) as %s", b.ID, strings.Join(b.Ldflags, " "), md.LDFlags, goreleaserVersion)
			}
			if !slices.Contains(b.Env, "CGO_ENABLED=0") {
				t.Errorf("build %q env %q lacks CGO_ENABLED=0 (static binaries, as make dist builds)", b.ID, b.Env)
			}
			if !slices.Contains(b.Flags, "-trimpath") {
				t.Errorf("build %q flags %q lack -trimpath", b.ID, b.Flags)
			}
			var got []string
			for _, goos := range b.Goos {
				for _, arch := range b.Goarch {
					got = append(got, goos+"/"+arch)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(wantPlatforms, got); diff != "" {
				t.Errorf("build %q platforms differ from the Makefile's PLATFORMS (-want +got):\n%s", b.ID, diff)
			}
			n := 0
			for _, a := range cfg.Archives {
				if slices.Contains(a.IDs, b.ID) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("build %q is in %d archives, want 1", b.ID, n)
			}
		})
	}
	for _, b := range cfg.Builds {
		if !slices.ContainsFunc(dirs, func(sd ServerDir) bool { return sd.Name == b.ID }) {
			t.Errorf(".goreleaser.yaml builds %q, which is not a server with servers/%s/cmd", b.ID, b.ID)
		}
	}
	if got := fmt.Sprintf("%s %s", cfg.Checksum.NameTemplate, cfg.Checksum.Algorithm); got != "SHA256SUMS sha256" {
		t.Errorf("checksum %q, want \"SHA256SUMS sha256\" as make dist writes it", got)
	}
}
