package distcheck

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// flagTable is a README table of flags: its first header cell is "flag" and its
// second "environment".
func isFlagTable(t Table) bool {
	return len(t.Header) >= 3 && t.Header[0] == "flag" && t.Header[1] == "environment"
}

var (
	tableFlag = regexp.MustCompile("^--([a-z0-9][a-z0-9-]*)")
	tableEnv  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// goRuntimeEnv are variables the Go runtime reads, which a README may name.
var goRuntimeEnv = map[string]bool{"GOGC": true, "GOMEMLIMIT": true, "GOMAXPROCS": true, "GODEBUG": true}

// flagHelp is what a binary's -h says of each flag: the variables its usage text
// names with "(env NAME".
func flagHelp(t *testing.T, binary string) map[string][]string {
	t.Helper()
	cmd := exec.Command(binary, "-h")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -h: %v\n%s", binary, err, out)
	}
	envs := map[string][]string{}
	current := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := helpFlagLine.FindStringSubmatch(line); m != nil {
			current = m[1]
			envs[current] = nil
		}
		for _, m := range helpEnv.FindAllStringSubmatch(line, -1) {
			if current != "" {
				envs[current] = append(envs[current], m[1])
			}
		}
	}
	return envs
}

// standardFlags are the flags serve.RegisterFlags gives every server.
func standardFlags() map[string]bool {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	serve.RegisterFlags(fs)
	out := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { out[f.Name] = true })
	return out
}

// checkFlagTable checks the rows of one flags table against a binary's -h: each
// `--flag` in the first cell is a flag of the binary, and the variables of the second
// cell are the ones its usage text names (a row without a flag names variables the
// server reads). It returns the flags the table names.
func checkFlagTable(t *testing.T, file string, tbl Table, s *Server, envs map[string][]string) map[string]bool {
	t.Helper()
	named := map[string]bool{}
	for _, row := range tbl.Rows {
		if len(row.Cells) < 2 {
			continue
		}
		var flags, vars []string
		for _, span := range CodeSpans(row.Cells[0]) {
			if m := tableFlag.FindStringSubmatch(span); m != nil {
				flags = append(flags, m[1])
			}
		}
		for _, span := range CodeSpans(row.Cells[1]) {
			if tableEnv.MatchString(span) {
				vars = append(vars, span)
			}
		}
		if len(flags) == 0 {
			for _, v := range vars {
				if !s.Env[v] && !goRuntimeEnv[v] {
					t.Errorf("%s:%d: %s is not a variable %s reads", file, row.Line, v, s.Cmd)
				}
			}
			continue
		}
		var want []string
		for _, f := range flags {
			named[f] = true
			e, ok := envs[f]
			if !ok {
				t.Errorf("%s:%d: --%s is not a flag of %s (-h)", file, row.Line, f, s.Cmd)
				continue
			}
			want = append(want, e...)
		}
		slices.Sort(want)
		got := slices.Clone(vars)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s:%d: --%s: the table names the variables %v; %s -h names %v", file, row.Line, strings.Join(flags, ", --"), got, s.Cmd, want)
		}
	}
	return named
}

// TestReadmeFlagTables checks the flag tables of the READMEs, which no snippet test
// sees: in each server's README every flag and variable of its Configuration table is
// the server's (the variable the flag's usage text names), and every flag of the
// server's own (all but the standard serve flags) has a row; in the root README the
// table of the standard serve flags names each of them, with its MCP_* variable.
func TestReadmeFlagTables(t *testing.T) {
	root := repoRoot(t)
	servers := builtServers(t)
	std := standardFlags()
	for _, rel := range readmeFiles(t, root) {
		name := readmeServer(rel)
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		var tables []Table
		for _, tbl := range Tables(string(src)) {
			if isFlagTable(tbl) {
				tables = append(tables, tbl)
			}
		}
		if name != "" && !slices.ContainsFunc(serverDirs, func(sd ServerDir) bool { return sd.Name == name }) {
			continue // a README beside no server (examples/checkout)
		}
		t.Run(rel, func(t *testing.T) {
			if name == "" {
				// The root README: the standard flags, shared by every server; any
				// server's -h gives their variables.
				s := servers["filesystem"]
				if s == nil {
					t.Skip("the filesystem server did not build")
				}
				if len(tables) != 1 {
					t.Fatalf("%d flag tables in %s; want the one of the standard serve flags", len(tables), rel)
				}
				named := checkFlagTable(t, rel, tables[0], s, flagHelp(t, s.Binary))
				for f := range std {
					if !named[f] {
						t.Errorf("%s: the standard flag --%s has no row in the table at line %d", rel, f, tables[0].Line)
					}
				}
				for f := range named {
					if !std[f] {
						t.Errorf("%s: --%s in the table of standard flags is not one (serve.RegisterFlags)", rel, f)
					}
				}
				return
			}
			s := servers[name]
			if s == nil {
				return // builtServers reported its build error
			}
			if len(tables) == 0 {
				t.Fatalf("%s has no flag table (| flag | environment | …)", rel)
			}
			envs := flagHelp(t, s.Binary)
			named := map[string]bool{}
			for _, tbl := range tables {
				for f := range checkFlagTable(t, rel, tbl, s, envs) {
					named[f] = true
				}
			}
			for f := range envs {
				if !std[f] && f != "version" && !named[f] {
					t.Errorf("%s: %s's flag --%s has no row in its flag table", rel, s.Cmd, f)
				}
			}
		})
	}
}
