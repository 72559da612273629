package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Environment variables that hold the key signing requestState. Every instance
// behind one load balancer must have the same key, or a multi-round-trip request
// whose retry lands on another instance is refused.
const (
	EnvStateKey     = "MCP_STATE_KEY"      // base64 or hex of at least 32 random bytes (see ParseStateKey)
	EnvStateKeyFile = "MCP_STATE_KEY_FILE" // a file holding the same, or at least 32 raw bytes
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
// example): base64 or hex text, or at least 32 raw bytes ([ParseStateKey]).
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

// ParseStateKey decodes a state key. It accepts, around surrounding whitespace:
//
//   - hex text of at least 32 bytes (64 digits: openssl rand -hex 32);
//   - base64 text of at least 32 bytes, standard or URL alphabet, padded or not,
//     line breaks allowed (44 characters: openssl rand -base64 32);
//   - at least 32 raw bytes that are not text (head -c 32 /dev/urandom > key), for
//     a key file.
//
// Text in neither encoding is refused rather than used as a passphrase: the key
// must be random bytes, and a value such as "secret" is more likely a mistake than
// a key. The decoded key must be at least [mcpkit.MinStateKeyBytes] long. An error
// says how the value was read and how long it came out, never the value itself.
func ParseStateKey(b []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the key is empty; %s", stateKeyHint)
	}
	if !isText(trimmed) {
		if len(trimmed) < mcpkit.MinStateKeyBytes {
			return nil, fmt.Errorf("the value is %d raw bytes (binary, not hex or base64 text), fewer than %d; %s", len(trimmed), mcpkit.MinStateKeyBytes, stateKeyHint)
		}
		return trimmed, nil
	}
	s := strings.NewReplacer("\r", "", "\n", "").Replace(string(trimmed))
	how := ""
	var key []byte
	if k, err := hex.DecodeString(s); err == nil {
		key, how = k, "hex"
	} else {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if k, err := enc.DecodeString(s); err == nil {
				key, how = k, "base64"
				break
			}
		}
	}
	if how == "" {
		return nil, fmt.Errorf("the value is %d characters of text that is neither hex nor base64 (a passphrase is not accepted); %s", utf8.RuneCountInString(s), stateKeyHint)
	}
	if len(key) < mcpkit.MinStateKeyBytes {
		return nil, fmt.Errorf("the value is %d characters of text, which read as %s is only %d bytes, fewer than %d; %s", len(s), how, len(key), mcpkit.MinStateKeyBytes, stateKeyHint)
	}
	return key, nil
}

// stateKeyHint says what a state key must be and how to make one.
var stateKeyHint = fmt.Sprintf("a state key is at least %d random bytes, written as base64 (generate one with: openssl rand -base64 32) or hex (openssl rand -hex 32), or as raw bytes in %s", mcpkit.MinStateKeyBytes, EnvStateKeyFile)

// isText reports whether a value is text (valid UTF-8 without control characters
// other than whitespace) rather than raw bytes.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}
