package jwt_test

// Real clients against an authorized server: the official Go SDK client (with the
// bearer token added by its HTTP client) and the Inspector CLI (--header).

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
)

// bearerTransport adds an Authorization header to every request, as a host's OAuth
// layer does.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// jwtService is remotetest.Server behind JWT authorization against a local issuer, with
// a valid token for it.
func jwtService(t *testing.T) (endpoint, token string) {
	t.Helper()
	is := remotetest.NewIssuer(t, "rfc8414", "")
	endpoint = remotetest.AuthedService(t, jwtAuth(t, is.Issuer, nil), is.Issuer, nil)
	token = remotetest.Sign(t, is.EC1, jose.ES256, "ec-1", map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "sdk-user",
		"scope": "mcp", "exp": time.Now().Add(10 * time.Minute).Unix()})
	return endpoint, token
}

func TestGoSDKClientWithBearerToken(t *testing.T) {
	endpoint, token := jwtService(t)
	connect := func(tok, rev string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "sdk-auth-test", Version: "1.0.0"}, nil)
		hc := &http.Client{Transport: &bearerTransport{token: tok, base: http.DefaultTransport}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: rev})
	}
	for _, rev := range []string{mcpkit.Revision20260728, mcpkit.Revision20251125} {
		t.Run(rev, func(t *testing.T) {
			session, err := connect(token, rev)
			if err != nil {
				t.Fatalf("connecting with a valid token: %v", err)
			}
			defer session.Close()
			if got := session.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("negotiated %q, want %q", got, rev)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tools, err := session.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Contains(names, "add") || !slices.Contains(names, "write_note") {
				t.Errorf("tools %v", names)
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 40, "b": 2}})
			if err != nil || res.IsError {
				t.Fatalf("add: %v %+v", err, res)
			}
			if txt := res.Content[0].(*mcp.TextContent).Text; txt != `{"sum":42}` {
				t.Errorf("add answered %q", txt)
			}
		})
	}
	if s, err := connect("not-a-valid-token", mcpkit.Revision20260728); err == nil {
		s.Close()
		t.Error("the Go SDK client connected with an invalid token")
	}
}

func TestInspectorCLIWithBearerToken(t *testing.T) {
	endpoint, token := jwtService(t)
	target := realclient.Target{URL: endpoint}
	out := realclient.Inspector(t, target, "modern", "--header", "Authorization: Bearer "+token, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2")
	var res struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Result.Content) == 0 || res.Result.Content[0].Text != `{"sum":3}` {
		t.Fatalf("Inspector tools/call printed %s (%v)", out, err)
	}
	_, status, stderr := realclient.InspectorStatus(t, target, "modern", "--method", "tools/list")
	if status == 0 {
		t.Errorf("the Inspector CLI listed tools without a token")
	}
	// Without a token the CLI follows the challenge to our metadata and asks for an
	// interactive OAuth login, which it cannot do here.
	if !strings.Contains(stderr, "auth_required") {
		t.Errorf("the Inspector CLI without a token did not report that authorization is required: %s", stderr)
	}
}
