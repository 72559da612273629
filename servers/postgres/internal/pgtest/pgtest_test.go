package pgtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func connect(t *testing.T, url string) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

// TestDatabasesAreSeparate proves each test database is fresh and isolated, and
// reports how long the cluster took to start.
func TestDatabasesAreSeparate(t *testing.T) {
	t.Parallel()
	a := NewDatabase(t)
	b := NewDatabase(t)
	t.Logf("cluster startup: %v (0 means an external server from %s)", StartupTime(t), EnvURL)
	if a.Name == b.Name {
		t.Fatalf("two databases got the same name %q", a.Name)
	}
	a.Exec(t, "CREATE TABLE only_in_a (x int); INSERT INTO only_in_a VALUES (1)")
	cb, err := connect(t, b.URL)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(context.Background(), "SELECT count(*) FROM pg_class WHERE relname = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("table created in %s is visible in %s", a.Name, b.Name)
	}
	var db string
	if err := cb.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if db != b.Name {
		t.Errorf("URL of %s connects to %s", b.Name, db)
	}
}

// TestCreateRole proves roles log in, with their attributes, and that a password
// role needs its password on a throwaway cluster.
func TestCreateRole(t *testing.T) {
	t.Parallel()
	d := NewDatabase(t)
	plain := d.CreateRole(t, "plain", "NOSUPERUSER", "")
	c, err := connect(t, d.URLAs(plain, ""))
	if err != nil {
		t.Fatalf("login as %s: %v", plain, err)
	}
	var user string
	var super bool
	if err := c.QueryRow(context.Background(), "SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)").Scan(&user, &super); err != nil {
		t.Fatal(err)
	}
	if user != plain || super {
		t.Errorf("got user %q superuser %v, want %q and false", user, super, plain)
	}

	withPW := d.CreateRole(t, "pw", "", "right-password")
	if _, err := connect(t, d.URLAs(withPW, "right-password")); err != nil {
		t.Fatalf("login with the right password: %v", err)
	}
	if PasswordsEnforced(t) {
		_, err := connect(t, d.URLAs(withPW, "wrong-password"))
		if err == nil || !strings.Contains(err.Error(), "password authentication failed") {
			t.Errorf("login with a wrong password: got %v, want a password authentication failure", err)
		}
	}
}

// TestFindBinDir checks that the newest versioned bin directory holding initdb and
// postgres wins, and that a machine without them reports errMissing (the error that
// skips tests outside CI and fails them under CI).
func TestFindBinDir(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "13", "16"} {
		bin := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"initdb", "postgres"} {
			if v == "16" && name == "postgres" {
				continue // incomplete install: must be passed over
			}
			if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := findBinDirIn("/nonexistent/pg_config", filepath.Join(root, "*", "bin"))
	if err != nil || got != filepath.Join(root, "13", "bin") {
		t.Errorf("got %q, %v; want the 13 directory (16 lacks postgres, 13 is newer than 9)", got, err)
	}
	_, err = findBinDirIn("/nonexistent/pg_config", filepath.Join(t.TempDir(), "*", "bin"))
	if !errors.Is(err, errMissing) {
		t.Errorf("no binaries: got %v, want errMissing", err)
	}
}

// TestPreloadedStatements: the throwaway cluster preloads pg_stat_statements, so the
// extension works once created and counts a statement just run (skipped outside CI
// when the library is missing).
func TestPreloadedStatements(t *testing.T) {
	t.Parallel()
	d := NewDatabase(t)
	d.RequireExtension(t, "pg_stat_statements")
	c, err := connect(t, d.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var n int64
	if err := c.QueryRow(ctx, "SELECT 4242 AS preload_probe").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
 WHERE query = 'SELECT $1 AS preload_probe' AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Errorf("pg_stat_statements counted %d calls of the statement just run; want at least 1 (is it tracking?)", n)
	}
}
