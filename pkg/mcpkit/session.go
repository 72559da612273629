package mcpkit

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// session is the state a legacy (initialize handshake) client builds up: negotiated
// revision, capabilities, log level, resource subscriptions, and the server-to-client
// requests waiting for answers. 2026-07-28 requests have no session.
type session struct {
	id     string  // HTTP session id; empty on stdio
	server *Server // the server the session talks to

	mu          sync.Mutex
	initialized bool
	revision    string
	caps        ClientCapabilities
	clientInfo  *Implementation
	level       string
	subs        map[string]bool
	pending     map[string]chan *message
	// unsolicited is where list-changed and resource-updated notifications go: stdout
	// on stdio, the GET stream on HTTP (nil while none is open).
	unsolicited stream
	listener    *listener
	// roots caches the client's answer to roots/list until it says the list changed.
	roots json.RawMessage
	// inflight cancels the session's requests in flight, by id (see begin); listens
	// counts its open subscriptions/listen streams, at most maxListens (0: no limit).
	inflight   map[string]context.CancelFunc
	listens    int
	maxListens int

	nextID atomic.Int64
	// started is when the session began, for SessionEnd.Duration.
	started time.Time
}

func newSession(srv *Server, id string) *session {
	return &session{id: id, server: srv, subs: map[string]bool{}, pending: map[string]chan *message{},
		inflight: map[string]context.CancelFunc{}, started: time.Now()}
}

func (s *session) logLevel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.level
}

func (s *session) meta() RequestMeta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return RequestMeta{ProtocolVersion: s.revision, ClientCapabilities: s.caps, ClientInfo: s.clientInfo, LogLevel: s.level}
}

func (s *session) setUnsolicited(out stream) {
	s.mu.Lock()
	s.unsolicited = out
	s.mu.Unlock()
}

// notify sends an unsolicited notification if there is somewhere to send it.
func (s *session) notify(msg []byte) {
	s.mu.Lock()
	out := s.unsolicited
	ok := s.initialized
	s.mu.Unlock()
	if out != nil && ok {
		_ = out.write(msg)
	}
}

// call sends a server-to-client request on out and waits for the client's response.
func (s *session) call(ctx context.Context, out stream, method string, params any) (json.RawMessage, error) {
	if out == nil {
		return nil, Errorf(CodeInternalError, "cannot send %s: no stream to the client", method)
	}
	id := NewStringID(fmt.Sprintf("mcpkit-%d", s.nextID.Add(1)))
	ch := make(chan *message, 1)
	s.mu.Lock()
	s.pending[id.String()] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id.String())
		s.mu.Unlock()
	}()
	if err := out.write(encodeRequest(id, method, params)); err != nil {
		return nil, fmt.Errorf("sending %s to the client: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("client answered %s with an error: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// deliver routes a client's response to the request waiting for it. It reports false
// for a response nobody waits for.
func (s *session) deliver(m *message) bool {
	s.mu.Lock()
	ch, ok := s.pending[m.ID.String()]
	s.mu.Unlock()
	if ok {
		select {
		case ch <- m:
		default:
		}
	}
	return ok
}

// cachedRoots returns the roots the client last reported, if still valid.
func (s *session) cachedRoots() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roots
}

func (s *session) setRoots(raw json.RawMessage) {
	s.mu.Lock()
	s.roots = raw
	s.mu.Unlock()
}

// rootsChanged drops the cached roots (notifications/roots/list_changed).
func (s *session) rootsChanged() { s.setRoots(nil) }
