package distcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// ServerDir is a server of this repository: servers/<Name> (or the template,
// examples/<Name>) with its command in cmd/mcp-server-<Name>.
type ServerDir struct {
	Name string // "github"
	Rel  string // "servers/github", or "examples/hello": its place in the repository
	Dir  string // absolute path of servers/github
	Cmd  string // "mcp-server-github"
}

// Example reports whether the server is an example (the template, examples/hello):
// checked like the servers, but neither released nor held to the servers' README
// host coverage.
func (sd ServerDir) Example() bool { return strings.HasPrefix(sd.Rel, "examples/") }

// FindServers lists every servers/*/ and examples/*/ that has a cmd/ directory, so a
// new server is covered by the checks as soon as it has a command. A cmd/ without
// cmd/mcp-server-<name> is an error: every check relies on that name.
func FindServers(root string) ([]ServerDir, error) {
	var out []ServerDir
	for _, parent := range []string{"servers", "examples"} {
		dirs, err := filepath.Glob(filepath.Join(root, parent, "*", "cmd"))
		if err != nil {
			return nil, err
		}
		for _, cmdDir := range dirs {
			if fi, err := os.Stat(cmdDir); err != nil || !fi.IsDir() {
				continue
			}
			dir := filepath.Dir(cmdDir)
			name := filepath.Base(dir)
			cmd := "mcp-server-" + name
			if fi, err := os.Stat(filepath.Join(cmdDir, cmd)); err != nil || !fi.IsDir() {
				return nil, fmt.Errorf("%s has no %s: each server's command is cmd/mcp-server-<server directory name>", cmdDir, cmd)
			}
			if slices.ContainsFunc(out, func(sd ServerDir) bool { return sd.Name == name }) {
				return nil, fmt.Errorf("%s/%s has the name of a server: names must be unique", parent, name)
			}
			out = append(out, ServerDir{Name: name, Rel: parent + "/" + name, Dir: dir, Cmd: cmd})
		}
	}
	return out, nil
}

// Server is what a built server binary accepts: its flags (from its own -h output)
// and the environment variables it reads.
type Server struct {
	ServerDir
	Module string // its Go module path
	Binary string // path of the built binary
	// Flags maps each flag name (without dashes) to whether it takes a value, as the
	// flag package prints it: "  -name type" for a value, "  -name" for a boolean.
	Flags map[string]bool
	// Env is every environment variable the server reads: see ScanEnv.
	Env map[string]bool
	// HTTPPath is the default of --http-path, the path remote URLs must use.
	HTTPPath string
	// LinksJWT reports whether the command links package auth/jwt, without which the
	// server refuses --auth-issuer (serve.Flags.JWT unset).
	LinksJWT bool
	// LinksOtel reports whether the command links package otelmcp, without which the
	// server refuses --otel (serve.Flags.Telemetry unset).
	LinksOtel bool
}

// VersionLDFlag is the -X setting that stamps the version, as the Makefile's LDFLAGS
// and .goreleaser.yaml use it.
const VersionLDFlag = "github.com/mcpkit/reference/pkg/mcpkit.Version"

// BuildServer builds the server's command into outDir with the version stamped in,
// then learns its flags from `-h` and its environment variables from its source.
func BuildServer(ctx context.Context, sd ServerDir, outDir, version string) (*Server, error) {
	s := &Server{ServerDir: sd, Binary: filepath.Join(outDir, sd.Cmd)}
	build := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X "+VersionLDFlag+"="+version, "-o", s.Binary, "./cmd/"+sd.Cmd)
	build.Dir = sd.Dir
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/%s in %s: %v\n%s", sd.Cmd, sd.Dir, err, out)
	}
	help := exec.CommandContext(ctx, s.Binary, "-h")
	help.Env = []string{"HOME=" + outDir, "PATH=" + os.Getenv("PATH")}
	out, err := help.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s -h: %v (a server's -h must print its flags and exit 0)\n%s", sd.Cmd, err, out)
	}
	var helpEnv []string
	s.Flags, helpEnv, s.HTTPPath = ParseHelp(string(out))
	if len(s.Flags) == 0 {
		return nil, fmt.Errorf("%s -h printed no flags:\n%s", sd.Cmd, out)
	}
	mod, files, imports, err := linkedSources(ctx, sd)
	if err != nil {
		return nil, err
	}
	s.Module = mod
	s.LinksJWT = slices.Contains(imports, jwtPackage)
	s.LinksOtel = slices.Contains(imports, otelPackage)
	srcEnv, err := ScanEnv(files)
	if err != nil {
		return nil, err
	}
	s.Env = map[string]bool{}
	for _, list := range [][]string{serve.StandardEnv(), helpEnv, srcEnv} {
		for _, e := range list {
			s.Env[e] = true
		}
	}
	return s, nil
}

var (
	helpFlagLine = regexp.MustCompile(`^  -([A-Za-z0-9][A-Za-z0-9_.-]*)(?: (.+?))?(?:\t.*)?$`)
	helpEnv      = regexp.MustCompile(`\(env ([A-Z][A-Z0-9_]*)`)
	helpDefault  = regexp.MustCompile(`\(default "([^"]*)"\)`)
)

// ParseHelp reads the flag package's PrintDefaults output: each flag, whether it
// takes a value, the variables named "(env NAME" in the usage texts, and the default
// of -http-path.
func ParseHelp(help string) (flags map[string]bool, env []string, httpPath string) {
	flags = map[string]bool{}
	current := ""
	for _, line := range strings.Split(help, "\n") {
		if m := helpFlagLine.FindStringSubmatch(line); m != nil {
			current = m[1]
			flags[current] = m[2] != ""
		}
		for _, m := range helpEnv.FindAllStringSubmatch(line, -1) {
			env = append(env, m[1])
		}
		if current == "http-path" {
			if m := helpDefault.FindStringSubmatch(line); m != nil {
				httpPath = m[1]
			}
		}
	}
	return flags, env, httpPath
}

