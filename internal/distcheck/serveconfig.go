package distcheck

import (
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// servePlaceholders are valid values for the standard serve flags whose settings
// depend on each other, used when a snippet sets one through its environment variable
// without showing the value (the files a snippet names are replaced too: see
// [Server.ServeConfig]). Other flags' values are judged by AcceptsArgs alone.
var servePlaceholders = map[string]string{
	"http":          "127.0.0.1:8080",
	"auth-resource": "https://mcp.example.com/mcp",
	"auth-issuer":   "https://auth.example.com",
	"auth-jwks-url": "https://auth.example.com/jwks",
	"auth-scopes":   "mcp",
}

// ServeConfig configures the standard serve flags (serve.RegisterFlags: --http, the
// --auth-* flags and the rest, with their MCP_* variables) from a launch's arguments
// and environment exactly as the server does at start (serve.Flags.Options), and
// returns the server's refusal, or nil. That catches what each flag alone cannot
// show and --version exits before checking: --auth-static-file or --auth-issuer
// without --auth-resource, authorization settings without --http, --auth-jwks-url
// without --auth-issuer, --auth-issuer on a server built without JWT verification, a
// resource that is not an absolute https URL.
//
// What a snippet cannot hold is filled in: the token and state key files it names are
// replaced by valid files in dir, and a variable it sets without showing the value
// (MCP_AUTH_RESOURCE, MCP_AUTH_STATIC_TOKENS, ...) gets a valid placeholder. The
// process environment must hold none of the standard variables (serve.StandardEnv):
// the server reads them, and the test clears them.
func (s *Server) ServeConfig(args, env []string, dir string) error {
	fs := flag.NewFlagSet(s.Cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := serve.RegisterFlags(fs)
	if s.LinksJWT {
		sf.JWT = jwt.FromIssuer
	}
	if s.LinksOtel {
		// Accepts --otel as the server does; nothing is exported from a check.
		sf.Telemetry = func(bool, string, string) (serve.Telemetry, error) { return nil, nil }
	}
	tokens, key, err := placeholderFiles(dir)
	if err != nil {
		return err
	}
	replace := map[string]string{"auth-static-file": tokens, "state-key-file": key}
	var serveArgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue // a positional argument
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if s.Flags[name] && !hasValue && i+1 < len(args) {
			i++
			value, hasValue = args[i], true
		}
		if fs.Lookup(name) == nil {
			continue // the server's own flag
		}
		if r, ok := replace[name]; ok {
			value = r
		}
		if hasValue {
			serveArgs = append(serveArgs, "-"+name+"="+value)
		} else {
			serveArgs = append(serveArgs, "-"+name)
		}
	}
	if err := fs.Parse(serveArgs); err != nil {
		return fmt.Errorf("the standard flags %s: %v", strings.Join(serveArgs, " "), err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range env {
		flagName := ""
		for f, v := range serve.FlagEnv {
			if v == name {
				flagName = f
			}
		}
		if name == serve.EnvAuthStaticTokens {
			flagName = "auth-static-file" // the same verifier, inline
		}
		if flagName == "" || given[flagName] {
			continue
		}
		v, ok := replace[flagName]
		if !ok {
			v, ok = servePlaceholders[flagName]
		}
		if ok {
			if err := fs.Set(flagName, v); err != nil {
				return err
			}
			given[flagName] = true
		}
	}
	if _, err := sf.Options(); err != nil {
		return fmt.Errorf("%s refuses to start with this configuration: %v", s.Cmd, err)
	}
	return nil
}

// placeholderFiles writes, once per dir, a valid static token file and a valid state
// key file to stand in for those a snippet names.
func placeholderFiles(dir string) (tokens, key string, err error) {
	tokens, key = filepath.Join(dir, "distcheck-tokens"), filepath.Join(dir, "distcheck-state-key")
	if _, err := os.Stat(key); err == nil {
		return tokens, key, nil
	}
	if err := os.WriteFile(tokens, []byte(strings.Repeat("t", 40)+" distcheck mcp\n"), 0o600); err != nil {
		return "", "", err
	}
	b := make([]byte, 32)
	rand.Read(b)
	if err := os.WriteFile(key, []byte(base64.StdEncoding.EncodeToString(b)), 0o600); err != nil {
		return "", "", err
	}
	return tokens, key, nil
}
