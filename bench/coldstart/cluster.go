package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// cluster is a throwaway PostgreSQL on a Unix socket, with SCRAM password
// authentication (as a deployment would have, so that connecting costs what it
// costs) and a login role holding only pg_read_all_data, the recommended setup.
type cluster struct {
	dir, data, bin, url string
	cred                *syscall.Credential
}

const (
	clusterPort     = "5441"
	clusterPassword = "coldstart-pw"
)

func findPGBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(r), nil
		}
		return filepath.Dir(p), nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		return "", errors.New("initdb not found")
	}
	return filepath.Dir(m[len(m)-1]), nil
}

func startCluster(tmp string) (*cluster, error) {
	bin, err := findPGBin()
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: filepath.Join(tmp, "pg"), bin: bin}
	c.data = filepath.Join(c.dir, "data")
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 { // initdb refuses root: run the cluster as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		for _, d := range []string{tmp, c.dir} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, err
			}
		}
		os.Chmod(tmp, 0o755)
	}
	pw := filepath.Join(c.dir, "pw")
	if err := os.WriteFile(pw, []byte(clusterPassword+"\n"), 0o600); err != nil {
		return nil, err
	}
	if c.cred != nil {
		os.Chown(pw, int(c.cred.Uid), int(c.cred.Gid))
	}
	if out, err := c.run("initdb", "-D", c.data, "-U", "postgres", "--pwfile", pw, "--auth=scram-sha-256",
		"--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if out, err := c.run("pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "log"), "-w", "-o",
		"-k "+c.dir+" -p "+clusterPort+" -c listen_addresses='' -c fsync=off -c synchronous_commit=off", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	admin := "postgres://postgres:" + clusterPassword + "@/postgres?host=" + url.QueryEscape(c.dir) + "&port=" + clusterPort
	sql := "CREATE ROLE mcp_reader LOGIN PASSWORD '" + clusterPassword + "'; GRANT pg_read_all_data TO mcp_reader;"
	cmd := exec.Command("psql", admin, "-v", "ON_ERROR_STOP=1", "-qc", sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.stop()
		return nil, fmt.Errorf("creating the reader role: %v\n%s", err, out)
	}
	c.url = "postgres://mcp_reader:" + clusterPassword + "@/postgres?host=" + url.QueryEscape(c.dir) + "&port=" + clusterPort
	// The socket answers: the cluster is up.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if conn, err := net.Dial("unix", filepath.Join(c.dir, ".s.PGSQL."+clusterPort)); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, errors.New("the cluster's socket never answered")
		}
	}
	return c, nil
}

func (c *cluster) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd.CombinedOutput()
}

func (c *cluster) stop() {
	c.run("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop")
}
