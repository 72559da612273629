package benchcmp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// GoSDKVersion is the Go SDK release whose conformance fixture we compare against:
// the same release as the Go SDK client the tests use.
const GoSDKVersion = "v1.8.0"

const goSDKFixturePkg = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// GoSDKFixture returns the path of the Go SDK's conformance fixture binary
// (everything-server), installing it with `go install …@v1.8.0` into the user cache
// directory the first time. Its flags: -http ADDR serves Streamable HTTP instead of
// stdio; -stateless (default true) selects stateless HTTP.
func GoSDKFixture() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "mcpkit-reference", "bench", "go-sdk-"+GoSDKVersion)
	bin := filepath.Join(dir, "everything-server")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Install into a fresh directory and rename, so concurrent benchmark binaries
	// never run a half-written file.
	tmp, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "install", goSDKFixturePkg+"@"+GoSDKVersion)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v\n%s", goSDKFixturePkg, GoSDKVersion, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "everything-server"), bin); err != nil {
		return "", err
	}
	return bin, nil
}
