// Package authtest checks a server's write scope over authorized Streamable HTTP,
// the way a deployment serves it (serve.HTTPService behind auth.Options) and a
// client in another process reaches it: once behind a JWT issuer (a local OAuth
// authorization server signing access tokens) and once behind static tokens. Every
// server of this repository runs [CheckWriteScope] and [CheckToolScopes] (issue 13,
// item 1): a token with only the scope every request needs reads and is refused
// every tool that changes something, with 403 insufficient_scope naming the write
// scope, and nothing changes; a token with the write scope gets through.
package authtest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// ReadScope is the scope every request to the test deployments needs (their
// --auth-scopes): a token with only this scope can read.
const ReadScope = "mcp"

// Reply is an HTTP answer to one request: status, headers, body, and the JSON-RPC
// result or error.
type Reply = remotetest.Reply

// Call is one tools/call.
type Call struct {
	Tool      string
	Arguments map[string]any
}

// WriteScopeCase is what [CheckWriteScope] needs to know of a server.
type WriteScopeCase struct {
	// WriteScope is the server's write scope ("files:write").
	WriteScope string
	// Setup builds a fresh server with writes allowed over fresh state, and unchanged,
	// which fails the test when Write, refused for lack of the scope, changed
	// anything. It is called once per deployment (JWT, static tokens).
	Setup func(t *testing.T) (s *mcpkit.Server, unchanged func(t *testing.T))
	// Read is a read tool call that succeeds with only ReadScope (Tool "" skips it).
	Read Call
	// Write is a call of a write tool with arguments that change something.
	Write Call
	// Proceeded, when set, checks the reply to Write with the write scope: a tool
	// result, or input_required when the server asks the user to confirm first.
	Proceeded func(t *testing.T, r *Reply)
}

// CheckWriteScope serves c.Setup's server over HTTP twice, behind a JWT issuer and
// behind static tokens, each deployment needing ReadScope on every request, and
// checks with a token of each kind:
//
//   - a token with only ReadScope makes c.Read, and every registered tool not marked
//     read-only (called with no arguments) and c.Write are refused with 403, a
//     WWW-Authenticate challenge with error="insufficient_scope" and a scope naming
//     ReadScope and c.WriteScope, and a JSON-RPC error naming c.WriteScope; after
//     which c.Write has changed nothing;
//   - a token with c.WriteScope gets c.Write through: a tool result that is not an
//     error, or input_required (the server asking the user to confirm);
//   - behind the issuer, Protected Resource Metadata lists ReadScope and c.WriteScope
//     in scopes_supported.
func CheckWriteScope(t *testing.T, c WriteScopeCase) {
	t.Helper()
	if c.WriteScope == "" || c.Write.Tool == "" || c.Setup == nil {
		t.Fatal("authtest.WriteScopeCase needs WriteScope, Write and Setup")
	}
	for _, kind := range []string{"JWT", "static token"} {
		t.Run(kind, func(t *testing.T) {
			s, unchanged := c.Setup(t)
			writeTools := CheckToolScopes(t, s, c.WriteScope)
			if !slices.Contains(writeTools, c.Write.Tool) {
				t.Fatalf("%s is not a registered write tool (write tools: %v)", c.Write.Tool, writeTools)
			}
			d, readTok, writeTok := deploy(t, s, kind == "JWT", c.WriteScope)
			reader, writer := d.client(t, readTok), d.client(t, writeTok)

			if c.Read.Tool != "" {
				r := reader.Do("tools/call", call(c.Read))
				if tr := r.Tool(t); tr.IsError {
					t.Errorf("%s with only %s: isError: %s", c.Read.Tool, ReadScope, tr.Text())
				}
			}
			for _, name := range writeTools {
				r := reader.Do("tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
				checkRefused(t, name, r, c.WriteScope)
			}
			r := reader.Do("tools/call", call(c.Write))
			checkRefused(t, c.Write.Tool, r, c.WriteScope)
			if unchanged != nil {
				unchanged(t)
			}

			r = writer.Do("tools/call", call(c.Write))
			checkProceeded(t, c.Write.Tool, r)
			if c.Proceeded != nil {
				c.Proceeded(t, r)
			}

			if d.issuer != nil {
				for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
					got := scopesSupported(t, d.base+path)
					for _, want := range []string{ReadScope, c.WriteScope} {
						if !slices.Contains(got, want) {
							t.Errorf("%s: scopes_supported %v lacks %s", path, got, want)
						}
					}
				}
			}
		})
	}
}

// CheckToolScopes checks the tools registered on s: each one not marked read-only
// needs writeScope, and a read-only one needs no scope. It returns the names of the
// write tools, for a caller to check that they are the ones it expects (none, for a
// read-only server).
func CheckToolScopes(t testing.TB, s *mcpkit.Server, writeScope string) []string {
	t.Helper()
	var writes []string
	for _, tl := range s.Tools() {
		if tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
			if len(tl.Scopes) != 0 {
				t.Errorf("read-only tool %s needs the scopes %v: a token with only the read scope could not use it", tl.Name, tl.Scopes)
			}
			continue
		}
		writes = append(writes, tl.Name)
		if !slices.Contains(tl.Scopes, writeScope) {
			t.Errorf("tool %s is not marked read-only but does not need %s (its scopes: %v): a token with only the read scope can call it", tl.Name, writeScope, tl.Scopes)
		}
	}
	return writes
}

