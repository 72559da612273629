package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireRunc fails in CI and skips elsewhere when the image cannot be run here.
func requireRunc(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"umoci", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: %v", tool, err)
			}
			t.Skipf("%s is not installed (apt-get install runc umoci): %v", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the image smoke test runs containers with runc, which needs root here")
		}
		t.Skip("runc needs root here")
	}
}

// TestServerImages builds every server's image exactly as `make images` does and runs
// each under runc with no network, a read-only root, uid 65532 and no capabilities:
// it must answer server/discover and tools/list and exit on EOF, and be under 20 MB.
// The postgres server reaches a throwaway cluster through its Unix socket, mounted
// into the container (the container still has no network).
func TestServerImages(t *testing.T) {
	requireRunc(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, _ := filepath.Glob(filepath.Join(root, "servers", "*", "cmd", "mcp-server-*"))
	sort.Strings(cmds)
	if len(cmds) < 4 {
		t.Fatalf("found %d server commands, want the four servers: %v", len(cmds), cmds)
	}
	for _, cmdDir := range cmds {
		name := filepath.Base(cmdDir)
		module := filepath.Dir(filepath.Dir(cmdDir))
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), name)
			build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X github.com/mcpkit/reference/pkg/mcpkit.Version=v0.0.0-test", "-o", bin, "./cmd/"+name)
			build.Dir = module
			build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOWORK="+filepath.Join(root, "go.work"))
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("building %s: %v\n%s", name, err, out)
			}
			spec := Spec{Binary: bin, Name: name, Version: "v0.0.0-test", Arch: "amd64", Description: name}
			switch name {
			case "mcp-server-errors":
				spec.Env = listFlag{"ERRORS_DATA_DIR=/data"}
				spec.Tmpfs = listFlag{"/data"}
			case "mcp-server-filesystem":
				spec.Env = listFlag{"MCP_FS_ROOTS=/tmp"}
			case "mcp-server-postgres":
				sock := startPostgres(t)
				spec.Bind = listFlag{sock + ":/pgsock"}
				spec.Env = listFlag{"DATABASE_URL=postgres:///postgres?host=/pgsock&user=postgres", "POSTGRES_ALLOW_SUPERUSER=1"}
			}
			res, err := Build(spec, filepath.Join(t.TempDir(), "image"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f MB (%s)", name, float64(res.Size)/1e6, res.Digest)
			if res.Size > 20e6 {
				t.Errorf("%s image is %d bytes, over the 20 MB target", name, res.Size)
			}
			report, err := Smoke(res.LayoutDir, spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", name, report)
		})
	}
}

// startPostgres starts a throwaway cluster listening only on a Unix socket and
// returns the socket directory. PostgreSQL refuses to run as root, so it runs as the
// postgres user.
func startPostgres(t *testing.T) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	pgUser, uerr := user.Lookup("postgres")
	if len(bins) == 0 || uerr != nil {
		msg := fmt.Sprintf("PostgreSQL server binaries or the postgres user are missing (apt-get install postgresql): %v", uerr)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	sort.Strings(bins)
	binDir := filepath.Dir(bins[len(bins)-1])
	uid, _ := strconv.Atoi(pgUser.Uid)
	gid, _ := strconv.Atoi(pgUser.Gid)
	base, err := os.MkdirTemp("", "ocibuild-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	data, sock := filepath.Join(base, "data"), filepath.Join(base, "sock")
	for _, d := range []string{base, sock} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	asPostgres := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(binDir, name), args...)
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, Pdeathsig: syscall.SIGKILL}
		c.Dir = base
		return c
	}
	if out, err := asPostgres("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	srv := asPostgres("postgres", "-D", data, "-k", sock, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "unix_socket_permissions=0777")
	var logs strings.Builder
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(sock, ".s.PGSQL.5432")); err == nil {
			ready := asPostgres("pg_isready", "-h", sock, "-U", "postgres")
			if ready.Run() == nil {
				return sock
			}
		}
	}
	t.Fatalf("PostgreSQL did not become ready within 30s:\n%s", logs.String())
	return ""
}
