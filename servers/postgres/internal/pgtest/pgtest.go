package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	once     sync.Once
	shared   *cluster
	startErr error
	adminMu  sync.Mutex // serialises CREATE/DROP DATABASE and ROLE on the admin connection
	admin    *pgx.Conn
	seq      atomic.Int64
	// serverVersion is server_version_num of the test server.
	serverVersion int
	runID         = fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
)

// Main runs the tests of a package and stops the throwaway cluster afterwards. Call it
// from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	Stop()
	return code
}

// Stop closes the admin connection and stops a throwaway cluster. Main calls it.
func Stop() {
	adminMu.Lock()
	defer adminMu.Unlock()
	if admin != nil {
		admin.Close(context.Background())
		admin = nil
	}
	shared.stop()
}

// server starts the shared cluster on first use. A missing PostgreSQL fails t under CI
// and skips it otherwise; any other startup problem fails t.
func server(t testing.TB) *cluster {
	t.Helper()
	once.Do(func() {
		shared, startErr = startCluster()
		if startErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, startErr = pgx.Connect(ctx, shared.adminURL)
		if startErr != nil {
			startErr = fmt.Errorf("connecting to the test server: %w", startErr)
			return
		}
		if startErr = admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&serverVersion); startErr != nil {
			return
		}
		if !shared.external {
			_, startErr = admin.Exec(ctx, "CREATE ROLE "+PasswordGroup+" NOLOGIN")
		}
	})
	if startErr != nil {
		if errors.Is(startErr, errMissing) && os.Getenv("CI") == "" {
			t.Skipf("no PostgreSQL: %v (CI is unset, so this test is skipped; under CI it fails)", startErr)
		}
		t.Fatalf("no PostgreSQL for the test: %v", startErr)
	}
	return shared
}

// StartupTime is how long starting the throwaway cluster took (initdb + postgres until
// it accepts connections), 0 when EnvURL names an external server. It starts the
// cluster if needed.
func StartupTime(t testing.TB) time.Duration {
	return server(t).startup
}

// Database is a database created for one test and dropped when the test ends.
type Database struct {
	Name string
	// URL connects to the database as the server's superuser (or the EnvURL role).
	URL string
}

// NewDatabase creates a fresh, empty database for t and drops it (with any sessions
// still on it) when t ends.
func NewDatabase(t testing.TB) *Database {
	t.Helper()
	c := server(t)
	name := uniqueName("t", t.Name())
	// FILE_COPY (PostgreSQL 15+) copies the template's files instead of WAL-logging
	// every block: measured ~30% faster here, and durability is irrelevant.
	strategy := ""
	if serverVersion >= 150000 {
		strategy = " STRATEGY FILE_COPY"
	}
	adminExec(t, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+strategy)
	t.Cleanup(func() {
		adminMu.Lock()
		defer adminMu.Unlock()
		if admin == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	return &Database{Name: name, URL: withDatabase(c.adminURL, name, "", "")}
}

// CreateRole creates a login role for t with the given attributes (for example
// "SUPERUSER" or "NOSUPERUSER" or "") and an optional password, and returns its name,
// unique to this test run. On a throwaway cluster a role with a password must use it
// to log in (see PasswordsEnforced). The role, and everything it owns in d, is dropped
// when t ends.
func (d *Database) CreateRole(t testing.TB, base, attrs, password string) string {
	t.Helper()
	name := uniqueName(base, "")
	stmt := "CREATE ROLE " + pgx.Identifier{name}.Sanitize() + " LOGIN " + attrs
	if password != "" {
		stmt += " PASSWORD " + quoteLiteral(password)
		if !shared.external {
			stmt += " IN ROLE " + PasswordGroup
		}
	}
	adminExec(t, stmt)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// DROP OWNED must run inside d, so it uses a connection of its own.
		if conn, err := pgx.Connect(ctx, d.URL); err == nil {
			conn.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{name}.Sanitize()+" CASCADE")
			conn.Close(ctx)
		}
		adminMu.Lock()
		defer adminMu.Unlock()
		if admin == nil {
			return
		}
		// Sessions of the role may still be open in pools that close later.
		admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", name)
		if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
			t.Errorf("dropping test role %s: %v", name, err)
		}
	})
	return name
}

