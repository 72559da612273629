package mcpkit

import "time"

// What the process around a server (package serve) sets and asks. Setters are for
// before serving, like the ServerOptions they override.

// HasStateKey reports whether the key signing requestState was chosen
// (ServerOptions.StateKey or [Server.SetStateKey]) rather than drawn at random for
// this process.
func (s *Server) HasStateKey() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.stateKeySet
}

// SetToolTimeout replaces ServerOptions.ToolTimeout. Call it before serving.
func (s *Server) SetToolTimeout(d time.Duration) { s.opts.ToolTimeout = d }

// SetErrorReporter replaces ServerOptions.ErrorReporter. Call it before serving.
func (s *Server) SetErrorReporter(r ErrorReporter) { s.opts.ErrorReporter = r }

// ErrorReporter returns the server's error reporter (nil: none).
func (s *Server) ErrorReporter() ErrorReporter { return s.opts.ErrorReporter }

// ShuttingDown reports whether [Server.Shutdown] has been called: readiness checks
// fail from then on.
func (s *Server) ShuttingDown() bool {
	select {
	case <-s.hub.closing:
		return true
	default:
		return false
	}
}

// SetTaskStore replaces ServerOptions.TaskStore (the store of the Tasks extension's
// tasks). Call it before serving.
func (s *Server) SetTaskStore(st TaskStore) {
	if st != nil {
		s.tasks.store = st
	}
}

// SetTaskTTL replaces ServerOptions.TaskTTL. Call it before serving.
func (s *Server) SetTaskTTL(d time.Duration) {
	if d > 0 {
		s.tasks.ttl = d
	}
}

// SetTaskLease replaces ServerOptions.TaskLease. Call it before serving.
func (s *Server) SetTaskLease(d time.Duration) {
	if d > 0 {
		s.tasks.lease = d
	}
}

// HasTaskTools reports whether a tool that may run as a task is registered.
func (s *Server) HasTaskTools() bool { return s.tasks.capable.Load() }
