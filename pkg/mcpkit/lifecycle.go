package mcpkit

import (
	"context"
	"encoding/json"
	"time"
)

// A request's life on a connection, the same on every transport:
//
//  1. The transport frames bytes into a message (decodeMessage) and hands it to the
//     connection's session: [session.receive] acts on notifications and responses
//     itself; a request is admitted with [session.begin], which registers it in flight
//     so that notifications/cancelled or the connection's end cancel it.
//  2. [Server.handle] prepares the request (era, _meta, method, capability), lets the
//     transport check what only it can (HTTP headers, tool scopes), runs middleware
//     and the handler, encodes the answer and tells the observers ([Server.Observe]).
//  3. The transport writes the answer and ends the request ([session.end]).
//
// stdio keeps one session for its whole connection. On HTTP a legacy (2025-11-25)
// session lives across POSTs under its Mcp-Session-Id; a 2026-07-28 request is
// stateless and needs no session: its connection's end cancels it.

// begin admits request m on the session: an id still in flight is refused, and so is
// a subscriptions/listen beyond the session's share of streams. The returned context
// ends when the client cancels the request or the session ends; end(m) must follow
// once the request is answered.
func (s *session) begin(ctx context.Context, m *message) (context.Context, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[string(m.ID.raw)]; dup {
		return nil, Errorf(CodeInvalidRequest, "request id %s is already in use by a request in flight: use a new id", m.ID)
	}
	listen := m.Method == "subscriptions/listen"
	if listen && s.maxListens > 0 && s.listens >= s.maxListens {
		return nil, Errorf(CodeInvalidRequest, "too many open subscriptions/listen streams on this connection (limit %d)", s.maxListens)
	}
	reqCtx, cancel := context.WithCancel(ctx)
	s.inflight[m.ID.String()] = cancel
	if listen {
		s.listens++
	}
	return reqCtx, nil
}

// end takes request m, answered, out of flight and releases its context.
func (s *session) end(m *message) {
	s.mu.Lock()
	cancel := s.inflight[string(m.ID.raw)] // indexing with the conversion copies nothing
	delete(s.inflight, string(m.ID.raw))
	if m.Method == "subscriptions/listen" {
		s.listens--
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// busy reports whether a request of the session is in flight.
func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inflight) > 0
}

// receive acts on a message that is not a request and reports whether it was one of
// those: a response to a server-to-client request goes to the request waiting for it;
// notifications/cancelled cancels a request in flight, notifications/initialized
// completes the legacy handshake, notifications/roots/list_changed drops the cached
// roots. Other notifications are ignored, as the spec allows.
func (s *session) receive(m *message) bool {
	switch {
	case m.isResponse():
		s.deliver(m)
	case m.isNotification():
		defer s.noticeNotification(m, time.Now())
		switch m.Method {
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
				s.mu.Lock()
				if cancel, ok := s.inflight[string(p.RequestID)]; ok {
					cancel()
				}
				s.mu.Unlock()
			}
		case "notifications/initialized":
			s.server.initialized(s)
		case "notifications/roots/list_changed":
			s.rootsChanged()
		}
	default:
		return false
	}
	return true
}