// PasswordsEnforced reports whether roles created with a password must use it: true
// on a throwaway cluster, unknown (false) on an external server.
func PasswordsEnforced(t testing.TB) bool {
	return !server(t).external
}

// URLAs is d's URL for connecting as role (with password, if not empty).
func (d *Database) URLAs(role, password string) string {
	return withDatabase(d.URL, d.Name, role, password)
}

// connect opens a connection to d as the superuser, failing t when it cannot.
func (d *Database) connect(ctx context.Context, t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		t.Fatalf("connecting to %s: %v", d.Name, err)
	}
	return conn
}

// Exec runs trusted fixture SQL in d as the superuser. It uses the simple protocol,
// so sql may hold several statements; it is for test fixtures only.
func (d *Database) Exec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := d.connect(ctx, t)
	defer conn.Close(ctx)
	if err := conn.PgConn().Exec(ctx, sql).Close(); err != nil {
		t.Fatalf("fixture SQL failed: %v\n%s", err, sql)
	}
}

// extensionProbes check that an extension created in a database works, for the
// extensions whose CREATE EXTENSION succeeds even when they cannot.
var extensionProbes = map[string]string{
	"pg_stat_statements": "SELECT count(*) FROM pg_stat_statements",
	"hypopg":             "SELECT count(*) FROM hypopg_list_indexes",
}

// extensionSetup says how to make an extension available to the tests.
var extensionSetup = map[string]string{
	"pg_stat_statements": "it ships with PostgreSQL (contrib) and must be preloaded: the throwaway cluster sets " +
		"shared_preload_libraries=pg_stat_statements when the library is present; an external server needs it in postgresql.conf",
	"hypopg": "install Debian's postgresql-<major>-hypopg package (apt-get install -y postgresql-15-hypopg; .ci/run does it)",
}

// RequireExtension creates the extension name in d (CREATE EXTENSION IF NOT EXISTS,
// as the superuser) and checks that it works. When the server lacks it (not
// installed, or for pg_stat_statements not preloaded) the test fails under CI, where
// .ci/run installs everything, and is skipped otherwise, saying how to get it.
func (d *Database) RequireExtension(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := d.connect(ctx, t)
	defer conn.Close(ctx)
	_, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{name}.Sanitize())
	if err == nil && extensionProbes[name] != "" {
		_, err = conn.Exec(ctx, extensionProbes[name])
	}
	if err == nil {
		return
	}
	var pe *pgconn.PgError
	missing := errors.As(err, &pe) && (pe.Code == "58P01" || pe.Code == "0A000" || pe.Code == "55000")
	if !missing {
		t.Fatalf("CREATE EXTENSION %s: %v", name, err)
	}
	msg := fmt.Sprintf("the PostgreSQL extension %s is not available: %v; %s", name, err, extensionSetup[name])
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set, so this fails)", msg)
	}
	t.Skipf("%s (CI is unset, so this test is skipped; under CI it fails)", msg)
}

// adminExec runs one statement on the admin connection (maintenance database).
func adminExec(t testing.TB, sql string) {
	t.Helper()
	adminMu.Lock()
	defer adminMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

var notIdent = regexp.MustCompile(`[^a-z0-9]+`)

// uniqueName builds a lower-case identifier from base and hint that is unique across
// this test run and other runs sharing an external server.
func uniqueName(base, hint string) string {
	hint = strings.Trim(notIdent.ReplaceAllString(strings.ToLower(hint), "_"), "_")
	if len(hint) > 30 {
		hint = hint[:30]
	}
	name := fmt.Sprintf("%s_%s_%d", base, runID, seq.Add(1))
	if hint != "" {
		name += "_" + hint
	}
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

// withDatabase returns u with its database (and, if role is set, its user) replaced.
func withDatabase(u, db, role, password string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parsed.Path = "/" + db
	if role != "" {
		if password != "" {
			parsed.User = url.UserPassword(role, password)
		} else {
			parsed.User = url.User(role)
		}
	}
	return parsed.String()
}

func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
