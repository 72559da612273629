package mcpkit

import (
	"bytes"
	"fmt"
)

// MinStateKeyBytes is the shortest state key accepted: HMAC-SHA256 wants 32 bytes.
const MinStateKeyBytes = 32

// SetStateKey replaces the key that signs requestState. Call it before serving;
// serve.Serve calls it with serve.Options.StateKey or the environment's key when the
// server was created without one.
func (s *Server) SetStateKey(key []byte) error {
	if len(key) < MinStateKeyBytes {
		return fmt.Errorf("state key: %d bytes, at least %d are needed", len(key), MinStateKeyBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stateKey = bytes.Clone(key)
	s.stateKeySet = true
	return nil
}
