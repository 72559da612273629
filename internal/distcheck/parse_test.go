package distcheck

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

func TestSplitShell(t *testing.T) {
	tests := []struct {
		line    string
		want    []string
		wantErr bool
	}{
		{line: `claude mcp add x -- mcp-server-x "$PWD"`, want: []string{"claude", "mcp", "add", "x", "--", "mcp-server-x", "$PWD"}},
		{line: `docker run --user "$(id -u):$(id -g)" -v a\ b:/w img`, want: []string{"docker", "run", "--user", "$(id -u):$(id -g)", "-v", "a b:/w", "img"}},
		{line: `echo 'it''s' "a \"q\" \n"`, want: []string{"echo", "its", `a "q" \n`}},
		{line: `cmd --x=1 # a comment`, want: []string{"cmd", "--x=1"}},
		{line: `cmd a#b`, want: []string{"cmd", "a#b"}},
		{line: `cmd ""`, want: []string{"cmd", ""}},
		{line: `cmd "open`, wantErr: true},
		{line: `cmd 'open`, wantErr: true},
	}
	for _, tt := range tests {
		got, err := SplitShell(tt.line)
		if (err != nil) != tt.wantErr {
			t.Errorf("SplitShell(%q) error %v, want error %v", tt.line, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitShell(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestLogicalLines(t *testing.T) {
	text := "docker run -i \\\n  --rm img --a 1\n\nmcp-server-x\n$ not a prompt in sh"
	got := LogicalLines(text, 10, false)
	want := []NumberedLine{{10, "docker run -i    --rm img --a 1"}, {13, "mcp-server-x"}, {14, "$ not a prompt in sh"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sh block (-want +got):\n%s", diff)
	}
	console := "$ mcp-server-x --version\nmcp-server-x v1\n$ claude mcp add \\\n  x -- mcp-server-x"
	got = LogicalLines(console, 1, true)
	want = []NumberedLine{{1, "mcp-server-x --version"}, {3, "claude mcp add    x -- mcp-server-x"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("console block (-want +got):\n%s", diff)
	}
}

func TestFencedBlocksHosts(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"Results page with `nextCursor`.", // not the Cursor host
		"```json",
		"{}",
		"```",
		"## Hosts",
		"Claude Desktop (`claude_desktop_config.json`), local store:",
		"```json",
		"{}",
		"```",
		"Sentry:", // no host named: stays Claude Desktop
		"```json",
		"{}",
		"```",
		"VS Code (`.vscode/mcp.json`):",
		"  ```jsonc", // indented fence
		"  {}",
		"  ```",
		"Cursor, unlike VS Code, reads `~/.cursor/mcp.json`:", // the last host named wins
		"~~~json",
		"{}",
		"~~~",
		"## Container", // a heading ends the section's host
		"````sh",
		"docker run -i --rm img",
		"```",
		"````",
	}, "\n")
	type summary struct {
		Lang string
		Line int
		Host Host
	}
	var got []summary
	for _, b := range FencedBlocks(md) {
		got = append(got, summary{b.Lang, b.Line, b.Host})
	}
	want := []summary{
		{"json", 4, ""}, {"json", 9, ClaudeDesktop}, {"json", 13, ClaudeDesktop},
		{"jsonc", 17, VSCode}, {"json", 21, Cursor}, {"sh", 25, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// launchSummary is the part of a Launch the parse tests compare.
type launchSummary struct {
	Host   Host
	Entry  string
	Mode   Mode
	Server string
	Args   []string
	Env    []string
	URL    string
}

func summarize(ls []Launch) []launchSummary {
	var out []launchSummary
	for _, l := range ls {
		out = append(out, launchSummary{l.Host, l.Entry, l.Mode, l.Server, l.Args, l.Env, l.URL})
	}
	return out
}

func TestParseMarkdown(t *testing.T) {
	tests := []struct {
		name    string
		md      string
		want    []launchSummary
		wantErr string // substring of the one expected error
	}{
		{
			name: "Claude Desktop binary with env",
			md:   "Claude Desktop:\n```json\n{\"mcpServers\":{\"gh\":{\"command\":\"mcp-server-github\",\"args\":[\"--repos\",\"o/*\"],\"env\":{\"GITHUB_TOKEN\":\"x\"}}}}\n```",
			want: []launchSummary{{ClaudeDesktop, "gh", Binary, "github", []string{"--repos", "o/*"}, []string{"GITHUB_TOKEN"}, ""}},
		},
		{
			name: "VS Code container and remote, inputs defined",
			md: "VS Code:\n```json\n{\"inputs\":[{\"id\":\"tok\"}],\"servers\":{" +
				"\"c\":{\"type\":\"stdio\",\"command\":\"docker\",\"args\":[\"run\",\"-i\",\"--rm\",\"-e\",\"GITHUB_TOKEN\",\"ghcr.io/mcpkit/mcp-server-github:v1\",\"--lockdown\"],\"env\":{\"GITHUB_TOKEN\":\"${input:tok}\"}}," +
				"\"r\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:8080/mcp\"}}}\n```",
			want: []launchSummary{
				{VSCode, "c", Container, "github", []string{"--lockdown"}, []string{"GITHUB_TOKEN"}, ""},
				{VSCode, "r", Remote, "", nil, nil, "http://127.0.0.1:8080/mcp"},
			},
		},
		{
			name: "unlabelled servers block is VS Code",
			md:   "```json\n{\"servers\":{\"x\":{\"command\":\"mcp-server-x\"}}}\n```",
			want: []launchSummary{{VSCode, "x", Binary, "x", []string{}, []string{}, ""}},
		},
		{
			name:    "VS Code label with the mcpServers shape",
			md:      "VS Code:\n```json\n{\"mcpServers\":{\"x\":{\"command\":\"mcp-server-x\"}}}\n```",
			wantErr: `keeps servers under "servers"`,
		},
		{
			name:    "Cursor label with the servers shape",
			md:      "Cursor:\n```json\n{\"servers\":{\"x\":{\"command\":\"mcp-server-x\"}}}\n```",
			wantErr: `keeps servers under "mcpServers"`,
		},
		{
			name:    "Claude Desktop has no url entries",
			md:      "Claude Desktop:\n```json\n{\"mcpServers\":{\"x\":{\"url\":\"http://h/mcp\"}}}\n```",
			wantErr: "mcp-remote",
		},
		{
			name: "Claude Desktop remote through mcp-remote",
			md:   "Claude Desktop:\n```json\n{\"mcpServers\":{\"x\":{\"command\":\"npx\",\"args\":[\"-y\",\"mcp-remote\",\"https://h/mcp\"]}}}\n```",
			want: []launchSummary{{ClaudeDesktop, "x", Remote, "", nil, nil, "https://h/mcp"}},
		},
		{
			name:    "undefined VS Code input",
			md:      "VS Code:\n```json\n{\"servers\":{\"x\":{\"command\":\"mcp-server-x\",\"env\":{\"T\":\"${input:nope}\"}}}}\n```",
			want:    []launchSummary{{VSCode, "x", Binary, "x", []string{}, []string{"T"}, ""}},
			wantErr: "${input:nope}",
		},
		{
			name:    "docker -e NAME the config does not set",
			md:      "Cursor:\n```json\n{\"mcpServers\":{\"x\":{\"command\":\"docker\",\"args\":[\"run\",\"-i\",\"-e\",\"TOKEN\",\"mcp-server-x\"]}}}\n```",
			wantErr: "does not set it",
		},
		{
			name:    "container without -i in a host config",
			md:      "Cursor:\n```json\n{\"mcpServers\":{\"x\":{\"command\":\"docker\",\"args\":[\"run\",\"--rm\",\"-p\",\"8080:8080\",\"mcp-server-x\"]}}}\n```",
			wantErr: "without -i",
		},
		{
			name:    "unknown docker option",
			md:      "```sh\ndocker run -i --frobnicate mcp-server-x\n```",
			wantErr: "--frobnicate",
		},
		{
			name:    "image of another project",
			md:      "```sh\ndocker run -i --rm postgres:16\n```",
			wantErr: "not an mcp-server-* image",
		},
		{
			name:    "unknown command",
			md:      "Cursor:\n```json\n{\"mcpServers\":{\"x\":{\"command\":\"node\",\"args\":[\"server.js\"]}}}\n```",
			wantErr: `command "node"`,
		},
		{
			name:    "host config that is not JSON",
			md:      "```json\n{\"mcpServers\": {\"x\": {\"command\": \"mcp-server-x\",}}}\n```",
			wantErr: "not valid JSON",
		},
		{
			name: "other JSON and shell lines launch nothing",
			md:   "```json\n{\"name\":\"io.github.x/y\"}\n```\n```sh\ndocker build -t mcp-server-x .\ncd servers/x && go test ./...\n```\n```go\nmcp-server-x --nope\n```",
		},
		{
			name: "claude mcp add: stdio binary, container, remote; env prefix; continuation",
			md: "```sh\n" +
				"claude mcp add gh -e GITHUB_TOKEN=t --scope user -- mcp-server-github --repos o/r\n" +
				"claude mcp add gh-docker -e GITHUB_TOKEN=t -- docker run -i --rm -e GITHUB_TOKEN \\\n  mcp-server-github\n" +
				"claude mcp add --transport http gh-http http://127.0.0.1:8080/mcp\n" +
				"MCP_AUDIT=0 mcp-server-github --http :8080\n" +
				"```",
			want: []launchSummary{
				{ClaudeCode, "gh", Binary, "github", []string{"--repos", "o/r"}, []string{"GITHUB_TOKEN"}, ""},
				{ClaudeCode, "gh-docker", Container, "github", []string{}, []string{"GITHUB_TOKEN"}, ""},
				{ClaudeCode, "gh-http", Remote, "", nil, nil, "http://127.0.0.1:8080/mcp"},
				{"", "", Binary, "github", []string{"--http", ":8080"}, []string{"MCP_AUDIT"}, ""},
			},
		},
		{
			name:    "server flags before -- in claude mcp add",
			md:      "```sh\nclaude mcp add gh mcp-server-github --repos o/r\n```",
			wantErr: "server flags go after --",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, errs := ParseMarkdown("README.md", tt.md)
			if diff := cmp.Diff(tt.want, summarize(ls), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("launches (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tt.wantErr != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.wantErr)):
				t.Errorf("errors %v, want one containing %q", errs, tt.wantErr)
			}
		})
	}
}

// TestParseHelp parses the real output of the flag package, for the standard serve
// flags and flags of every kind.
func TestParseHelp(t *testing.T) {
	fs := flag.NewFlagSet("mcp-server-x", flag.ContinueOnError)
	serve.RegisterFlags(fs)
	fs.Bool("allow-writes", false, "writes (env X_ALLOW_WRITES=1)")
	fs.String("repos", "", "repositories (env X_REPOS; default all)")
	fs.Duration("timeout", time.Second, "time limit")
	fs.Int("n", 1, "a one-letter flag with a value")
	fs.Bool("q", false, "a one-letter boolean")
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	fs.PrintDefaults()

	flags, env, httpPath := ParseHelp(buf.String())
	want := map[string]bool{"allow-writes": false, "repos": true, "timeout": true, "n": true, "q": false, "http": true, "audit": false}
	for name, takesValue := range want {
		got, ok := flags[name]
		if !ok || got != takesValue {
			t.Errorf("flag %s: parsed (takes value %v, found %v), want takes value %v", name, got, ok, takesValue)
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := flags[f.Name]; !ok {
			t.Errorf("flag %s missing from the parse", f.Name)
		}
	})
	if len(flags) != countFlags(fs) {
		t.Errorf("parsed %d flags, the flag set has %d", len(flags), countFlags(fs))
	}
	for _, e := range append([]string{"X_ALLOW_WRITES", "X_REPOS"}, mapValues(serve.FlagEnv)...) {
		if !strings.Contains(strings.Join(env, " "), e) {
			t.Errorf("env %s not found in the help (found %v)", e, env)
		}
	}
	if httpPath != "/mcp" {
		t.Errorf("http path %q, want /mcp", httpPath)
	}
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestScanEnv(t *testing.T) {
	src := `package x

import "os"

// NOT_FROM_COMMENT is not a literal.
const envRoots = "MY_ROOTS"

var flagEnv = map[string]string{"data": "MY_DATA_DIR"}

func f(getenv func(string) string) {
	_ = os.Getenv("HOME")
	_ = getenv("LocalAppData")
	_, _ = os.LookupEnv("MY_LOOKUP")
	_ = "lower_case_words"
	_ = "GET"
	for _, n := range []string{"MY_TOKEN", "MY_OTHER_TOKEN"} {
		_ = getenv(n)
	}
}
`
	path := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ScanEnv([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HOME", "LocalAppData", "MY_DATA_DIR", "MY_LOOKUP", "MY_OTHER_TOKEN", "MY_ROOTS", "MY_TOKEN"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ScanEnv (-want +got):\n%s", diff)
	}
}

func TestUnknownFlagsAndEnv(t *testing.T) {
	s := &Server{
		ServerDir: ServerDir{Name: "x", Cmd: "mcp-server-x"},
		Flags:     map[string]bool{"http": true, "allow-writes": false, "max-rows": true},
		Env:       map[string]bool{"X_TOKEN": true},
	}
	tests := []struct {
		args []string
		want int // problems
	}{
		{[]string{"--http", ":8080", "--allow-writes", "/dir"}, 0},
		{[]string{"-http=:8080", "--max-rows", "-1"}, 0}, // a value may start with a dash
		{[]string{"--allow-writes=false", "--", "--not-a-flag"}, 0},
		{[]string{"--htp", ":8080"}, 1},
		{[]string{"--allow-write", "--no-such"}, 2},
	}
	for _, tt := range tests {
		if got := s.UnknownFlags(tt.args); len(got) != tt.want {
			t.Errorf("UnknownFlags(%q) = %q, want %d problems", tt.args, got, tt.want)
		}
	}
	if got := s.UnknownEnv([]string{"X_TOKEN", "X_TOKN"}); len(got) != 1 || !strings.Contains(got[0], "X_TOKN") {
		t.Errorf("UnknownEnv = %q, want one problem naming X_TOKN", got)
	}
}

func TestMissingHosts(t *testing.T) {
	ls := []Launch{
		{Host: ClaudeDesktop, Mode: Binary, Server: "x"},
		{Host: ClaudeDesktop, Mode: Container, Server: "y"}, // another server's: does not count
		{Host: VSCode, Mode: Remote},
		{Host: "", Mode: Container, Server: "x"}, // a plain docker run: no host
	}
	got := MissingHosts(ls, "x")
	want := []string{
		"Claude Desktop: container, remote",
		"VS Code: binary, container",
		"Claude Code: binary, container, remote",
		"Cursor: binary, container, remote",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MissingHosts (-want +got):\n%s", diff)
	}
}

// TestChecksCatchMistakes runs the snippet and server.json checks against a real
// built server with deliberate mistakes, so a check that passes everything fails
// here.
func TestChecksCatchMistakes(t *testing.T) {
	servers := builtServers(t)
	s := servers["github"]
	if s == nil {
		t.Skip("mcp-server-github did not build (reported above)")
	}
	launches := []struct {
		name string
		l    Launch
		want string
	}{
		{"unknown flag", Launch{Mode: Binary, Server: "github", Args: []string{"--repo", "o/r"}}, "has no flag --repo"},
		{"unknown env", Launch{Mode: Binary, Server: "github", Env: []string{"GH_TOKEN"}}, "GH_TOKEN"},
		{"bad value for a duration flag", Launch{Mode: Binary, Server: "github", Args: []string{"--tool-timeout", "soon"}}, "invalid value"},
		{"stray argument", Launch{Mode: Container, Server: "github", Args: []string{"octo/hello"}}, "unexpected argument"},
		{"unknown server", Launch{Mode: Binary, Server: "gitlab"}, `no server "gitlab"`},
		{"remote on the wrong path", Launch{Mode: Remote, URL: "http://127.0.0.1:8080/sse"}, "serve MCP at /mcp"},
	}
	for _, tt := range launches {
		problems := checkLaunch(tt.l, "github", servers)
		if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), tt.want) {
			t.Errorf("%s: problems %q, want one containing %q", tt.name, problems, tt.want)
		}
	}
	good := Launch{Mode: Binary, Server: "github", Args: []string{"--repos", "octo/*", "--lockdown", "--tool-timeout", "30s"}, Env: []string{"GITHUB_TOKEN"}}
	if problems := checkLaunch(good, "github", servers); len(problems) > 0 {
		t.Errorf("a correct launch has problems: %q", problems)
	}

	var sj serverJSON
	raw := `{"$schema":"S","name":"io.github.mcpkit/github","version":"0.1.0",
		"repository":{"url":"https://github.com/mcpkit/reference","source":"github","subfolder":"servers/github"},
		"packages":[{"registryType":"oci","identifier":"ghcr.io/mcpkit/mcp-server-github:0.1.0","transport":{"type":"stdio"},
			"runtimeHint":"docker","runtimeArguments":[{"type":"named","name":"--mount","value":"src={dir}"}],
			"packageArguments":[{"type":"named","name":"--repoz","value":"o/r"}],
			"environmentVariables":[{"name":"GITHUB_TOKEN"},{"name":"GH_HOST"}]},
			{"registryType":"npm","identifier":"@mcpkit/github","version":"0.1.0","transport":{"type":"stdio"},"runtimeHint":"npx",
			"registryBaseUrl":"https://registry.npmjs.org","environmentVariables":[{"name":"GH_PAT"}]},
			{"registryType":"mcpb","identifier":"https://github.com/mcpkit/reference/releases/download/v0.1.0/mcp-server-github_0.1.0_linux_arm64.mcpb",
			"version":"0.1.0","fileSha256":"0000000000000000000000000000000000000000000000000000000000000000","transport":{"type":"stdio"}}],
		"remotes":[{"type":"streamable-http","url":"https://{host}/sse","headers":[{"name":"Authorization","value":"Bearer x"}]}]}`
	if err := json.Unmarshal([]byte(raw), &sj); err != nil {
		t.Fatal(err)
	}
	problems := strings.Join(append(checkServerJSON(sj, s.ServerDir, "S", []string{"linux/amd64"}), checkServerJSONAgainstBinary(sj, s)...), "\n")
	for _, want := range []string{
		"want \"ghcr.io/mcpkit/mcp-server-github:v0.1.0\"", // tag is v<version>
		"GITHUB_TOKEN holds a credential",                  // isSecret missing
		"{dir} has no entry",                               // undefined placeholder
		"{host} has no entry",
		"Authorization header carries a token",
		"GH_HOST",                       // not a variable the server reads
		"has no flag --repoz",           // package argument
		"the server's MCP path is /mcp", // remote path
		`npm identifier "@mcpkit/github"`,
		"GH_PAT", // npm package variable the server does not read
		"no MCPB package https://github.com/mcpkit/reference/releases/download/v0.1.0/mcp-server-github_0.1.0_linux_amd64.mcpb",
		"mcp-server-github_0.1.0_linux_arm64.mcpb is not a bundle make dist builds",
		"has a fileSha256",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("server.json problems lack %q; got:\n%s", want, problems)
		}
	}
}
