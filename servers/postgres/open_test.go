package postgres

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

const secret = "S3cret-Passw0rd"

// TestOpenFailuresHideThePassword checks that a failed Open names host, database and
// user, says what went wrong, and never shows the password.
func TestOpenFailuresHideThePassword(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	pwRole := d.CreateRole(t, "pw", "", "right-"+secret)
	base, err := url.Parse(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	with := func(user, db string, query map[string]string) string {
		u := *base
		u.User = url.UserPassword(user, secret)
		u.Path = "/" + db
		q := u.Query()
		for k, v := range query {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	type tc struct {
		name string
		conn string
		want []string // all must appear in the error
	}
	tests := []tc{
		{"no such host directory", with("alice", "shopdb", map[string]string{"host": "/nonexistent/socket/dir"}),
			[]string{"host=/nonexistent/socket/dir", "database=shopdb", "user=alice"}},
		{"no such database", with("postgres", "no_such_db", nil),
			[]string{"database=no_such_db", "user=postgres", `database "no_such_db" does not exist`}},
		{"no such role", with("no_such_role", d.Name, nil),
			[]string{"user=no_such_role", `role "no_such_role" does not exist`}},
		{"malformed URL", "postgres://alice:" + secret + "@localhost:notaport/db",
			[]string{"invalid database URL", "expected postgres://"}},
		{"malformed key=value", "host=/nonexistent user=alice password=" + secret + " dbname=x port=notaport",
			[]string{"invalid database URL", "port"}},
		{"key=value unreachable", "host=/nonexistent/dir user=alice password=" + secret + " dbname=x connect_timeout=2",
			[]string{"host=/nonexistent/dir", "database=x", "user=alice"}},
	}
	if pgtest.PasswordsEnforced(t) {
		tests = append(tests, tc{"wrong password", with(pwRole, d.Name, nil),
			[]string{"user=" + pwRole, "password authentication failed"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			db, err := Open(ctx, tt.conn, Options{ConnectTimeout: 2 * time.Second})
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded, want an error")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, secret) {
				t.Errorf("error shows the password: %s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q: %s", w, msg)
				}
			}
		})
	}
}

// TestOpen checks a good Open: the target without password, defaults filled in, and
// the refusal of the simple query protocol.
func TestOpen(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	role := d.CreateRole(t, "pw", "", secret)
	db := openDB(t, d.URLAs(role, secret), Options{})
	tg := db.Target()
	if tg.Database != d.Name || tg.User != role || tg.Host == "" || strings.Contains(tg.String(), secret) {
		t.Errorf("target %+v (%s)", tg, tg)
	}
	want := Options{StatementTimeout: 30 * time.Second, MaxRows: 1000, MaxBytes: 1 << 20, ConnectTimeout: 10 * time.Second, ApplicationName: "mcp-server-postgres"}
	if diff := cmp.Diff(want, db.Options()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	res, err := db.Query(context.Background(), "SELECT current_setting('application_name')", nil)
	if err != nil || jsonOf(t, res.Rows) != `[["mcp-server-postgres"]]` {
		t.Errorf("application_name: %v %v", res, err)
	}

	sep := "?"
	if strings.Contains(d.URL, "?") {
		sep = "&"
	}
	_, err = Open(context.Background(), d.URL+sep+"default_query_exec_mode=simple_protocol", Options{})
	if err == nil || !strings.Contains(err.Error(), "simple_protocol is not allowed") {
		t.Errorf("simple protocol: got %v, want a refusal", err)
	}
}
