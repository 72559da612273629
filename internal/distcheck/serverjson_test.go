package distcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// registrySchema compiles testdata/registry/server.schema.json (the MCP Registry's
// published schema; see SOURCE.md there) with format assertions on, and returns it
// with its $id, the URL each server.json's "$schema" must name.
func registrySchema(t *testing.T) (*jsonschema.Schema, string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), "testdata", "registry", "server.schema.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	if id == "" {
		t.Fatalf("%s has no $id", path)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return sch, id
}

// serverJSON holds the fields of a server.json the checks beyond the schema read.
type serverJSON struct {
	Schema     string `json:"$schema"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository struct {
		URL       string `json:"url"`
		Source    string `json:"source"`
		Subfolder string `json:"subfolder"`
	} `json:"repository"`
	Packages []struct {
		RegistryType    string `json:"registryType"`
		RegistryBaseURL string `json:"registryBaseUrl"`
		Identifier      string `json:"identifier"`
		Version         string `json:"version"`
		FileSha256      string `json:"fileSha256"`
		Transport       struct {
			Type string `json:"type"`
		} `json:"transport"`
		RuntimeHint          string         `json:"runtimeHint"`
		RuntimeArguments     []registryArg  `json:"runtimeArguments"`
		PackageArguments     []registryArg  `json:"packageArguments"`
		EnvironmentVariables []registryPair `json:"environmentVariables"`
	} `json:"packages"`
	Remotes []struct {
		Type      string                   `json:"type"`
		URL       string                   `json:"url"`
		Variables map[string]registryInput `json:"variables"`
		Headers   []registryPair           `json:"headers"`
	} `json:"remotes"`
}

type registryInput struct {
	Default  string `json:"default"`
	IsSecret bool   `json:"isSecret"`
}

type registryArg struct {
	Type      string                   `json:"type"`
	Name      string                   `json:"name"`
	Value     string                   `json:"value"`
	Default   string                   `json:"default"`
	Variables map[string]registryInput `json:"variables"`
}

type registryPair struct {
	Name      string                   `json:"name"`
	Value     string                   `json:"value"`
	IsSecret  bool                     `json:"isSecret"`
	Variables map[string]registryInput `json:"variables"`
}

// The registry's namespace, the image registry and npm scope of this repository's
// servers, and where releases keep their files (the MCP Bundles).
const (
	registryNamespace = "io.github.mcpkit/"
	imageRepository   = "ghcr.io/mcpkit/"
	npmScope          = "@mcpkit/"
	npmRegistry       = "https://registry.npmjs.org"
	sourceRepository  = "https://github.com/mcpkit/reference"
)

// secretName matches variables whose values are credentials, which server.json must
// mark isSecret so hosts store them as secrets: tokens, passwords, keys, DSNs, and a
// database URL (it usually carries the password).
var secretName = regexp.MustCompile(`(TOKEN|SECRET|PASSWORD|_KEY|_DSN)$|^DATABASE_URL$`)

// placeholder matches the {name} variables of registry values and URLs.
var placeholder = regexp.MustCompile(`\{([^{}]+)\}`)

// TestServerJSON validates every server's server.json against the registry's
// schema, then checks what the schema cannot: the name and repository are this
// server's, the OCI image is this server's at the file's version with stdio
// transport, every environment variable is one the server reads (and credentials are
// marked secret), the docker command a host assembles from the package (docker run -i
// --rm, the runtime arguments, the image, the package arguments) parses and its server
// arguments are accepted by the built binary, every {placeholder} has its variable,
// and remotes use the server's MCP path. A released server (not the template) also
// lists its npm package (@mcpkit/mcp-server-<name> at the file's version, run with
// npx, its arguments and variables checked like the image's) and one MCP Bundle per
// platform of make dist, at the release's download URL; the bundles' fileSha256,
// which the registry requires, is not in the repository's file (a hash of a file not
// yet built would be wrong): make dist writes dist/registry/<name>/server.json with
// them, and that is the file published. All servers carry one version.
func TestServerJSON(t *testing.T) {
	servers := builtServers(t)
	sch, schemaID := registrySchema(t)
	platforms := readMakefileDist(t, repoRoot(t)).Platforms
	versions := map[string]string{}
	for _, sd := range serverDirs {
		t.Run(sd.Name, func(t *testing.T) {
			path := filepath.Join(sd.Dir, "server.json")
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("each server needs a server.json for the MCP Registry: %v", err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s does not validate against the registry schema:\n%v", path, err)
			}
			var sj serverJSON
			if err := json.Unmarshal(raw, &sj); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			versions[sd.Name] = sj.Version
			for _, p := range checkServerJSON(sj, sd, schemaID, platforms) {
				t.Errorf("%s/server.json: %s", sd.Rel, p)
			}
			s := servers[sd.Name]
			if s == nil {
				return // did not build: reported by builtServers
			}
			for _, p := range checkServerJSONAgainstBinary(sj, s) {
				t.Errorf("%s/server.json: %s", sd.Rel, p)
			}
		})
	}
	distinct := map[string]bool{}
	for _, v := range versions {
		distinct[v] = true
	}
	if len(distinct) > 1 {
		t.Errorf("the servers are released together, so their server.json files carry one version; got %v", versions)
	}
}

// checkServerJSON checks the fields that follow from the server's name and place.
func checkServerJSON(sj serverJSON, sd ServerDir, schemaID string, platforms []string) []string {
	var problems []string
	want := struct{ Schema, Name, RepoURL, Source, Subfolder string }{
		schemaID, registryNamespace + sd.Name, sourceRepository, "github", sd.Rel,
	}
	got := struct{ Schema, Name, RepoURL, Source, Subfolder string }{
		sj.Schema, sj.Name, sj.Repository.URL, sj.Repository.Source, sj.Repository.Subfolder,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		problems = append(problems, "identity fields (-want +got):\n"+diff)
	}
	oci, npm := 0, 0
	bundles := map[string]bool{}
	for _, p := range sj.Packages {
		if p.Transport.Type != "stdio" {
			problems = append(problems, fmt.Sprintf("%s package %s: transport %q, want stdio (every package runs the binary on stdio)", p.RegistryType, p.Identifier, p.Transport.Type))
		}
		if p.RegistryType != "oci" && p.Version != sj.Version {
			problems = append(problems, fmt.Sprintf("%s package %s: version %q, want the file's %q", p.RegistryType, p.Identifier, p.Version, sj.Version))
		}
		switch p.RegistryType {
		case "npm":
			npm++
			if want := npmScope + sd.Cmd; p.Identifier != want {
				problems = append(problems, fmt.Sprintf("npm identifier %q, want %q (the package make dist packs)", p.Identifier, want))
			}
			if p.RuntimeHint != "npx" || p.RegistryBaseURL != npmRegistry {
				problems = append(problems, fmt.Sprintf("npm package: runtimeHint %q and registryBaseUrl %q, want \"npx\" and %q", p.RuntimeHint, p.RegistryBaseURL, npmRegistry))
			}
			problems = append(problems, packageVariables(p.EnvironmentVariables, p.PackageArguments)...)
			continue
		case "mcpb":
			bundles[p.Identifier] = true
			if p.FileSha256 != "" {
				problems = append(problems, fmt.Sprintf("MCPB package %s has a fileSha256: the repository's file has none (the bundle is built by the release); make dist writes dist/registry/%s/server.json with the hashes", p.Identifier, sd.Name))
			}
			continue
		case "oci":
		default:
			problems = append(problems, fmt.Sprintf("package type %q: the servers publish oci, npm and mcpb packages", p.RegistryType))
			continue
		}
		oci++
		wantID := imageRepository + sd.Cmd + ":v" + sj.Version
		if p.Identifier != wantID {
			problems = append(problems, fmt.Sprintf("OCI identifier %q, want %q (this server's image, tagged v<version> as make images tags it)", p.Identifier, wantID))
		}
		if p.Transport.Type != "stdio" {
			problems = append(problems, fmt.Sprintf("OCI package transport %q: the image's entrypoint serves stdio", p.Transport.Type))
		}
		if len(p.RuntimeArguments) > 0 && p.RuntimeHint != "docker" {
			problems = append(problems, fmt.Sprintf("runtimeHint %q with runtime arguments for docker: want \"docker\"", p.RuntimeHint))
		}
		problems = append(problems, packageVariables(p.EnvironmentVariables, append(append([]registryArg{}, p.RuntimeArguments...), p.PackageArguments...))...)
	}
	if !sd.Example() {
		if npm != 1 {
			problems = append(problems, fmt.Sprintf("%d npm packages, want 1 (%s%s, which make dist packs)", npm, npmScope, sd.Cmd))
		}
		for _, pl := range platforms {
			goos, goarch, _ := strings.Cut(pl, "/")
			want := fmt.Sprintf("%s/releases/download/v%s/%s_%s_%s_%s.mcpb", sourceRepository, sj.Version, sd.Cmd, sj.Version, goos, goarch)
			if !bundles[want] {
				problems = append(problems, fmt.Sprintf("no MCPB package %s (make dist builds a bundle per platform)", want))
			}
			delete(bundles, want)
		}
		for id := range bundles {
			problems = append(problems, fmt.Sprintf("MCPB package %s is not a bundle make dist builds", id))
		}
	}
	if oci != 1 {
		problems = append(problems, fmt.Sprintf("%d OCI packages, want 1 (the image make images builds)", oci))
	}
	for _, r := range sj.Remotes {
		problems = append(problems, undefinedPlaceholders("remote URL", r.URL, r.Variables)...)
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Authorization") && !h.IsSecret {
				problems = append(problems, "the Authorization header carries a token: mark it \"isSecret\": true")
			}
			problems = append(problems, undefinedPlaceholders("header "+h.Name, h.Value, h.Variables)...)
		}
	}
	return problems
}

// packageVariables checks a package's environment variables and arguments: every
// credential marked secret, every {placeholder} defined.
func packageVariables(env []registryPair, args []registryArg) []string {
	var problems []string
	for _, e := range env {
		if secretName.MatchString(e.Name) && !e.IsSecret {
			problems = append(problems, fmt.Sprintf("environment variable %s holds a credential: mark it \"isSecret\": true", e.Name))
		}
		problems = append(problems, undefinedPlaceholders("environment variable "+e.Name, e.Value, e.Variables)...)
	}
	for _, a := range args {
		problems = append(problems, undefinedPlaceholders("argument "+a.Name, a.Value, a.Variables)...)
	}
	return problems
}

// undefinedPlaceholders reports the {name} placeholders of value that vars lacks:
// hosts would pass them literally.
func undefinedPlaceholders(what, value string, vars map[string]registryInput) []string {
	var problems []string
	for _, m := range placeholder.FindAllStringSubmatch(value, -1) {
		if _, ok := vars[m[1]]; !ok {
			problems = append(problems, fmt.Sprintf("%s: {%s} has no entry in its \"variables\"", what, m[1]))
		}
	}
	return problems
}

// fillPlaceholders replaces each {name} with the variable's default, or a stand-in.
func fillPlaceholders(value string, vars map[string]registryInput) string {
	return placeholder.ReplaceAllStringFunc(value, func(m string) string {
		if v, ok := vars[m[1:len(m)-1]]; ok && v.Default != "" {
			return v.Default
		}
		return "placeholder"
	})
}

// argWords renders registry arguments as a host does: a named argument as its name
// and, when it has one, its value; a positional one as its value.
func argWords(args []registryArg) []string {
	var words []string
	for _, a := range args {
		v := a.Value
		if v == "" {
			v = a.Default
		}
		v = fillPlaceholders(v, a.Variables)
		switch a.Type {
		case "named":
			words = append(words, a.Name)
			if v != "" {
				words = append(words, v)
			}
		default:
			words = append(words, v)
		}
	}
	return words
}

// checkServerJSONAgainstBinary checks the server.json against what the built server
// accepts.
func checkServerJSONAgainstBinary(sj serverJSON, s *Server) []string {
	var problems []string
	for _, p := range sj.Packages {
		if p.RegistryType == "npm" {
			// npx -y <package> ARGS: the arguments go to the server as they are.
			var env []string
			for _, e := range p.EnvironmentVariables {
				env = append(env, e.Name)
			}
			problems = append(problems, s.UnknownEnv(env)...)
			args := argWords(p.PackageArguments)
			if unknown := s.UnknownFlags(args); len(unknown) > 0 {
				problems = append(problems, unknown...)
			} else if err := s.AcceptsArgs(context.Background(), args); err != nil {
				problems = append(problems, "npm package arguments: "+err.Error())
			}
			continue
		}
		if p.RegistryType != "oci" {
			continue
		}
		var env []string
		for _, e := range p.EnvironmentVariables {
			env = append(env, e.Name)
		}
		problems = append(problems, s.UnknownEnv(env)...)
		words := append([]string{"run", "-i", "--rm"}, argWords(p.RuntimeArguments)...)
		words = append(words, p.Identifier)
		words = append(words, argWords(p.PackageArguments)...)
		run, err := ParseDockerRun(words)
		if err != nil {
			problems = append(problems, fmt.Sprintf("docker %s: %v", strings.Join(words, " "), err))
			continue
		}
		if run.Server != s.Name {
			problems = append(problems, fmt.Sprintf("the image runs server %q, not %q", run.Server, s.Name))
		}
		if unknown := s.UnknownFlags(run.Args); len(unknown) > 0 {
			problems = append(problems, unknown...)
		} else if err := s.AcceptsArgs(context.Background(), run.Args); err != nil {
			problems = append(problems, "package arguments: "+err.Error())
		}
	}
	for _, r := range sj.Remotes {
		u, err := url.Parse(fillPlaceholders(r.URL, r.Variables))
		if err != nil {
			problems = append(problems, fmt.Sprintf("remote URL %q: %v", r.URL, err))
			continue
		}
		if r.Type != "streamable-http" {
			problems = append(problems, fmt.Sprintf("remote type %q: the servers speak Streamable HTTP", r.Type))
		}
		if u.Path != s.HTTPPath {
			problems = append(problems, fmt.Sprintf("remote URL %q: the server's MCP path is %s", r.URL, s.HTTPPath))
		}
	}
	return problems
}

// TestRegistrySchemaRejects proves the schema copy and validator are live: each
// broken variant of a valid server.json must fail validation.
func TestRegistrySchemaRejects(t *testing.T) {
	sch, id := registrySchema(t)
	valid := func() map[string]any {
		return map[string]any{
			"$schema": id, "name": "io.github.mcpkit/example", "description": "An example", "version": "0.1.0",
			"packages": []any{map[string]any{
				"registryType": "oci", "identifier": "ghcr.io/mcpkit/mcp-server-example:v0.1.0",
				"transport": map[string]any{"type": "stdio"},
			}},
			"remotes": []any{map[string]any{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}},
		}
	}
	if err := sch.Validate(valid()); err != nil {
		t.Fatalf("the valid example fails: %v", err)
	}
	pkg := func(m map[string]any) map[string]any { return m["packages"].([]any)[0].(map[string]any) }
	tests := []struct {
		name   string
		mutate func(map[string]any)
	}{
		{"name without a namespace", func(m map[string]any) { m["name"] = "example" }},
		{"description over 100 characters", func(m map[string]any) { m["description"] = strings.Repeat("x", 101) }},
		{"no version", func(m map[string]any) { delete(m, "version") }},
		{"package without transport", func(m map[string]any) { delete(pkg(m), "transport") }},
		{"package without identifier", func(m map[string]any) { delete(pkg(m), "identifier") }},
		{"unknown transport", func(m map[string]any) { pkg(m)["transport"] = map[string]any{"type": "websocket"} }},
		{"package version latest", func(m map[string]any) { pkg(m)["version"] = "latest" }},
		{"remote URL that is not http", func(m map[string]any) {
			m["remotes"] = []any{map[string]any{"type": "streamable-http", "url": "ftp://x/mcp"}}
		}},
		{"positional argument without value or valueHint", func(m map[string]any) {
			pkg(m)["packageArguments"] = []any{map[string]any{"type": "positional"}}
		}},
		{"environment variable without name", func(m map[string]any) {
			pkg(m)["environmentVariables"] = []any{map[string]any{"isSecret": true}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valid()
			tt.mutate(m)
			if err := sch.Validate(m); err == nil {
				t.Errorf("validation passed; the registry schema rejects %s", tt.name)
			}
		})
	}
}
