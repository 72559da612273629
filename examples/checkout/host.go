package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server is one MCP server the host is configured with, connected on first use.
type server struct {
	name      string // as the transcript shows it: errors/http, errors/stdio, filesystem
	revision  string // protocol revision the host asks for
	url       string // Streamable HTTP endpoint, or
	command   []string
	env       []string
	stderr    *tail
	session   *mcp.ClientSession
	tools     map[string]*mcp.Tool
	toolsSize int // bytes of tools/list, which a host puts in the model's context
}

// A call is one tool call of the investigation as the transcript shows it.
type call struct {
	Server  string         `json:"server"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
	Bytes   int            `json:"bytes"` // text the model reads: the result's text blocks
	IsError bool           `json:"isError,omitempty"`
	Text    string         `json:"-"`
}

// host is the scripted host: the Go SDK client on every server, and the
// transcript of the tool calls made through it.
type host struct {
	servers map[string]*server
	calls   []call
	client  *mcp.Client
}

func newHost(servers ...*server) *host {
	h := &host{servers: map[string]*server{}, client: mcp.NewClient(&mcp.Implementation{Name: "checkout-host", Version: "1.0.0"}, nil)}
	for _, s := range servers {
		h.servers[s.name] = s
	}
	return h
}

// connect starts (stdio) or reaches (HTTP) a server, negotiates its revision and
// lists its tools, as a host does when a conversation starts.
func (h *host) connect(ctx context.Context, s *server) error {
	if s.session != nil {
		return nil
	}
	var transport mcp.Transport
	if s.url != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		cmd := exec.Command(s.command[0], s.command[1:]...)
		cmd.Env = append(os.Environ(), s.env...)
		s.stderr = &tail{}
		cmd.Stderr = s.stderr
		transport = &mcp.CommandTransport{Command: cmd}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	session, err := h.client.Connect(cctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: s.revision})
	if err != nil {
		return fmt.Errorf("connect to %s: %w%s", s.name, err, s.stderr.note())
	}
	if got := session.InitializeResult().ProtocolVersion; got != s.revision {
		session.Close()
		return fmt.Errorf("connect to %s: negotiated %s, asked for %s", s.name, got, s.revision)
	}
	list, err := session.ListTools(cctx, nil)
	if err != nil {
		session.Close()
		return fmt.Errorf("%s: tools/list: %w", s.name, err)
	}
	s.session, s.tools = session, map[string]*mcp.Tool{}
	for _, t := range list.Tools {
		s.tools[t.Name] = t
	}
	if b, err := json.Marshal(list.Tools); err == nil {
		s.toolsSize = len(b)
	}
	return nil
}

// hasParam reports whether a tool's input schema has a property: what a model
// learns from tools/list about what it may pass.
func (s *server) hasParam(tool, param string) bool {
	t := s.tools[tool]
	if t == nil {
		return false
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	b, _ := json.Marshal(t.InputSchema)
	_ = json.Unmarshal(b, &schema)
	_, ok := schema.Properties[param]
	return ok
}

// call makes one tool call and records it. A tool error (isError) is returned as
// a result, as a model sees it; a protocol or transport failure is an error.
func (h *host) call(ctx context.Context, serverName, tool string, args map[string]any) (call, error) {
	s := h.servers[serverName]
	if err := h.connect(ctx, s); err != nil {
		return call{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := s.session.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return call{}, fmt.Errorf("%s %s: %w%s", serverName, tool, err, s.stderr.note())
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	c := call{Server: serverName, Tool: tool, Args: args, Bytes: text.Len(), IsError: res.IsError, Text: text.String()}
	h.calls = append(h.calls, c)
	return c, nil
}

// close ends every session (a stdio server exits when its stdin closes).
func (h *host) close() {
	for _, s := range h.servers {
		if s.session != nil {
			s.session.Close()
			s.session = nil
		}
	}
}

// tail keeps the last 8 KiB a process wrote to stderr, to explain a failure.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = t.b[len(t.b)-8<<10:]
	}
	return len(p), nil
}

func (t *tail) note() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) == 0 {
		return ""
	}
	return "\nserver stderr:\n" + string(t.b)
}
