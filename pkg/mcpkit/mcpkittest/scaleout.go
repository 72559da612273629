package mcpkittest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// RoundRobinProxy serves HTTP in front of backends (host:port) the way a round-robin
// load balancer does, for scale-out tests: each request goes to the next instance in
// turn, and the response says which instance answered (X-Instance, its index in
// backends). A request that cannot reach its instance (the dial failed: nothing was
// sent) is retried on the next one, and its response says so (X-Proxy-Retried, how
// many instances were skipped). A request whose connection broke after it was sent is
// never replayed, since the instance may have run it and a tool call must not run
// twice: the proxy answers 502 with X-Proxy-Error "broken after sending: not retried"
// ("no instance reachable" when every dial failed). Connections are not kept alive,
// so every request is balanced. The caller closes it.
func RoundRobinProxy(backends ...string) *httptest.Server {
	rr := &roundRobin{backends: backends, rt: &http.Transport{DisableKeepAlives: true}}
	return httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "upstream" },
		Transport: rr,
		ErrorLog:  log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				w.Header().Set("X-Proxy-Error", "no instance reachable")
			} else {
				w.Header().Set("X-Proxy-Error", "broken after sending: not retried")
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	})
}

type roundRobin struct {
	backends []string
	next     atomic.Uint64
	rt       http.RoundTripper
}

func (r *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	start := r.next.Add(1) - 1
	var lastErr error
	for i := range len(r.backends) {
		n := int(start+uint64(i)) % len(r.backends)
		out := req.Clone(req.Context())
		out.URL.Host = r.backends[n]
		out.Host = ""
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		resp, err := r.rt.RoundTrip(out)
		if err == nil {
			resp.Header.Set("X-Instance", strconv.Itoa(n))
			if i > 0 {
				resp.Header.Set("X-Proxy-Retried", strconv.Itoa(i))
			}
			return resp, nil
		}
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// Task is the result of a tools/call answered with a task (CreateTaskResult) or of a
// tasks/get, tasks/update or tasks/cancel request, as scale-out tests read it.
type Task struct {
	ResultType, TaskID, Status, StatusMessage string
	Result                                    json.RawMessage
	Error                                     *mcpkit.Error
}

// AwaitFailedAfterKill is the last step of a scale-out test: the instance creator, which
// ran a task, was killed (SIGKILL) at killed, and get (tasks/get of that task through
// the proxy, returning the task and the X-Instance that answered) is polled until the
// task is failed. The dead instance must never answer, the task must stay working until
// it fails, within lease + 10 s of the kill, and the failure must be an internal error
// saying the task stopped before it finished. It returns the failed task.
func AwaitFailedAfterKill(t testing.TB, get func() (Task, string), creator int, killed time.Time, lease time.Duration) Task {
	t.Helper()
	for {
		last, in := get()
		if in == strconv.Itoa(creator) {
			t.Fatal("the dead instance answered")
		}
		if last.Status == mcpkit.TaskFailed {
			if last.Error == nil || last.Error.Code != mcpkit.CodeInternalError || !strings.Contains(last.Error.Message, "stopped before it finished") {
				t.Fatalf("failed task: %+v", last)
			}
			return last
		}
		if last.Status != mcpkit.TaskWorking || time.Since(killed) > lease+10*time.Second {
			t.Fatalf("after the creating instance died: %+v", last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// servingHTTP is the line serve.Serve logs once it listens for Streamable HTTP.
var servingHTTP = regexp.MustCompile(`serving MCP on Streamable HTTP.* addr=(\S+)`)

// StartHTTPServer starts cmd, a server process told to serve Streamable HTTP on a
// free port (serve's --http 127.0.0.1:0), and returns the address it logs that it
// serves on. Every line the process writes to stderr also goes to onLine when set.
// The process is killed when the test ends; the test fails if it does not serve
// within 30 s.
func StartHTTPServer(t testing.TB, cmd *exec.Cmd, onLine func(line string)) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if m := servingHTTP.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			if onLine != nil {
				onLine(line)
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not serve HTTP within 30 s", filepath.Base(cmd.Path))
	}
	return ""
}
