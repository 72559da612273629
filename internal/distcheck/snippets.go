package distcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Mode is how a snippet runs a server.
type Mode string

// The three ways every server README must show for each host, and npx, which the
// root README's install table shows too.
const (
	Binary    Mode = "binary"    // the mcp-server-* binary on the host
	Container Mode = "container" // docker run -i --rm … image
	Remote    Mode = "remote"    // a server already serving Streamable HTTP, by URL
	Npx       Mode = "npx"       // npx -y @mcpkit/mcp-server-* (the npm package)
)

// NpmScope is the npm scope of the servers' packages: @mcpkit/mcp-server-<name>.
const NpmScope = "@mcpkit"

// RequiredModes lists the modes in the order reports name them.
var RequiredModes = []Mode{Binary, Container, Remote}

// Launch is one way a README tells a user to start or reach a server: an entry of a
// host's JSON config, a `claude mcp add` line, or a plain `docker run` or
// `mcp-server-*` command line.
type Launch struct {
	File   string
	Line   int    // the shell line, or the first line of the JSON block
	Source string // the snippet text, for failure messages
	Host   Host   // empty for a plain command line
	Entry  string // the server's key in the host config, or the claude mcp add name
	Mode   Mode
	Server string   // "github" for mcp-server-github; empty for a remote URL
	Args   []string // arguments given to the server (after the binary or the image)
	Env    []string // environment variables given to the server, by name
	URL    string   // Remote only
	// DockerEnv are the variables the host sets for the docker process itself; each
	// reaches the server only when docker passes it on with -e NAME.
	DockerEnv []string
}

// Where names the launch for failure messages: file, line, host and entry.
func (l Launch) Where() string {
	w := fmt.Sprintf("%s:%d", l.File, l.Line)
	if l.Host != "" {
		w += " " + string(l.Host)
	}
	if l.Entry != "" {
		w += fmt.Sprintf(" entry %q", l.Entry)
	}
	return w
}

// SnippetError is a snippet that could not be understood: a fault of the README,
// reported with its place.
type SnippetError struct {
	File string
	Line int
	Msg  string
}

func (e *SnippetError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

var (
	shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "zsh": true}
	envAssign  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	inputRef   = regexp.MustCompile(`\$\{input:([^}]+)\}`)
)

// ParseMarkdown finds every launch in a Markdown document: the server entries of
// each JSON block that is a host config (a top-level "mcpServers" or "servers"
// object), and each shell line that runs `claude mcp add`, `docker run`/`podman run`
// or an mcp-server-* binary. Blocks of other kinds are skipped. Snippets that look
// like launches but cannot be parsed come back as errors.
func ParseMarkdown(file, src string) ([]Launch, []error) {
	var launches []Launch
	var errs []error
	for _, b := range FencedBlocks(src) {
		switch {
		case b.Lang == "json" || b.Lang == "jsonc":
			ls, err := parseHostConfig(file, b)
			launches = append(launches, ls...)
			errs = append(errs, err...)
		case shellLangs[b.Lang]:
			for _, nl := range LogicalLines(b.Text, b.Line, b.Lang == "console") {
				l, ok, err := parseShellLine(file, nl)
				if err != nil {
					errs = append(errs, err)
				} else if ok {
					launches = append(launches, l)
				}
			}
		}
	}
	return launches, errs
}

