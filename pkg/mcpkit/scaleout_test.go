package mcpkit_test

// Stateless scale-out: three instances of one server share a state key behind a
// round-robin reverse proxy that sends consecutive requests to different instances
// and retries a request on the next instance when one cannot be reached.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// instance is one server process of the deployment, as the proxy sees it.
type instance struct {
	srv    *httptest.Server
	s      *mcpkit.Server
	served atomic.Int32 // requests it started to serve
}

// startInstances starts n instances of remotetest.Server sharing key. Each marks its
// responses with X-Instance so the test knows who served what.
func startInstances(t *testing.T, n int, key []byte) []*instance {
	t.Helper()
	out := make([]*instance, n)
	for i := range out {
		in := &instance{s: remotetest.Server(key, nil, nil)}
		h := remotetest.Service(t, in.s, nil)
		in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in.served.Add(1)
			w.Header().Set("X-Instance", strconv.Itoa(i))
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(in.srv.Close)
		out[i] = in
	}
	return out
}

// startProxy puts mcpkittest's round-robin reverse proxy in front of the instances:
// a request that cannot reach its instance is retried on the next one
// (X-Proxy-Retried); one whose connection broke after it was sent is not
// (X-Proxy-Error).
func startProxy(t *testing.T, ins []*instance) *httptest.Server {
	t.Helper()
	var backends []string
	for _, in := range ins {
		u, _ := url.Parse(in.srv.URL)
		backends = append(backends, u.Host)
	}
	srv := mcpkittest.RoundRobinProxy(backends...)
	t.Cleanup(srv.Close)
	return srv
}

