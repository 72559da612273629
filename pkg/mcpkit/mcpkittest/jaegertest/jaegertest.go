// Package jaegertest starts a throwaway Jaeger (all-in-one, in-memory storage) for
// the acceptance tests of OpenTelemetry (package otelmcp): the servers export to its
// OTLP receiver, and the tests read the traces back through its query API, as an
// operator would. Jaeger is built from the module pinned in tools/jaeger (.ci/run
// installs it: `cd tools/jaeger && GOWORK=off go install tool`); without it a test
// is skipped, except in CI (CI set), where it fails.
package jaegertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// Jaeger is a running Jaeger.
type Jaeger struct {
	// OTLPEndpoint is its OTLP/HTTP receiver (http://127.0.0.1:PORT), the value of
	// OTEL_EXPORTER_OTLP_ENDPOINT for a server under test.
	OTLPEndpoint string
	query        string
}

// Bin finds the jaeger binary: $JAEGER_BIN, jaeger on PATH, or GOBIN / GOPATH/bin
// (where go install puts it).
func Bin() (string, error) {
	if b := os.Getenv("JAEGER_BIN"); b != "" {
		return b, nil
	}
	if b, err := exec.LookPath("jaeger"); err == nil {
		return b, nil
	}
	var dirs []string
	if gobin, err := exec.Command("go", "env", "GOBIN").Output(); err == nil && strings.TrimSpace(string(gobin)) != "" {
		dirs = append(dirs, strings.TrimSpace(string(gobin)))
	}
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, p := range filepath.SplitList(strings.TrimSpace(string(gopath))) {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, d := range dirs {
		b := filepath.Join(d, "jaeger")
		if st, err := os.Stat(b); err == nil && !st.IsDir() {
			return b, nil
		}
	}
	return "", fmt.Errorf("no jaeger binary (JAEGER_BIN, PATH, GOBIN, GOPATH/bin)")
}

const config = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: mem
    enable_tracing: false
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// Start runs Jaeger on free loopback ports and stops it when the test ends.
func Start(t testing.TB) *Jaeger {
	t.Helper()
	bin, err := Bin()
	realclient.Require(t, err == nil, "%v: install it with `cd tools/jaeger && GOWORK=off go install tool` (.ci/run does); CI must run the OpenTelemetry acceptance tests", err)
	ports := freePorts(t, 3)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, ports[0], ports[1], ports[2]), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfg)
	out := &lockedBuilder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting jaeger: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	})
	j := &Jaeger{OTLPEndpoint: fmt.Sprintf("http://127.0.0.1:%d", ports[2]), query: fmt.Sprintf("http://127.0.0.1:%d", ports[0])}
	deadline := time.Now().Add(60 * time.Second)
	for !(listening(ports[0]) && listening(ports[2])) {
		if time.Now().After(deadline) {
			t.Fatalf("jaeger did not listen within 60 s:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return j
}

// Span is a span as Jaeger's query API returns it, reduced to what the tests read.
type Span struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	ProcessID string `json:"processID"`
}

// Parent is the span's CHILD_OF parent, or "".
func (s Span) Parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// Tag returns a tag's value as text, and whether the span has it.
func (s Span) Tag(key string) (string, bool) {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value), true
		}
	}
	return "", false
}

// Trace polls the query API until the trace holds a span that done accepts (or 30 s
// pass: the test fails with what was there), and returns its spans and the raw JSON
// the API answered (for searching for what must not be there).
func (j *Jaeger) Trace(t testing.TB, traceID string, done func([]Span) bool) ([]Span, []byte) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last []byte
	for {
		resp, err := http.Get(j.query + "/api/traces/" + traceID)
		if err == nil {
			var body struct {
				Data []struct {
					Spans []Span `json:"spans"`
				} `json:"data"`
			}
			last, err = readAll(resp)
			if err == nil && resp.StatusCode == http.StatusOK && json.Unmarshal(last, &body) == nil && len(body.Data) == 1 && done(body.Data[0].Spans) {
				return body.Data[0].Spans, last
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s not complete in jaeger within 30 s; last answer: %s", traceID, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Named returns the span with that operation name, and whether there is one.
func Named(spans []Span, name string) (Span, bool) {
	for _, s := range spans {
		if s.OperationName == name {
			return s, true
		}
	}
	return Span{}, false
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 16<<20))
}

// lockedBuilder collects jaeger's output, written from its process's pipes.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freePorts(t testing.TB, n int) []int {
	var ports []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

func listening(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
