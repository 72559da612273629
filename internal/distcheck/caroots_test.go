package distcheck

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServersCarryCARoots: the release images (tools/ocibuild) hold only the binary,
// no /etc/ssl, so every server that may dial TLS (GitHub, Sentry, PostgreSQL with
// sslmode, SENTRY_DSN over https) links golang.org/x/crypto/x509roots/fallback, which
// crypto/x509 uses when the system has no roots.
func TestServersCarryCARoots(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed to list the servers' packages")
	}
	root := repoRoot(t)
	for _, s := range []string{"errors", "filesystem", "github", "postgres"} {
		cmd := exec.Command("go", "list", "-deps", "./cmd/mcp-server-"+s)
		cmd.Dir = filepath.Join(root, "servers", s)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps in servers/%s: %v\n%s", s, err, out)
		}
		if !strings.Contains("\n"+string(out), "\ngolang.org/x/crypto/x509roots/fallback\n") {
			t.Errorf("mcp-server-%s does not link golang.org/x/crypto/x509roots/fallback: in the release image it would have no CA roots", s)
		}
	}
}