func TestScaleOutBehindRoundRobinProxy(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	ins := startInstances(t, 3, key)
	proxy := startProxy(t, ins)
	c := remotetest.NewClient(t, proxy.URL+"/mcp")

	// Lists: consecutive requests land on every instance and get identical answers.
	checkListsIdentical := func(wantTools int) {
		t.Helper()
		seen := map[string]bool{}
		var first json.RawMessage
		for range 3 {
			r := c.Do("tools/list", nil)
			if r.Status != 200 || r.Err != nil {
				t.Fatalf("tools/list: %d %v", r.Status, r.Err)
			}
			seen[r.Header.Get("X-Instance")] = true
			if first == nil {
				first = r.Result
			} else if !bytes.Equal(first, r.Result) {
				t.Fatalf("tools/list differs between instances:\n%s\n%s", first, r.Result)
			}
		}
		if len(seen) != 3 {
			t.Errorf("three consecutive tools/list went to instances %v, want all three", seen)
		}
		var lr struct{ Tools []json.RawMessage }
		if err := json.Unmarshal(first, &lr); err != nil || len(lr.Tools) != wantTools {
			t.Errorf("tools/list has %d tools, want %d (%v)", len(lr.Tools), wantTools, err)
		}
	}
	checkListsIdentical(3)

	if tr := c.Do("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 20, "b": 22}}).Tool(t); tr.Text() != `{"sum":42}` {
		t.Fatalf("add answered %q", tr.Text())
	}

	// A multi-round-trip elicitation: the retry lands on another instance, which
	// verifies the state the first one signed.
	r1 := c.Do("tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}})
	first := r1.Tool(t)
	if first.ResultType != "input_required" || first.RequestState == "" || first.InputRequests["ok"] == nil {
		t.Fatalf("first round: %s", r1.Result)
	}
	answer := map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}
	retry := map[string]any{"name": "confirm", "arguments": map[string]any{}, "inputResponses": answer, "requestState": first.RequestState}
	r2 := c.Do("tools/call", retry)
	if got := r2.Tool(t).Text(); got != "confirmed: accept true" {
		t.Fatalf("retry answered %q", got)
	}
	i1, i2 := r1.Header.Get("X-Instance"), r2.Header.Get("X-Instance")
	if i1 == "" || i1 == i2 {
		t.Fatalf("the retry was served by instance %q, the first call by %q: they must differ", i2, i1)
	}
	t.Logf("elicitation: first round on instance %s, retry on instance %s", i1, i2)
	// Control: an instance with another key refuses that state, so the shared key is
	// what made the retry work.
	stranger := httptest.NewServer(remotetest.Service(t, remotetest.Server(bytes.Repeat([]byte("x"), 32), nil, nil), nil))
	defer stranger.Close()
	sr := remotetest.NewClient(t, stranger.URL+"/mcp").Do("tools/call", retry)
	if sr.Err == nil || !strings.Contains(sr.Err.Message, "signature does not verify") {
		t.Fatalf("an instance with another key accepted the state: %s", sr.Body)
	}

	// A listen stream on one instance hears about changes. The backend changes for
	// every instance alike (each watches the same system), so each instance updates
	// its tool list and notifies its own listeners.
	st := c.Listen(map[string]any{"toolsListChanged": true})
	ack := st.Next(t)
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first listen event: %v", ack)
	}
	host, _ := strconv.Atoi(st.Resp.Header.Get("X-Instance"))
	for _, in := range ins {
		mcpkit.AddTool(in.s, &mcpkit.Tool{Name: "report", Description: "Added while serving.", Annotations: mcpkit.ReadOnly()},
			func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
				return mcpkit.ToolError("not yet"), nil
			})
	}
	if ev := st.Next(t); ev["method"] != "notifications/tools/list_changed" {
		t.Fatalf("listen stream on instance %d got %v, want tools/list_changed", host, ev)
	}
	checkListsIdentical(4)

	// Kill an instance (not the one holding the stream) while clients keep calling.
	// Every request the proxy retried on the next instance succeeds. The only
	// requests allowed to fail are those whose connection the dying instance had
	// already accepted, which the proxy rightly does not replay.
	victim := ins[(host+1)%3]
	const workers, perWorker = 4, 30
	var done, retriedOK, inFlightLost atomic.Int32
	killed := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := remotetest.NewClient(t, proxy.URL+"/mcp")
			for i := range perWorker {
				r, err := wc.Try("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": w, "b": i}})
				ok := err == nil && r.Status == 200 && r.Err == nil && strings.Contains(string(r.Result), fmt.Sprintf(`"structuredContent":{"sum":%d}`, w+i))
				switch {
				case ok && r.Header.Get("X-Proxy-Retried") != "":
					retriedOK.Add(1)
				case ok:
				case err == nil && r.Header.Get("X-Proxy-Error") == "broken after sending: not retried":
					inFlightLost.Add(1)
				default:
					mu.Lock()
					failures = append(failures, fmt.Sprintf("worker %d call %d: %v %+v", w, i, err, r))
					mu.Unlock()
				}
				if done.Add(1) == workers*perWorker/3 {
					close(killed)
				}
			}
		}()
	}
	<-killed
	victim.srv.Close() // stops accepting, drops connections it has not read, ends
	servedAtDeath := victim.served.Load()
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d calls failed while an instance was killed, though the proxy could retry them or they reached a live instance:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	if retriedOK.Load() == 0 {
		t.Errorf("no request was retried after the instance died: the kill was not exercised")
	}
	if got := victim.served.Load(); got != servedAtDeath {
		t.Errorf("the dead instance served %d more requests", got-servedAtDeath)
	}
	t.Logf("kill: %d calls; %d routed to the dead instance were retried on the next and succeeded; %d were on connections the dying instance had accepted (not replayed)",
		workers*perWorker, retriedOK.Load(), inFlightLost.Load())

	// The stream outlived the other instance's death, and ends cleanly with its
	// completion result when its own instance shuts down.
	mcpkit.AddTool(ins[host].s, &mcpkit.Tool{Name: "late", Description: "Added after the kill.", Annotations: mcpkit.ReadOnly()},
		func(ctx context.Context, req *mcpkit.Request, in struct{}) (*mcpkit.CallToolResult, error) {
			return nil, nil
		})
	if ev := st.Next(t); ev["method"] != "notifications/tools/list_changed" {
		t.Fatalf("after the kill the stream got %v", ev)
	}
	ins[host].s.Shutdown()
	end := st.Next(t)
	res, _ := end["result"].(map[string]any)
	if res == nil || res["resultType"] != "complete" {
		t.Fatalf("the stream ended with %v, want its completion result", end)
	}
}
