package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A throwaway PostgreSQL for the postgres server's launches (it connects before it
// serves): started once per test binary from the machine's PostgreSQL binaries, on a
// Unix socket only, with a login role that is not a superuser (the server refuses
// superusers by default). servers/postgres/internal/pgtest does the same for that
// module's tests; its exported face, servers/postgres/postgrestest, hands out the
// superuser's URL only, and would make this module (which depends on no other of the
// repository's) require the postgres server's module and its driver.
var (
	pgOnce sync.Once
	pgURL  string
	pgErr  error
	pgCmd  *exec.Cmd
	pgDir  string
)

// postgresURL returns the URL of the throwaway cluster's reader role, failing the
// test in CI and skipping it elsewhere when PostgreSQL is not installed.
func postgresURL(t *testing.T) string {
	t.Helper()
	pgOnce.Do(func() { pgURL, pgErr = startPostgres() })
	require(t, pgErr == nil, "no PostgreSQL for the postgres server: %v", pgErr)
	return pgURL
}

func pgBinDir() (string, error) {
	var candidates []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range append(candidates, dirs...) {
		ok := true
		for _, b := range []string{"initdb", "postgres", "pg_isready", "psql"} {
			if _, err := os.Stat(filepath.Join(d, b)); err != nil {
				ok = false
			}
		}
		if ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL server binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin; apt-get install postgresql)")
}

func startPostgres() (string, error) {
	bin, err := pgBinDir()
	if err != nil {
		return "", err
	}
	var cred *syscall.Credential
	dir, err := os.MkdirTemp("", "release-pg-")
	if err != nil {
		return "", err
	}
	pgDir = dir
	if os.Geteuid() == 0 { // initdb refuses root: run it as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", fmt.Errorf("running as root, and initdb refuses root: need the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", err
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) error {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		return nil
	}
	if err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return "", err
	}
	pgCmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-p", "5432",
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "shared_buffers=16MB")
	pgCmd.Dir = dir
	pgCmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := pgCmd.Start(); err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for run("pg_isready", "-q", "-h", dir, "-p", "5432") != nil {
		if time.Now().After(deadline) {
			return "", fmt.Errorf("postgres not ready after 60s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := run("psql", "-q", "-h", dir, "-p", "5432", "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1",
		"-c", "CREATE ROLE mcp_reader LOGIN", "-c", "GRANT pg_read_all_data TO mcp_reader"); err != nil {
		return "", err
	}
	u := url.URL{Scheme: "postgres", User: url.User("mcp_reader"), Path: "/postgres",
		RawQuery: url.Values{"host": {dir}, "port": {"5432"}, "sslmode": {"disable"}}.Encode()}
	return u.String(), nil
}

func stopPostgres() {
	if pgCmd != nil && pgCmd.Process != nil {
		pgCmd.Process.Signal(syscall.SIGQUIT)
		done := make(chan struct{})
		go func() { pgCmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			pgCmd.Process.Kill()
		}
	}
	if pgDir != "" {
		os.RemoveAll(pgDir)
	}
}
