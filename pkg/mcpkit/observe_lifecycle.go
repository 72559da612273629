package mcpkit

import (
	"encoding/json"
	"slices"
	"time"
)

// What [Server.ObserveLifecycle] tells beyond answered requests ([Observer]): the
// notifications a client sends and the end of a session. They exist for telemetry
// (package otelmcp makes spans and the mcp.server.session.duration metric of them),
// which is why they are plain functions without any telemetry library here.

// Notification is one client notification as a [LifecycleObserver] sees it.
type Notification struct {
	// Method is the notification's method, e.g. notifications/cancelled.
	Method string
	// Params are its raw params; observers read their _meta (trace context) only.
	Params json.RawMessage
	// SessionID is the HTTP session's Mcp-Session-Id; empty on stdio.
	SessionID string
	// Transport is "stdio" or "http".
	Transport string
	// ProtocolVersion is the session's negotiated revision.
	ProtocolVersion string
	// Start is when the server received it; Duration how long acting on it took.
	Start    time.Time
	Duration time.Duration
}

// SessionEnd is a legacy session (a stdio connection, or an HTTP Mcp-Session-Id)
// that has ended, as a [LifecycleObserver] sees it.
type SessionEnd struct {
	ID              string // the HTTP Mcp-Session-Id; empty on stdio
	Transport       string // "stdio" or "http"
	ProtocolVersion string // the negotiated revision; empty when initialize never completed
	Duration        time.Duration
}

// LifecycleObserver is told of client notifications and of session ends. Either
// function may be nil. Like an [Observer], they run on the server's goroutines and
// must not block.
type LifecycleObserver struct {
	Notification func(Notification)
	SessionEnded func(SessionEnd)
}

// ObserveLifecycle adds lifecycle observers, told in the order they were added.
func (s *Server) ObserveLifecycle(o LifecycleObserver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []LifecycleObserver
	if cur := s.lifecycle.Load(); cur != nil {
		all = slices.Clone(*cur)
	}
	all = append(all, o)
	s.lifecycle.Store(&all)
}

// SessionID returns the HTTP session id (Mcp-Session-Id) of a legacy request, or ""
// for a stateless 2026-07-28 request and on stdio.
func (r *Request) SessionID() string {
	if r.sess == nil {
		return ""
	}
	return r.sess.id
}

// Transport returns "http" for a request that came over Streamable HTTP and "stdio"
// otherwise.
func (r *Request) Transport() string {
	if _, ok := r.out.(*httpStream); ok {
		return "http"
	}
	return "stdio"
}

func (s *session) transport() string {
	if s.id != "" {
		return "http"
	}
	return "stdio"
}

// noticeNotification tells the lifecycle observers of notification m, received at
// start and acted on.
func (s *session) noticeNotification(m *message, start time.Time) {
	obs := s.server.lifecycle.Load()
	if obs == nil {
		return
	}
	n := Notification{Method: m.Method, Params: m.Params, SessionID: s.id, Transport: s.transport(),
		ProtocolVersion: s.meta().ProtocolVersion, Start: start, Duration: time.Since(start)}
	for _, o := range *obs {
		if o.Notification != nil {
			o.Notification(n)
		}
	}
}

// noticeEnd tells the lifecycle observers that session sess has ended.
func (s *Server) noticeEnd(sess *session) {
	obs := s.lifecycle.Load()
	if obs == nil {
		return
	}
	e := SessionEnd{ID: sess.id, Transport: sess.transport(), ProtocolVersion: sess.meta().ProtocolVersion, Duration: time.Since(sess.started)}
	for _, o := range *obs {
		if o.SessionEnded != nil {
			o.SessionEnded(e)
		}
	}
}