// deployment is a server served behind authorization at base+"/mcp".
type deployment struct {
	base, endpoint string
	issuer         *remotetest.Issuer // nil: static tokens only
}

// staticReader and staticWriter are the static tokens of a deployment without an
// issuer, listed as a token file lists them.
var (
	staticReader = strings.Repeat("r", 40)
	staticWriter = strings.Repeat("w", 40)
)

// deploy serves s behind a JWT issuer or behind static tokens, each request needing
// ReadScope, and returns it with a reader's token (ReadScope) and a writer's
// (ReadScope and writeScope).
func deploy(t *testing.T, s *mcpkit.Server, withIssuer bool, writeScope string) (d *deployment, reader, writer string) {
	t.Helper()
	d = &deployment{}
	if withIssuer {
		d.issuer = remotetest.NewIssuer(t, "rfc8414", "")
	}
	d.base = remotetest.ServeAt(t, func(base string) http.Handler {
		d.endpoint = base + "/mcp"
		a := &auth.Options{Resource: d.endpoint, Scopes: []string{ReadScope}}
		if d.issuer != nil {
			v, err := jwt.FromIssuer(d.issuer.Issuer, d.endpoint, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			a.Verifier, a.AuthorizationServers = v, []string{d.issuer.Issuer}
		} else {
			st, err := auth.ParseStaticTokens(staticReader + " reader " + ReadScope + "\n" +
				staticWriter + " writer " + ReadScope + "," + writeScope + "\n")
			if err != nil {
				t.Fatal(err)
			}
			a.Verifier = st
		}
		return remotetest.Service(t, s, &serve.Options{Auth: a})
	})
	if d.issuer == nil {
		return d, staticReader, staticWriter
	}
	return d, d.jwt(t, "reader", ReadScope), d.jwt(t, "writer", ReadScope, writeScope)
}

// jwt returns an access token the issuer signed for the endpoint, for subject with
// scopes.
func (d *deployment) jwt(t *testing.T, subject string, scopes ...string) string {
	t.Helper()
	return remotetest.Sign(t, d.issuer.EC1, jose.ES256, "ec-1", map[string]any{
		"iss": d.issuer.Issuer, "aud": d.endpoint, "sub": subject,
		"scope": strings.Join(scopes, " "), "exp": time.Now().Add(10 * time.Minute).Unix(),
	})
}

func (d *deployment) client(t *testing.T, token string) *remotetest.Client {
	c := remotetest.NewClient(t, d.endpoint)
	c.Token = token
	return c
}

func call(c Call) map[string]any {
	args := c.Arguments
	if args == nil {
		args = map[string]any{}
	}
	return map[string]any{"name": c.Tool, "arguments": args}
}

var challengeParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// checkRefused checks a refusal for lack of the write scope.
func checkRefused(t *testing.T, tool string, r *Reply, writeScope string) {
	t.Helper()
	if r.Status != http.StatusForbidden {
		t.Errorf("%s with only %s: status %d, want 403: %s", tool, ReadScope, r.Status, r.Body)
		return
	}
	params := map[string]string{}
	for _, m := range challengeParam.FindAllStringSubmatch(r.Header.Get("WWW-Authenticate"), -1) {
		params[m[1]] = m[2]
	}
	scopes := strings.Fields(params["scope"])
	if params["error"] != "insufficient_scope" || !slices.Contains(scopes, writeScope) || !slices.Contains(scopes, ReadScope) {
		t.Errorf("%s with only %s: challenge %q, want error=\"insufficient_scope\" and a scope naming %s and %s",
			tool, ReadScope, r.Header.Get("WWW-Authenticate"), ReadScope, writeScope)
	}
	if r.Err == nil || !strings.Contains(r.Err.Message, writeScope) {
		t.Errorf("%s with only %s: the JSON-RPC error does not name %s: %s", tool, ReadScope, writeScope, r.Body)
	}
}

// checkProceeded checks that a call with the write scope got past authorization:
// a tool result that is not an error, or input_required (a confirmation asked).
func checkProceeded(t *testing.T, tool string, r *Reply) {
	t.Helper()
	if r.Status != http.StatusOK || r.Err != nil {
		t.Fatalf("%s with the write scope: status %d: %s", tool, r.Status, r.Body)
	}
	var res struct {
		ResultType string           `json:"resultType"`
		IsError    bool             `json:"isError"`
		Content    []mcpkit.Content `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("%s with the write scope: result %s: %v", tool, r.Result, err)
	}
	if res.ResultType != "input_required" && res.IsError {
		t.Errorf("%s with the write scope: isError: %s", tool, r.Result)
	}
}

// scopesSupported fetches Protected Resource Metadata and returns its scopes_supported.
func scopesSupported(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return md.ScopesSupported
}
