package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Environment variables that hold the key signing requestState. Every instance
// behind one load balancer must have the same key, or a multi-round-trip request
// whose retry lands on another instance is refused.
const (
	EnvStateKey     = "MCP_STATE_KEY"      // base64 or hex of at least 32 random bytes
	EnvStateKeyFile = "MCP_STATE_KEY_FILE" // a file holding the same (or the raw bytes)
)

// StateKeyFromEnv reads the state key from MCP_STATE_KEY, or from the file named by
// MCP_STATE_KEY_FILE. It returns nil, nil when neither is set (each process then
// signs with its own random key, which is right for one instance).
func StateKeyFromEnv() ([]byte, error) {
	if v := os.Getenv(EnvStateKey); v != "" {
		k, err := ParseStateKey([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvStateKey, err)
		}
		return k, nil
	}
	if f := os.Getenv(EnvStateKeyFile); f != "" {
		return LoadStateKeyFile(f)
	}
	return nil, nil
}

// LoadStateKeyFile reads a state key from a file (a mounted Kubernetes Secret, for
// example): base64 or hex text, or at least 32 raw bytes.
func LoadStateKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading state key file: %w", err)
	}
	k, err := ParseStateKey(b)
	if err != nil {
		return nil, fmt.Errorf("state key file %s: %w", path, err)
	}
	return k, nil
}

// ParseStateKey decodes a state key: hex or base64 (standard or URL alphabet, padded
// or not) text, or raw bytes when the value is not text in either encoding. The
// decoded key must be at least [mcpkit.MinStateKeyBytes] long.
func ParseStateKey(b []byte) ([]byte, error) {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil, errors.New("the key is empty")
	}
	var key []byte
	for _, dec := range []func(string) ([]byte, error){
		hex.DecodeString,
		base64.StdEncoding.DecodeString,
		base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString,
		base64.RawURLEncoding.DecodeString,
	} {
		if k, err := dec(s); err == nil {
			key = k
			break
		}
	}
	if key == nil {
		key = bytes.TrimSpace(b)
	}
	if len(key) < mcpkit.MinStateKeyBytes {
		return nil, fmt.Errorf("the key is %d bytes; at least %d random bytes are needed (generate one with: openssl rand -base64 32)", len(key), mcpkit.MinStateKeyBytes)
	}
	return key, nil
}
