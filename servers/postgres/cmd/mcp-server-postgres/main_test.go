package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunRefusesBadSettings: every wrong setting is reported before anything
// connects, naming the flag or variable and what is expected. (Starting against a
// real database, the superuser refusal and the role warnings are tested with the
// built binary in the postgres package, which has a PostgreSQL.)
func TestRunRefusesBadSettings(t *testing.T) {
	const unreachable = "postgres://alice:s3cret-pw@/argdb?host=/nonexistent-socket-dir&sslmode=disable"
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string // all in the error
	}{
		{"no database", nil, nil, []string{"no database", "DATABASE_URL"}},
		{"two arguments", []string{"postgres://a", "postgres://b"}, nil, []string{"at most one argument", "got 2"}},
		{"bad max rows variable", []string{unreachable}, map[string]string{"POSTGRES_MAX_ROWS": "lots"}, []string{`POSTGRES_MAX_ROWS="lots" is not valid`, "expected a whole number"}},
		{"bad allow writes variable", []string{unreachable}, map[string]string{"POSTGRES_ALLOW_WRITES": "maybe"}, []string{`POSTGRES_ALLOW_WRITES="maybe" is not valid`, "expected 1, true, 0 or false"}},
		{"bad timeout variable", []string{unreachable}, map[string]string{"POSTGRES_STATEMENT_TIMEOUT": "30"}, []string{`POSTGRES_STATEMENT_TIMEOUT="30" is not valid`, "expected a duration such as 30s"}},
		{"no-confirm without writes", []string{"--no-confirm", unreachable}, nil, []string{"--no-confirm only applies with --allow-writes"}},
		{"no-confirm variable without writes", []string{unreachable}, map[string]string{"POSTGRES_NO_CONFIRM": "1"}, []string{"--no-confirm only applies with --allow-writes"}},
		{"zero max rows", []string{"--max-rows", "0", unreachable}, nil, []string{"--max-rows 0: must be at least 1"}},
		{"tiny max bytes", []string{"--max-bytes", "10", unreachable}, nil, []string{"--max-bytes 10: must be at least 1024"}},
		{"zero timeout", []string{"--statement-timeout", "0s", unreachable}, nil, []string{"--statement-timeout 0s is too short"}},
		{"flag wins over variable", []string{"--max-rows", "0", unreachable}, map[string]string{"POSTGRES_MAX_ROWS": "10"}, []string{"--max-rows 0"}},
		{"unreachable database", []string{unreachable}, nil, []string{"cannot connect to PostgreSQL at host=/nonexistent-socket-dir port=5432 database=argdb user=alice"}},
		{"URL from the environment", nil, map[string]string{"DATABASE_URL": strings.Replace(unreachable, "argdb", "envdb", 1)}, []string{"database=envdb"}},
		{"database without a URL", []string{"--database", "staging"}, nil, []string{"--database staging…: expected NAME=URL"}},
		{"bad database name", []string{"--database", "9x=" + unreachable}, nil, []string{`database name "9x" is not valid`}},
		{"database named twice", []string{"--database", "a=" + unreachable, "--database", "a=" + unreachable}, nil, []string{`"a" is given twice`}},
		{"default named like another", []string{"--database", "argdb=" + unreachable, unreachable}, nil, []string{`named "argdb"`, "rename that one"}},
		{"description of nothing", []string{"--database", "a=" + unreachable, "--database", "b=" + unreachable, "--describe-database", "c=x"}, nil, []string{"--describe-database c: no database has that name (names: a, b)"}},
		{"description with one database", []string{"--describe-database", "a=x", unreachable}, nil, []string{"descriptions are for a server with several databases"}},
		{"databases from the environment", nil, map[string]string{"POSTGRES_DATABASES": "a=" + unreachable + "\nb=" + strings.Replace(unreachable, "argdb", "bdb", 1)}, []string{"database a: cannot connect", "database=argdb"}},
		{"argument wins over the environment", []string{unreachable}, map[string]string{"DATABASE_URL": "postgres://x@/envdb"}, []string{"database=argdb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := run(ctx, tc.args, func(k string) string { return tc.env[k] }, strings.NewReader(""), &stdout, &stderr)
			if err == nil {
				t.Fatalf("no error; want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if out := err.Error() + stdout.String() + stderr.String(); strings.Contains(out, "s3cret-pw") {
				t.Errorf("the password appears in the output:\n%s", out)
			}
		})
	}
}

// TestVersion: --version prints the name and version and needs no database.
func TestVersion(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, func(string) string { return "" }, strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); got != "mcp-server-postgres dev\n" {
		t.Errorf("--version printed %q", got)
	}
}
