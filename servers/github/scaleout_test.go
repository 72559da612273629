package github

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/remoteclient"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// TestCreateIssueReplayScaleOutWithRedis (issue 32): three mcp-server-github processes
// with writes on and one state key share one Redis (--task-store, which is also the
// replay store), behind a round-robin proxy, against the fake GitHub. A create_issue
// confirmed on one instance creates one issue; its confirmed requestState sent again
// reaches each other instance in turn and is refused as already used, and GitHub saw
// one write.
func TestCreateIssueReplayScaleOutWithRedis(t *testing.T) {
	redisURL := redistest.Start(t) // skipped without redis-server, except in CI
	f := newFake(t)
	key := mcpkittest.StateKeyFile(t)
	var backends []string
	for range 3 {
		cmd := exec.Command(serverBinary(t), "--http", "127.0.0.1:0", "--audit=false", "--task-store", redisURL, "--state-key-file", key)
		cmd.Env = os.Environ()
		for _, name := range serve.StandardEnv() {
			cmd.Env = append(cmd.Env, name+"=")
		}
		cmd.Env = append(cmd.Env, "GITHUB_HOST="+f.srv.URL, "GITHUB_TOKEN="+testToken, "GITHUB_ALLOW_WRITES=1",
			"GITHUB_REPOS=", "GITHUB_TOOLSETS=", "GITHUB_TOOLS=", "GITHUB_LOCKDOWN=")
		backends = append(backends, mcpkittest.StartHTTPServer(t, cmd, nil))
	}
	proxy := mcpkittest.RoundRobinProxy(backends...)
	defer proxy.Close()
	c := remoteclient.NewClient(t, proxy.URL+"/mcp")
	c.HC.Timeout = 10 * time.Second

	args := validArgs["create_issue"]
	retry := mcpkittest.AskConfirmation(t, c, "create_issue", args).Accept("create_issue", args)
	before := f.writes()
	r := c.Do("tools/call", retry)
	if r.Err != nil || r.Status != http.StatusOK || strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("the confirmed create_issue: %d %s", r.Status, r.Body)
	}
	ran := r.Header.Get("X-Instance")
	by := mcpkittest.ReplayRefusedEverywhere(t, c, retry, ran, 3)
	if n := f.writes() - before; n != 1 {
		t.Fatalf("GitHub saw %d writes, want the one confirmed", n)
	}
	t.Logf("create_issue confirmed on instance %s; the replayed requestState was refused by instances %v; GitHub saw one write", ran, by)
}
