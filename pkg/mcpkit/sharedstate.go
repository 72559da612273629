package mcpkit

// What package serve sets and asks about the state instances behind one load
// balancer must share: the replay guard of requestState (see [ReplayGuard]).

// SetReplayGuard replaces ServerOptions.ReplayGuard (nil keeps the current one). Call
// it before serving.
func (s *Server) SetReplayGuard(g ReplayGuard) {
	if g != nil {
		s.replay = g
	}
}

// HasWriteTools reports whether a tool without the read-only annotation is
// registered: a tool that may change something, whose confirmation (a
// multi-round-trip requestState) only a shared [ReplayGuard] keeps from being
// replayed to another instance.
func (s *Server) HasWriteTools() bool {
	for _, t := range s.tools.all() {
		if t.tool.Annotations == nil || !t.tool.Annotations.ReadOnlyHint {
			return true
		}
	}
	return false
}