// configEntry is one server of a host config: the fields Claude Desktop, Cursor, Claude
// Code's .mcp.json and VS Code share.
type configEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// parseHostConfig reads a JSON block that is a host config; other JSON blocks give
// nothing.
func parseHostConfig(file string, b Block) ([]Launch, []error) {
	fail := func(format string, a ...any) error {
		return &SnippetError{File: file, Line: b.Line, Msg: fmt.Sprintf(format, a...)}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(b.Text), &top); err != nil {
		if strings.Contains(b.Text, `"mcpServers"`) || strings.Contains(b.Text, `"servers"`) {
			return nil, []error{fail("host config block is not valid JSON (hosts reject it too): %v", err)}
		}
		return nil, nil
	}
	key := ""
	switch {
	case top["mcpServers"] != nil:
		key = "mcpServers"
	case top["servers"] != nil:
		key = "servers"
	default:
		return nil, nil // not a host config (a server.json, a result, ...)
	}
	host := b.Host
	// VS Code's mcp.json names the object "servers"; Claude Desktop, Cursor and Claude
	// Code's .mcp.json name it "mcpServers". A block labelled for one host in the
	// other's shape does not load in that host.
	switch {
	case host == "" && key == "servers":
		host = VSCode
	case host == VSCode && key != "servers":
		return nil, []error{fail(`VS Code's mcp.json keeps servers under "servers", not %q`, key)}
	case host != "" && host != VSCode && key != "mcpServers":
		return nil, []error{fail(`%s's config keeps servers under "mcpServers", not %q`, host, key)}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(top[key], &entries); err != nil {
		return nil, []error{fail("%q: %v", key, err)}
	}
	var inputs []struct {
		ID string `json:"id"`
	}
	if raw := top["inputs"]; raw != nil {
		if err := json.Unmarshal(raw, &inputs); err != nil {
			return nil, []error{fail(`"inputs": %v`, err)}
		}
	}
	// An ${input:id} that "inputs" does not define is left unreplaced by VS Code.
	var errs []error
	for _, m := range inputRef.FindAllStringSubmatch(b.Text, -1) {
		if !slices.ContainsFunc(inputs, func(in struct {
			ID string `json:"id"`
		}) bool {
			return in.ID == m[1]
		}) {
			errs = append(errs, fail("${input:%s} is used but \"inputs\" does not define it", m[1]))
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var launches []Launch
	for _, name := range names {
		var e configEntry
		if err := json.Unmarshal(entries[name], &e); err != nil {
			errs = append(errs, fail("entry %q: %v", name, err))
			continue
		}
		l := Launch{File: file, Line: b.Line, Source: compactJSON(entries[name]), Host: host, Entry: name}
		if err := l.fromConfigEntry(e); err != nil {
			errs = append(errs, fail("entry %q: %v", name, err))
			continue
		}
		launches = append(launches, l)
	}
	return launches, errs
}

// fromConfigEntry fills the launch from a host config entry.
func (l *Launch) fromConfigEntry(e configEntry) error {
	env := sortedKeys(e.Env)
	if e.URL != "" {
		if e.Command != "" {
			return fmt.Errorf(`has both "url" and "command"`)
		}
		if l.Host == ClaudeDesktop {
			// claude_desktop_config.json starts local commands only; remote servers are
			// added as connectors in the app, or through a local proxy such as
			// `npx mcp-remote URL`.
			return fmt.Errorf(`claude_desktop_config.json has no "url" entries: use "command": "npx", "args": ["mcp-remote", %q]`, e.URL)
		}
		switch e.Type {
		case "", "http", "streamable-http", "streamableHttp":
		default:
			return fmt.Errorf("type %q: the servers speak Streamable HTTP (type \"http\")", e.Type)
		}
		l.Mode, l.URL = Remote, e.URL
		return nil
	}
	if e.Command == "" {
		return fmt.Errorf(`has neither "command" nor "url"`)
	}
	if e.Type != "" && e.Type != "stdio" {
		return fmt.Errorf("type %q with a command: a command is a stdio server", e.Type)
	}
	return l.fromCommand(append([]string{e.Command}, e.Args...), env)
}

// fromCommand classifies a command line (command word first) and fills the launch:
// an mcp-server-* binary, docker/podman run, or npx mcp-remote URL.
func (l *Launch) fromCommand(words, env []string) error {
	if len(words) == 0 {
		return fmt.Errorf("empty command")
	}
	base := path.Base(strings.ReplaceAll(words[0], `\`, "/"))
	base = strings.TrimSuffix(base, ".exe")
	switch {
	case strings.HasPrefix(base, "mcp-server-"):
		l.Mode, l.Server, l.Args, l.Env = Binary, strings.TrimPrefix(base, "mcp-server-"), words[1:], env
		return nil
	case base == "docker" || base == "podman":
		run, err := ParseDockerRun(words[1:])
		if err != nil {
			return err
		}
		l.Mode, l.Server, l.Args, l.Env, l.DockerEnv = Container, run.Server, run.Args, run.Env, env
		if l.Host != "" && !hasInteractive(run.Options) {
			return fmt.Errorf("docker run without -i: the host talks to the server on stdin, which docker closes without -i")
		}
		for _, name := range run.Env {
			// -e NAME without a value passes the docker process's own variable on.
			if !run.EnvValued[name] && !slices.Contains(env, name) && l.Host != "" {
				return fmt.Errorf("docker -e %s passes %s from the host's environment, but the config's \"env\" does not set it", name, name)
			}
		}
		return nil
	case base == "npx":
		for i, w := range words {
			if w == "mcp-remote" || strings.HasPrefix(w, "mcp-remote@") {
				for _, u := range words[i+1:] {
					if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
						l.Mode, l.URL = Remote, u
						return nil
					}
				}
				return fmt.Errorf("npx mcp-remote without a URL")
			}
		}
		// npx [its options] @mcpkit/mcp-server-<name>[@version] ARGS...: everything after
		// the package goes to the server.
		for i, w := range words[1:] {
			if strings.HasPrefix(w, "-") {
				if w == "-p" || w == "--package" || w == "-c" || w == "--call" {
					return fmt.Errorf("npx %s: name the package as the command (npx -y %s/mcp-server-NAME ARGS)", w, NpmScope)
				}
				continue // -y, --yes, --offline, --quiet
			}
			name := w
			if at := strings.LastIndexByte(w, '@'); at > 0 {
				name = w[:at] // @mcpkit/mcp-server-x@1.2.3
			}
			server, ok := strings.CutPrefix(name, NpmScope+"/mcp-server-")
			if !ok || server == "" {
				return fmt.Errorf("npx %s: not a server package of this repository (%s/mcp-server-NAME) nor mcp-remote", w, NpmScope)
			}
			if !hasYes(words[1:i+1]) && l.Host != "" {
				return fmt.Errorf("npx without -y: npx asks before installing, and a host gives it no terminal to answer on")
			}
			l.Mode, l.Server, l.Args, l.Env = Npx, server, words[i+2:], env
			return nil
		}
	}
	return fmt.Errorf("command %q is none of an mcp-server-* binary, npx %s/mcp-server-*, docker/podman run, or npx mcp-remote URL", words[0], NpmScope)
}

// parseShellLine reads one logical shell line. ok is false for lines that launch
// nothing (docker build, go test, cd, ...).
func parseShellLine(file string, nl NumberedLine) (Launch, bool, error) {
	fail := func(format string, a ...any) error {
		return &SnippetError{File: file, Line: nl.Line, Msg: fmt.Sprintf(format, a...) + ": " + nl.Text}
	}
	words, err := SplitShell(nl.Text)
	if err != nil {
		return Launch{}, false, fail("%v", err)
	}
	var env []string
	for len(words) > 0 && envAssign.MatchString(words[0]) {
		env = append(env, words[0][:strings.IndexByte(words[0], '=')])
		words = words[1:]
	}
	if len(words) == 0 {
		return Launch{}, false, nil
	}
	l := Launch{File: file, Line: nl.Line, Source: nl.Text}
	base := path.Base(words[0])
	switch {
	case base == "claude" && len(words) > 2 && words[1] == "mcp" && words[2] == "add":
		l.Host = ClaudeCode
		if err := l.fromClaudeAdd(words[3:], env); err != nil {
			return Launch{}, false, fail("%v", err)
		}
		return l, true, nil
	case (base == "docker" || base == "podman") && len(words) > 1 && words[1] == "run",
		strings.HasPrefix(strings.TrimSuffix(base, ".exe"), "mcp-server-"),
		base == "npx" && slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, NpmScope+"/") }):
		if err := l.fromCommand(words, env); err != nil {
			return Launch{}, false, fail("%v", err)
		}
		return l, true, nil
	}
	return Launch{}, false, nil
}

// claudeAddValued are the options of `claude mcp add` that take a value.
var claudeAddValued = map[string]bool{
	"-s": true, "--scope": true, "-t": true, "--transport": true, "-e": true, "--env": true,
	"-H": true, "--header": true, "--client-id": true, "--callback-port": true,
}

// claudeAddBool are its options without a value.
var claudeAddBool = map[string]bool{"--client-secret": true}

// fromClaudeAdd reads the words after `claude mcp add`: options, the name, then the
// command and its arguments (after --) or, with --transport http, the URL.
func (l *Launch) fromClaudeAdd(words, env []string) error {
	transport := "stdio"
	var pos []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			pos = append(pos, words[i+1:]...)
			break
		}
		name, value, hasValue := strings.Cut(w, "=")
		switch {
		case claudeAddValued[name]:
			if !hasValue {
				if i+1 >= len(words) {
					return fmt.Errorf("claude mcp add option %s needs a value", name)
				}
				i++
				value = words[i]
			}
			switch name {
			case "-e", "--env":
				k, _, ok := strings.Cut(value, "=")
				if !ok {
					return fmt.Errorf("claude mcp add -e %s: expected NAME=value", value)
				}
				env = append(env, k)
			case "-t", "--transport":
				transport = value
			}
		case claudeAddBool[name]:
		case strings.HasPrefix(w, "-") && w != "-":
			return fmt.Errorf("unknown claude mcp add option %s (server flags go after --)", w)
		default:
			pos = append(pos, w)
		}
	}
	if len(pos) < 2 {
		return fmt.Errorf("claude mcp add needs a name and a command or URL")
	}
	l.Entry = pos[0]
	switch transport {
	case "http", "sse":
		if len(pos) != 2 {
			return fmt.Errorf("claude mcp add --transport %s takes a name and a URL only", transport)
		}
		if transport == "sse" {
			return fmt.Errorf("--transport sse: the servers speak Streamable HTTP (--transport http)")
		}
		l.Mode, l.URL = Remote, pos[1]
		return nil
	case "stdio":
		return l.fromCommand(pos[1:], env)
	}
	return fmt.Errorf("claude mcp add --transport %q: expected stdio, http or sse", transport)
}

// hasYes reports whether npx's options include -y (--yes): without it npx prompts
// before installing a package.
func hasYes(opts []string) bool {
	return slices.ContainsFunc(opts, func(o string) bool { return o == "-y" || o == "--yes" || o == "--yes=true" })
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compactJSON is the snippet text of a JSON value, for messages.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
