// Package pgtest gives tests a real PostgreSQL: the server named by
// MCPKIT_TEST_DATABASE_URL, or else a throwaway cluster started once per test binary
// from the machine's PostgreSQL binaries. Each test gets a fresh database of its own,
// so tests neither share tables nor need to clean up after themselves.
//
// Use it from TestMain so the cluster is stopped when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// A test that cannot get a PostgreSQL fails when the environment variable CI is set
// and is skipped otherwise.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// EnvURL names an existing PostgreSQL server for tests, as a URL whose role may create
// databases and roles (a superuser is simplest). When it is unset, a throwaway cluster
// is started.
const EnvURL = "MCPKIT_TEST_DATABASE_URL"

// PasswordGroup is a role whose members must log in with a password on a throwaway
// cluster (pg_hba.conf scram-sha-256); see Database.CreateRole.
const PasswordGroup = "mcpkit_password_auth"

// errMissing marks "no PostgreSQL on this machine", the one failure that may skip a
// test outside CI.
var errMissing = errors.New("PostgreSQL server binaries not found")

// cluster is a running PostgreSQL: either a throwaway one this package started, or
// the external server named by EnvURL.
type cluster struct {
	adminURL string        // superuser URL of the maintenance database
	startup  time.Duration // how long initdb + start took; 0 for an external server
	external bool

	cmd  *exec.Cmd     // the postgres process, nil for an external server
	done chan struct{} // closed when the postgres process has exited
	dir  string        // temporary directory holding data and socket
	log  string        // path of the server log
}

// startCluster returns the external server when EnvURL is set, and otherwise starts a
// throwaway cluster.
func startCluster() (*cluster, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return &cluster{adminURL: u, external: true}, nil
	}
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	return startThrowaway(bin)
}

// findBinDir locates initdb and postgres: pg_config --bindir first, then the newest
// /usr/lib/postgresql/*/bin.
func findBinDir() (string, error) {
	return findBinDirIn("pg_config", "/usr/lib/postgresql/*/bin")
}

// findBinDirIn is findBinDir with the pg_config command and the glob as parameters.
func findBinDirIn(pgConfig, pattern string) (string, error) {
	var candidates []string
	if out, err := exec.Command(pgConfig, "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	dirs, _ := filepath.Glob(pattern)
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	candidates = append(candidates, dirs...)
	for _, d := range candidates {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w (looked in pg_config --bindir and /usr/lib/postgresql/*/bin; install with `apt-get install -y postgresql` or set %s)", errMissing, EnvURL)
}

// versionOf extracts the major version from /usr/lib/postgresql/<N>/bin.
func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// startThrowaway runs initdb into a new temporary directory and starts postgres on a
// Unix socket only, with durability switched off: the data is thrown away anyway.
func startThrowaway(bin string) (*cluster, error) {
	began := time.Now()
	cred, uid, gid, err := serverCredential()
	if err != nil {
		return nil, err
	}
	removeStaleDirs()
	dir, err := os.MkdirTemp("", "mcpkit-pgtest-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	c := &cluster{dir: dir, log: filepath.Join(dir, "server.log")}
	data := filepath.Join(dir, "data")

	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb failed: %v\n%s", err, out)
	}

	// Members of PasswordGroup must authenticate with a password, so tests can see
	// how a failed password login is reported; everyone else is trusted.
	hba := "local all +" + PasswordGroup + " scram-sha-256\nlocal all all trust\n"
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		os.Chown(filepath.Join(data, "pg_hba.conf"), uid, gid)
	}

	logf, err := os.Create(c.log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	args := []string{"-D", data, "-k", dir, "-p", "5432",
		"-c", "listen_addresses=",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=200",
		"-c", "shared_buffers=32MB",
		"-c", "log_min_messages=warning",
	}
	// pg_stat_statements ships with PostgreSQL (contrib) but works only when loaded at
	// server start; tests that need it create the extension in their own database
	// (Database.RequireExtension). Preloaded only when the library is there, so a
	// server without contrib still starts.
	if hasLibrary(bin, "pg_stat_statements") {
		args = append(args, "-c", "shared_preload_libraries=pg_stat_statements")
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	// SIGQUIT is PostgreSQL's immediate shutdown: the postmaster takes its backends
	// with it when the test binary dies without stopping it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	c.cmd = cmd
	c.done = make(chan struct{})
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); close(c.done) }()

	c.adminURL = (&url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Path:     "/postgres",
		RawQuery: url.Values{"host": {dir}, "port": {"5432"}, "sslmode": {"disable"}}.Encode(),
	}).String()
	if err := waitReady(c.adminURL, exited); err != nil {
		logText, _ := os.ReadFile(c.log)
		c.stop()
		return nil, fmt.Errorf("%w\nserver log:\n%s", err, tail(logText, 2000))
	}
	c.startup = time.Since(began)
	return c, nil
}

// hasLibrary reports whether the server's package library directory (pg_config
// --pkglibdir next to the binaries, else <bindir>/../lib as on Debian) holds the
// loadable module name.
func hasLibrary(bin, name string) bool {
	dirs := []string{filepath.Join(filepath.Dir(bin), "lib")}
	if out, err := exec.Command(filepath.Join(bin, "pg_config"), "--pkglibdir").Output(); err == nil {
		dirs = append([]string{strings.TrimSpace(string(out))}, dirs...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, name+".so")); err == nil {
			return true
		}
	}
	return false
}

// serverCredential says which user initdb and postgres run as: the postgres user
// when this process is root (initdb refuses to run as root), else the current user.
func serverCredential() (cred *syscall.Credential, uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return nil, 0, 0, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("running as root, and initdb refuses root: need the `postgres` user to run it as (%v)", err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, uid, gid, nil
}

// waitReady polls the socket until the server accepts a connection, the server
// exits, or 60 s pass.
func waitReady(adminURL string, exited <-chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("postgres exited during startup: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgconn.Connect(ctx, adminURL)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("postgres not ready after 60s: %v", last)
}

// stop shuts a throwaway cluster down immediately and removes its files.
func (c *cluster) stop() {
	if c == nil || c.external {
		return
	}
	if c.cmd != nil && c.cmd.Process != nil {
		c.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	}
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

func tail(b []byte, n int) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// removeStaleDirs deletes clusters left behind by test binaries that were killed
// (their postgres died with them, through Pdeathsig): directories over an hour old
// whose postmaster is gone.
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "mcpkit-pgtest-*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || time.Since(st.ModTime()) < time.Hour {
			continue
		}
		pidText, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid"))
		if err == nil {
			line, _, _ := strings.Cut(string(pidText), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && syscall.Kill(pid, 0) == nil {
				continue // still running
			}
		}
		os.RemoveAll(d)
	}
}
