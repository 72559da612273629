package remotetest

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer is a local OAuth authorization server: it publishes its metadata and a
// JSON Web Key Set of keys the test generated, and counts how often they are fetched.
type Issuer struct {
	srv    *httptest.Server
	Issuer string // the issuer identifier (srv.URL, plus a path for path issuers)

	mu        sync.Mutex
	published []jose.JSONWebKey
	// layout chooses which metadata documents exist: "rfc8414", "oidc" or "foreign"
	// (a document that names another issuer).
	layout string

	MetadataFetches, JWKSFetches atomic.Int32

	RSA1, RSA2, Rogue *rsa.PrivateKey
	EC1               *ecdsa.PrivateKey
	Ed1               ed25519.PrivateKey
}

// NewIssuer starts an issuer at a loopback URL with path; layout chooses its
// metadata documents (see Issuer).
func NewIssuer(t testing.TB, layout, path string) *Issuer {
	t.Helper()
	is := &Issuer{layout: layout}
	k := testKeys(t)
	is.RSA1, is.RSA2, is.Rogue, is.EC1, is.Ed1 = k.rsa1, k.rsa2, k.rogue, k.ec1, k.ed1
	is.published = []jose.JSONWebKey{
		{Key: &is.RSA1.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"},
		{Key: &is.EC1.PublicKey, KeyID: "ec-1", Algorithm: "ES256", Use: "sig"},
		{Key: is.Ed1.Public(), KeyID: "ed-1", Algorithm: "EdDSA", Use: "sig"},
		// A symmetric key in the set must never be used, whatever a token says.
		{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "oct-1", Algorithm: "HS256"},
	}
	is.srv = httptest.NewUnstartedServer(http.HandlerFunc(is.serve))
	is.Issuer = "http://" + is.srv.Listener.Addr().String() + path
	is.srv.Start()
	t.Cleanup(is.srv.Close)
	return is
}

// issuerKeys are generated once per test binary: RSA key generation is slow.
type issuerKeys struct {
	rsa1, rsa2, rogue *rsa.PrivateKey
	ec1               *ecdsa.PrivateKey
	ed1               ed25519.PrivateKey
}

var (
	keysOnce  sync.Once
	keysValue issuerKeys
	keysErr   error
)

func testKeys(t testing.TB) issuerKeys {
	t.Helper()
	keysOnce.Do(func() {
		k := &keysValue
		for _, p := range []**rsa.PrivateKey{&k.rsa1, &k.rsa2, &k.rogue} {
			if *p, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
				return
			}
		}
		if k.ec1, keysErr = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); keysErr != nil {
			return
		}
		_, k.ed1, keysErr = ed25519.GenerateKey(rand.Reader)
	})
	if keysErr != nil {
		t.Fatal(keysErr)
	}
	return keysValue
}

func (is *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	defer is.mu.Unlock()
	u, _ := http.NewRequest("GET", is.Issuer, nil)
	issuerPath := strings.TrimSuffix(u.URL.Path, "/")
	metadata := func() {
		is.MetadataFetches.Add(1)
		iss := is.Issuer
		if is.layout == "foreign" {
			iss = "https://someone-else.example"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "jwks_uri": is.srv.URL + "/jwks", "response_types_supported": []string{"code"}})
	}
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server" + issuerPath:
		if is.layout == "rfc8414" || is.layout == "foreign" {
			metadata()
			return
		}
	case issuerPath + "/.well-known/openid-configuration":
		if is.layout == "oidc" {
			metadata()
			return
		}
	case "/jwks":
		is.JWKSFetches.Add(1)
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.published})
		return
	}
	http.NotFound(w, r)
}

// Publish adds a key to the set (key rotation).
func (is *Issuer) Publish(k jose.JSONWebKey) {
	is.mu.Lock()
	is.published = append(is.published, k)
	is.mu.Unlock()
}

// Sign makes a JWS of claims with the key, algorithm and kid given.
func Sign(t testing.TB, key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
