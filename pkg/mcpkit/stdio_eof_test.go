package mcpkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// A client that writes its requests and closes stdin at once (a shell pipeline, a
// script, a person's by-hand session) gets every answer: end of input stops the
// reading, not the requests already read (issue #25, item 8). Each round writes the
// whole input before the server starts, so the reader meets EOF while calls still run.
func TestStdinEOFAnswersEveryRequestRead(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "work", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		// A call that takes a moment, as a real one does (a directory walk, a query):
		// long enough that the reader reaches EOF first, far inside the grace period.
		select {
		case <-time.After(5 * time.Millisecond):
			return addOut{Sum: 1}, nil
		case <-ctx.Done():
			return addOut{}, ctx.Err()
		}
	})
	const n = 8
	var in strings.Builder
	for i := 1; i <= n; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}`+"\n", i, meta)
		} else {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"work",%s}}`+"\n", i, meta)
		}
	}
	for round := range 40 {
		var out bytes.Buffer
		if err := s.ServeStdio(context.Background(), strings.NewReader(in.String()), &out); err != nil {
			t.Fatalf("round %d: ServeStdio returned %v, want nil on EOF", round, err)
		}
		got := map[float64]bool{}
		for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("round %d: output line %q: %v", round, line, err)
			}
			if e := errCode(m); e != 0 {
				t.Fatalf("round %d: id %v answered error %v", round, m["id"], m["error"])
			}
			id, _ := m["id"].(float64)
			got[id] = true
		}
		for i := 1; i <= n; i++ {
			if !got[float64(i)] {
				t.Fatalf("round %d: request %d was read but never answered (answers: %v)", round, i, got)
			}
		}
	}
}

// A call that would run for ever is still cut off after stdin closes: the grace period
// ends, the call is cancelled, and the server returns within the exit bound
// TestStdinClosedMidRequestExitsPromptly holds; the quick request beside it is answered.
func TestStdinEOFStillCutsOffALongCall(t *testing.T) {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "t", Version: "1"}, nil)
	cancelled := make(chan struct{})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "block", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		<-ctx.Done()
		close(cancelled)
		return addOut{}, ctx.Err()
	})
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block",` + meta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}` + "\n"
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), strings.NewReader(in), &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio returned %v, want nil on EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit within 5s of stdin closing")
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("the long call was never cancelled")
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Fatalf("the quick request was not answered: %s", out.String())
	}
}