// jwtPackage is mcpkit's JWT verifier, which a command links to accept --auth-issuer.
const jwtPackage = "github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"

// otelPackage is mcpkit's OpenTelemetry package, which a command links to accept --otel.
const otelPackage = "github.com/mcpkit/reference/pkg/mcpkit/otelmcp"

// linkedSources returns the server's module path, the non-test Go files of its
// module's packages that its command links in (for the build's GOOS), and the import
// path of every package it links, from go list. Test helpers and packages the binary
// does not use are left out: a variable only a test reads is not one a user can set.
func linkedSources(ctx context.Context, sd ServerDir) (string, []string, []string, error) {
	list := exec.CommandContext(ctx, "go", "list", "-deps", "-json=ImportPath,Name,Dir,GoFiles,Module", "./cmd/"+sd.Cmd)
	list.Dir = sd.Dir
	out, err := list.Output()
	if err != nil {
		return "", nil, nil, fmt.Errorf("go list -deps ./cmd/%s in %s: %v", sd.Cmd, sd.Dir, err)
	}
	type pkg struct {
		ImportPath, Name, Dir string
		GoFiles               []string
		Module                *struct{ Path string }
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return "", nil, nil, fmt.Errorf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	// -deps lists dependencies first: the command itself comes last, and its module
	// is the server's.
	if len(pkgs) == 0 || pkgs[len(pkgs)-1].Name != "main" || pkgs[len(pkgs)-1].Module == nil {
		return "", nil, nil, fmt.Errorf("go list -deps ./cmd/%s in %s: the command is not a main package of a module", sd.Cmd, sd.Dir)
	}
	mod := pkgs[len(pkgs)-1].Module.Path
	var files, imports []string
	for _, p := range pkgs {
		imports = append(imports, p.ImportPath)
		if p.Module == nil || p.Module.Path != mod {
			continue
		}
		for _, f := range p.GoFiles {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	return mod, files, imports, nil
}

var envShaped = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

// ScanEnv returns the environment variable names in Go source files: every string
// literal shaped like one (upper case words joined by underscores: SENTRY_AUTH_TOKEN,
// in a getenv call, a constant, a map of flag variables or a list of alternatives
// alike), and every string literal passed straight to a function named getenv or
// lookupEnv in any case (os.Getenv("HOME")). Together with the "(env NAME)" of the
// flags' help and serve.StandardEnv(), this covers every way the servers read
// their environment without following data flow; the cost is that an unrelated
// upper-case literal in a server would count as a variable, which the servers'
// sources do not have.
func ScanEnv(files []string) ([]string, error) {
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if v, ok := stringLit(n); ok && envShaped.MatchString(v) {
					seen[v] = true
				}
			case *ast.CallExpr:
				if isGetenv(n.Fun) {
					for _, a := range n.Args {
						if lit, ok := a.(*ast.BasicLit); ok {
							if v, ok := stringLit(lit); ok && v != "" {
								seen[v] = true
							}
						}
					}
				}
			}
			return true
		})
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

func stringLit(l *ast.BasicLit) (string, bool) {
	if l.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(l.Value)
	return v, err == nil
}

// isGetenv reports whether a call's function is named getenv or lookupEnv (os.Getenv,
// os.LookupEnv, a getenv parameter).
func isGetenv(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	name = strings.ToLower(name)
	return name == "getenv" || name == "lookupenv"
}

// UnknownFlags returns a problem for each flag in args the server does not define.
// Flag syntax is the flag package's: -name or --name, -name=value, or -name value for
// a flag that takes one; "--" ends the flags; other words are positional.
func (s *Server) UnknownFlags(args []string) []string {
	var problems []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takesValue, ok := s.Flags[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no flag %s (its flags: %s)", s.Cmd, a, strings.Join(s.flagNames(), " ")))
			continue
		}
		if takesValue && !hasValue {
			i++ // the value, which may itself start with a dash
		}
	}
	return problems
}

// UnknownEnv returns a problem for each variable the server does not read.
func (s *Server) UnknownEnv(names []string) []string {
	var problems []string
	for _, n := range names {
		if !s.Env[n] {
			problems = append(problems, fmt.Sprintf("%s does not read the environment variable %s", s.Cmd, n))
		}
	}
	return problems
}

// AcceptsArgs runs the binary with --version before args, so its own flag parser
// judges them (a bad value for a duration or number flag, a stray argument for a
// server that takes none) and it exits before serving. It returns the parser's
// complaint, or nil.
func (s *Server) AcceptsArgs(ctx context.Context, args []string) error {
	cmd := exec.CommandContext(ctx, s.Binary, append([]string{"--version"}, args...)...)
	cmd.Env = []string{"HOME=" + filepath.Dir(s.Binary), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version %s: %v: %s", s.Cmd, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	if !strings.HasPrefix(stdout.String(), s.Cmd+" ") {
		return fmt.Errorf("%s --version %s printed %q, not the version: the arguments were not all parsed as flags", s.Cmd, strings.Join(args, " "), stdout.String())
	}
	return nil
}

func (s *Server) flagNames() []string {
	names := make([]string, 0, len(s.Flags))
	for n := range s.Flags {
		names = append(names, "--"+n)
	}
	slices.Sort(names)
	return names
}
