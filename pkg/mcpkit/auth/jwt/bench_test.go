package jwt_test

// HTTP tools/call throughput and latency with and without bearer-token
// verification: no authorization, a static token (one SHA-256 and a constant-time
// comparison per entry), and JWTs verified against a JWKS (keys cached; a verified
// token remembered for a minute, or, with -full, a signature check on every call).
// Each reports calls/s and p99 latency; "seq" is one client calling back to back
// (latency), "par" is 32 concurrent clients (throughput).

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/jwt"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

func BenchmarkHTTPToolsCallAuth(b *testing.B) {
	is := remotetest.NewIssuer(b, "rfc8414", "")
	static := strings.Repeat("s", 40)
	type mode struct {
		name  string
		token func(endpoint string) string
		auth  func(endpoint string) auth.Verifier
	}
	jwtMode := func(alg jose.SignatureAlgorithm, kid string, key any, everyRequest bool) mode {
		name := "jwt-" + string(alg)
		if everyRequest {
			name += "-full"
		}
		return mode{
			name: name,
			token: func(endpoint string) string {
				return remotetest.Sign(b, key, alg, kid, map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "bench", "scope": "mcp",
					"exp": time.Now().Add(time.Hour).Unix()})
			},
			auth: func(endpoint string) auth.Verifier {
				jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint, VerifyEveryRequest: everyRequest})
				if err != nil {
					b.Fatal(err)
				}
				return jv
			},
		}
	}
	modes := []mode{
		{name: "none"},
		{name: "static", token: func(string) string { return static }, auth: func(string) auth.Verifier {
			st, err := auth.ParseStaticTokens(static + " bench mcp")
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
		jwtMode(jose.RS256, "rsa-1", is.RSA1, false),
		jwtMode(jose.ES256, "ec-1", is.EC1, false),
		jwtMode(jose.EdDSA, "ed-1", is.Ed1, false),
		jwtMode(jose.ES256, "ec-1", is.EC1, true),
	}
	for _, m := range modes {
		for _, par := range []bool{false, true} {
			name := m.name + "/seq"
			if par {
				name = m.name + "/par"
			}
			b.Run(name, func(b *testing.B) {
				token := ""
				endpoint := remotetest.ServeAt(b, func(base string) http.Handler {
					endpoint := base + "/mcp"
					o := &serve.Options{}
					if m.auth != nil {
						o.Auth = &auth.Options{Verifier: m.auth(endpoint), Resource: endpoint, Scopes: []string{"mcp"}}
						token = m.token(endpoint)
					}
					return remotetest.Service(b, remotetest.Server(nil, nil, nil), o)
				}) + "/mcp"
				tr := &http.Transport{MaxIdleConnsPerHost: 64}
				defer tr.CloseIdleConnections()
				hc := &http.Client{Transport: tr}
				call := func(i int) time.Duration {
					req := remotetest.LoadRequest(endpoint, i, i, 1)
					if token != "" {
						req.Header.Set("Authorization", "Bearer "+token)
					}
					start := time.Now()
					resp, err := hc.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					d := time.Since(start)
					if resp.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprintf(`"sum":%d}`, i+1)) {
						b.Fatalf("status %d: %s", resp.StatusCode, body)
					}
					return d
				}
				call(0) // warm: connection, key fetch
				var mu sync.Mutex
				var lat []time.Duration
				b.ResetTimer()
				start := time.Now()
				if par {
					b.SetParallelism(16)
					b.RunParallel(func(pb *testing.PB) {
						local := make([]time.Duration, 0, 1024)
						i := 1
						for pb.Next() {
							local = append(local, call(i))
							i++
						}
						mu.Lock()
						lat = append(lat, local...)
						mu.Unlock()
					})
				} else {
					for i := 0; i < b.N; i++ {
						lat = append(lat, call(i))
					}
				}
				elapsed := time.Since(start)
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "calls/s")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}

// BenchmarkTokenVerify is the verifier alone, per token: what authorization adds to
// each HTTP request without the network's noise.
func BenchmarkTokenVerify(b *testing.B) {
	is := remotetest.NewIssuer(b, "rfc8414", "")
	const endpoint = "https://mcp.example.com/mcp"
	static := strings.Repeat("s", 40)
	var list strings.Builder
	for i := range 100 { // a realistic list: the match is compared with every entry
		fmt.Fprintf(&list, "%s%03d svc%d mcp\n", strings.Repeat("x", 40), i, i)
	}
	list.WriteString(static + " bench mcp\n")
	st, err := auth.ParseStaticTokens(list.String())
	if err != nil {
		b.Fatal(err)
	}
	jv, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint})
	if err != nil {
		b.Fatal(err)
	}
	full, err := jwt.NewVerifier(jwt.Options{Issuer: is.Issuer, Audience: endpoint, VerifyEveryRequest: true})
	if err != nil {
		b.Fatal(err)
	}
	claims := map[string]any{"iss": is.Issuer, "aud": endpoint, "sub": "bench", "scope": "mcp", "exp": time.Now().Add(time.Hour).Unix()}
	rs, es, ed := remotetest.Sign(b, is.RSA1, jose.RS256, "rsa-1", claims), remotetest.Sign(b, is.EC1, jose.ES256, "ec-1", claims), remotetest.Sign(b, is.Ed1, jose.EdDSA, "ed-1", claims)
	cases := []struct {
		name  string
		a     auth.Verifier
		token string
	}{
		{"static-101-entries", st, static},
		{"jwt-RS256-full", full, rs},
		{"jwt-ES256-full", full, es},
		{"jwt-EdDSA-full", full, ed},
		{"jwt-RS256-remembered", jv, rs},
		{"jwt-ES256-remembered", jv, es},
		{"jwt-EdDSA-remembered", jv, ed},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := b.Context()
			if _, err := c.a.Verify(ctx, c.token); err != nil { // warm the key cache
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.a.Verify(ctx, c.token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
