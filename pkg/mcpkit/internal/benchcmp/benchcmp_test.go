package benchcmp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolCallLines checks that the pre-rendered requests are the JSON-RPC the
// servers expect: one line, the id given, _meta only at 2026-07-28.
func TestToolCallLines(t *testing.T) {
	for _, tc := range []struct {
		revision string
		wantMeta bool
	}{{Modern, true}, {Legacy, false}} {
		t.Run(tc.revision, func(t *testing.T) {
			line := NewToolCall(tc.revision, "add", json.RawMessage(`{"a":1}`)).Line(42)
			if strings.Count(string(line), "\n") != 1 || line[len(line)-1] != '\n' {
				t.Fatalf("not exactly one newline-terminated line: %q", line)
			}
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
				ID      int64  `json:"id"`
				Method  string `json:"method"`
				Params  struct {
					Meta      map[string]json.RawMessage `json:"_meta"`
					Name      string                     `json:"name"`
					Arguments map[string]int             `json:"arguments"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			got := fmt.Sprintf("%s %d %s %s %v", msg.JSONRPC, msg.ID, msg.Method, msg.Params.Name, msg.Params.Arguments)
			if diff := cmp.Diff("2.0 42 tools/call add map[a:1]", got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if v := string(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]); (v == `"2026-07-28"`) != tc.wantMeta {
				t.Errorf("_meta protocolVersion = %q, want present: %v", v, tc.wantMeta)
			}
		})
	}
}

func TestEchoLineShape(t *testing.T) {
	line := EchoLine(300)(7)
	if len(line) < 290 || len(line) > 310 {
		t.Errorf("length %d, want about 300", len(line))
	}
	if id, ok := responseID(line); !ok || id != 7 || !isResponse(line) {
		t.Errorf("echo line %q is not a response with id 7 (id %d, ok %v)", line, id, ok)
	}
	if !json.Valid(line) {
		t.Errorf("echo line is not JSON: %q", line)
	}
}

// pipeServer answers every request line on the far side of a pipe pair with
// answer(line), as a goroutine.
func pipeServer(t *testing.T, answer func(line string) []string) *LineConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		defer outW.Close()
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			for _, l := range answer(sc.Text()) {
				if _, err := io.WriteString(outW, l+"\n"); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return NewLineConn(inW, outR)
}

func idOf(t *testing.T, line string) int64 {
	var m struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Errorf("server got %q: %v", line, err)
	}
	return m.ID
}

// TestRoundTripSkipsNotifications: a notification sent before the response is not
// mistaken for it.
func TestRoundTripSkipsNotifications(t *testing.T) {
	conn := pipeServer(t, func(line string) []string {
		return []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"ok":true}}`, idOf(t, line)),
		}
	})
	resp, err := conn.RoundTrip(NewToolCall(Modern, "x", nil).Line(3))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`+"\n", string(resp)); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// TestCallMatchesIDs: concurrent callers each get the response to their own id,
// even when the server answers out of order.
func TestCallMatchesIDs(t *testing.T) {
	var mu sync.Mutex
	var held []int64
	conn := pipeServer(t, func(line string) []string {
		mu.Lock()
		defer mu.Unlock()
		held = append(held, idOf(t, line))
		if len(held) < 2 {
			return nil
		}
		// Answer the pair in reverse order.
		out := []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"echo":%d}}`, held[1], held[1]),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"echo":%d}}`, held[0], held[0]),
		}
		held = held[:0]
		return out
	})
	call := NewToolCall(Modern, "x", nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sent int64
			resp, err := conn.Call(func(id int64) []byte { sent = id; return call.Line(id) })
			if err != nil {
				t.Error(err)
				return
			}
			if want := fmt.Sprintf(`"echo":%d`, sent); !strings.Contains(string(resp), want) {
				t.Errorf("request %d got %s", sent, resp)
			}
		}()
	}
	wg.Wait()
}

// TestCallFailsWhenServerEnds: a server that closes its output fails pending and
// later calls instead of hanging them.
func TestCallFailsWhenServerEnds(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := NewLineConn(inW, outR)
	go func() { // read one request, then end the output without answering
		_, _ = inR.Read(make([]byte, 1024))
		outW.Close()
	}()
	if _, err := conn.Call(NewToolCall(Modern, "x", nil).Line); err == nil {
		t.Fatal("a call to a server that closed its output succeeded")
	}
	if _, err := conn.Call(NewToolCall(Modern, "x", nil).Line); err == nil {
		t.Fatal("a later call succeeded")
	}
}

func TestLastSSEResponse(t *testing.T) {
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
		"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n"
	got, err := lastSSEResponse([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":{}}`, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := lastSSEResponse([]byte("data: {\"method\":\"x\"}\n\n")); err == nil {
		t.Error("a stream without a response was accepted")
	}
}

func TestEcho(t *testing.T) {
	in := "one\n" + strings.Repeat("x", 100<<10) + "\nthree\n"
	var out strings.Builder
	if err := Echo(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Errorf("echo changed the lines: got %d bytes, want %d", out.Len(), len(in))
	}
}
