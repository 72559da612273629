package tokens

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// stdioServer is a server process (the reference filesystem server) driven with
// newline-delimited JSON-RPC at 2025-11-25, the newest revision it speaks.
type stdioServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	nextID int
	instr  string
}

func startStdio(t testing.TB, env []string, argv ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{cmd: exec.Command(argv[0], argv[1:]...)}
	s.cmd.Env = env
	s.cmd.Stderr = &s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	var init struct {
		Instructions string `json:"instructions"`
	}
	if err := json.Unmarshal(s.request(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "tokens", "version": "1"}}), &init); err != nil {
		t.Fatal(err)
	}
	s.instr = init.Instructions
	if _, err := fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	return s
}

// request sends a request and returns its result, skipping notifications.
func (s *stdioServer) request(t testing.TB, method string, params any) json.RawMessage {
	t.Helper()
	s.nextID++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if _, err := s.stdin.Write(append(msg, '\n')); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v (stderr: %.2000s)", method, err, s.stderr.String())
		}
		var resp struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &resp) != nil || resp.ID == nil || resp.Method != "" {
			continue // a notification or a request of the server's
		}
		if resp.Error != nil {
			t.Fatalf("%s failed: %s", method, resp.Error)
		}
		return resp.Result
	}
}

func (s *stdioServer) tools(t testing.TB) []json.RawMessage {
	return mcpkittest.AllTools(t, func(method string, params any) json.RawMessage { return s.request(t, method, params) })
}

func (s *stdioServer) instructions(testing.TB) string { return s.instr }

func (s *stdioServer) call(t testing.TB, name string, args map[string]any) json.RawMessage {
	return s.request(t, "tools/call", map[string]any{"name": name, "arguments": args})
}

func (s *stdioServer) close() { realclient.EndStdio(s.cmd, s.stdin) }
