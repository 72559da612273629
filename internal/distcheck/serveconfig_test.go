package distcheck

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// fakeServer is a server with the standard serve flags and one of its own of each
// kind (--allow-writes, --dir DIR), without building anything.
func fakeServer(jwt bool) *Server {
	fs := flag.NewFlagSet("mcp-server-x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	serve.RegisterFlags(fs)
	fs.Bool("allow-writes", false, "")
	fs.String("dir", "", "")
	s := &Server{ServerDir: ServerDir{Name: "x", Cmd: "mcp-server-x"}, Flags: map[string]bool{}, LinksJWT: jwt}
	fs.VisitAll(func(f *flag.Flag) {
		_, isBool := f.Value.(interface{ IsBoolFlag() bool })
		s.Flags[f.Name] = !isBool
	})
	return s
}

// TestServeConfig: the standard serve settings of a snippet are judged as the server
// judges them at start, with the files it names and the variables whose values it does
// not show filled in. A static-token example without --auth-resource (what every
// server README showed, refused at start) fails (issue 13).
func TestServeConfig(t *testing.T) {
	clearServeEnv(t)
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		env  []string
		jwt  bool
		want string // substring of the error; "" for none
	}{
		{name: "stdio", args: []string{"--dir", "/notes", "--allow-writes"}},
		{name: "http without auth", args: []string{"--http", "127.0.0.1:8080", "/srv"}},
		{name: "static tokens without resource", args: []string{"--http", "0.0.0.0:8080", "--allowed-hosts", "mcp.example.com", "--auth-static-file", "/etc/mcp-server-x/tokens", "/srv/shared"},
			want: "authorization needs --auth-resource"},
		{name: "static tokens with resource", args: []string{"--http", "0.0.0.0:8080", "--auth-static-file", "/etc/mcp-server-x/tokens", "--auth-resource", "https://mcp.example.com/mcp", "--auth-scopes", "mcp", "/srv/shared"}},
		{name: "static tokens, resource by variable", args: []string{"--http=:8080", "--auth-static-file=/etc/t"}, env: []string{"MCP_AUTH_RESOURCE"}},
		{name: "inline tokens without resource", args: []string{"--http", ":8080"}, env: []string{"MCP_AUTH_STATIC_TOKENS"}, want: "--auth-resource"},
		{name: "auth without http", args: []string{"--auth-static-file", "/etc/t", "--auth-resource", "https://mcp.example.com/mcp"}, want: "add --http"},
		{name: "http by variable", args: []string{"--auth-static-file", "/etc/t", "--auth-resource", "https://mcp.example.com/mcp"}, env: []string{"MCP_HTTP_ADDR"}},
		{name: "issuer", args: []string{"--http", ":8080", "--auth-issuer", "https://auth.example.com", "--auth-resource", "https://mcp.example.com/mcp"}, jwt: true},
		{name: "issuer without resource", args: []string{"--http", ":8080", "--auth-issuer", "https://auth.example.com"}, jwt: true, want: "audience"},
		{name: "issuer on a server without JWT", args: []string{"--http", ":8080", "--auth-issuer", "https://auth.example.com", "--auth-resource", "https://mcp.example.com/mcp"},
			want: "built without JWT verification"},
		{name: "jwks without issuer", args: []string{"--http", ":8080", "--auth-jwks-url", "https://auth.example.com/jwks"}, want: "needs --auth-issuer"},
		{name: "state key file", args: []string{"--http", ":8080", "--state-key-file", "/run/secrets/key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fakeServer(tt.jwt).ServeConfig(tt.args, tt.env, dir)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
