package postgres

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBinaryStartup starts the built binary against a real database as different
// roles (stdin closed at once, so a server that starts serves nothing and exits 0):
// a superuser is refused with a message naming the recommended role unless
// POSTGRES_ALLOW_SUPERUSER is set; a role that can write starts with a warning naming
// the recommended role; the recommended pg_read_all_data role starts without one.
func TestBinaryStartup(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	writer := d.CreateRole(t, "writer", "", "")
	d.Exec(t, "GRANT SELECT, UPDATE ON public.t TO "+writer)
	for _, tc := range []struct {
		name    string
		env     []string
		exit    int
		want    []string // in stderr
		notWant []string
	}{
		{"superuser refused", []string{"DATABASE_URL=" + d.URL}, 1,
			[]string{`refusing to start: role "postgres" is a superuser`, "pg_read_file", ReaderRoleSQL, "--allow-superuser"}, nil},
		{"superuser allowed", []string{"DATABASE_URL=" + d.URL, "POSTGRES_ALLOW_SUPERUSER=1"}, 0,
			[]string{"level=WARN", "is a superuser (allowed by --allow-superuser)", "msg=connected", "database=" + d.Name, "allowWrites=false"}, nil},
		{"writer warned", []string{"DATABASE_URL=" + d.URLAs(writer, "")}, 0,
			[]string{"level=WARN", `can write (INSERT/UPDATE/DELETE/TRUNCATE on public.t)`, ReaderRoleSQL}, nil},
		{"writer with writes", []string{"DATABASE_URL=" + d.URLAs(writer, ""), "POSTGRES_ALLOW_WRITES=true"}, 0,
			[]string{"msg=connected", "allowWrites=true"}, []string{"level=WARN"}},
		{"reader", []string{"DATABASE_URL=" + readerURL(t, d)}, 0,
			[]string{"msg=connected", "serving MCP on stdio"}, []string{"level=WARN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, serverBinary(t))
			cmd.Env = append(append(os.Environ(), cleanEnv()...), tc.env...)
			cmd.Stdin = strings.NewReader("")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.exit {
				t.Errorf("exit status %d; want %d\n%s", code, tc.exit, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(stderr.String(), w) {
					t.Errorf("stderr has %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}
