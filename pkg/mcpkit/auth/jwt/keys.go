package jwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
	"github.com/mcpkit/reference/pkg/mcpkit/auth/internal/authurl"
)

// key finds the verification key for a kid, fetching the key set when it has not
// been fetched, is older than CacheTTL, or lacks the kid, but never more often than
// MinRefreshInterval.
func (v *Verifier) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	for attempt := 0; ; attempt++ {
		v.mu.Lock()
		now := v.o.Now()
		k, found := v.findLocked(kid, alg)
		fresh := v.loaded && now.Sub(v.fetched) < v.o.CacheTTL
		if found && fresh {
			v.mu.Unlock()
			return k, nil
		}
		mayFetch := attempt == 0 && (v.lastAttempt.IsZero() || now.Sub(v.lastAttempt) >= v.o.MinRefreshInterval)
		if ch := v.inflight; ch != nil && attempt == 0 {
			// Someone is fetching: wait for it, then look again.
			v.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, invalid("verification was cancelled")
			}
			continue
		}
		if !mayFetch {
			loaded, ferr := v.loaded, v.fetchErr
			v.mu.Unlock()
			switch {
			case found:
				return k, nil
			case !loaded:
				return nil, fmt.Errorf("%w: the issuer's keys could not be fetched: %v", auth.ErrUnavailable, ferr)
			default:
				return nil, invalid("it was signed with key %q, which the issuer's key set does not contain", clip(kid))
			}
		}
		ch := make(chan struct{})
		v.inflight = ch
		v.lastAttempt = now
		v.mu.Unlock()

		keys, err := v.fetchKeys(ctx)

		v.mu.Lock()
		if err == nil {
			v.keys, v.loaded, v.fetched, v.fetchErr = keys, true, v.o.Now(), nil
		} else {
			v.fetchErr = err
		}
		v.inflight = nil
		close(ch)
		v.mu.Unlock()
	}
}

// findLocked picks the key for a kid: the one with that id whose type fits the
// algorithm. A token without a kid is accepted only when exactly one key fits.
func (v *Verifier) findLocked(kid, alg string) (*jose.JSONWebKey, bool) {
	var match *jose.JSONWebKey
	n := 0
	for i := range v.keys {
		k := &v.keys[i]
		if (kid != "" && k.KeyID != kid) || !keyFits(k, alg) {
			continue
		}
		match = k
		n++
	}
	if n == 0 || (kid == "" && n > 1) {
		return nil, false
	}
	return match, true
}

// keyFits reports whether a public key may verify a signature made with alg: its
// declared alg and use agree, and its type and curve are what the algorithm needs.
func keyFits(k *jose.JSONWebKey, alg string) bool {
	if (k.Algorithm != "" && k.Algorithm != alg) || (k.Use != "" && k.Use != "sig") {
		return false
	}
	switch pk := k.Key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		want := map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()}[alg]
		return want != nil && pk.Curve == want
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// fetchKeys discovers the JWKS URL if needed and fetches the key set. Keys that are
// not public asymmetric keys (symmetric or private material, unknown types) are
// skipped: a key set is untrusted input too.
func (v *Verifier) fetchKeys(ctx context.Context) ([]jose.JSONWebKey, error) {
	// The fetch serves every waiting request: do not let one caller's cancellation
	// abort it, but bound it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), v.o.FetchTimeout)
	defer cancel()
	v.mu.Lock()
	jwksURL := v.jwksURL
	v.mu.Unlock()
	if jwksURL == "" {
		u, err := v.discover(ctx)
		if err != nil {
			return nil, err
		}
		jwksURL = u
		v.mu.Lock()
		v.jwksURL = u
		v.mu.Unlock()
	}
	body, err := v.get(ctx, jwksURL)
	if err != nil {
		return nil, fmt.Errorf("fetching the key set: %w", err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the key set at %s is not a JWKS document: %v", jwksURL, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() || !k.IsPublic() {
			continue
		}
		switch k.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the key set at %s holds no usable public signing key", jwksURL)
	}
	return keys, nil
}

// discover reads the issuer's metadata: RFC 8414 first, then OpenID Connect
// discovery. The document's issuer must equal the configured one (RFC 8414 §3.3).
func (v *Verifier) discover(ctx context.Context) (string, error) {
	iss, _ := url.Parse(v.o.Issuer)
	path := strings.TrimSuffix(iss.Path, "/")
	candidates := []string{
		(&url.URL{Scheme: iss.Scheme, Host: iss.Host, Path: "/.well-known/oauth-authorization-server" + path}).String(),
		strings.TrimSuffix(v.o.Issuer, "/") + "/.well-known/openid-configuration",
	}
	var errs []string
	for _, c := range candidates {
		body, err := v.get(ctx, c)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Sprintf("%s: not a metadata document: %v", c, err))
			continue
		}
		if md.Issuer != v.o.Issuer {
			return "", fmt.Errorf("the metadata at %s names issuer %q, not %q", c, md.Issuer, v.o.Issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("the metadata at %s has no jwks_uri", c)
		}
		if _, err := authurl.CheckIssuerURL(md.JWKSURI); err != nil {
			return "", fmt.Errorf("the metadata at %s has an unusable jwks_uri %q: %v", c, md.JWKSURI, err)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("discovering the issuer's metadata: %s", strings.Join(errs, "; "))
}

// get fetches a JSON document with a bounded body.
func (v *Verifier) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, v.o.MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", u, err)
	}
	if int64(len(body)) > v.o.MaxResponseBytes {
		return nil, fmt.Errorf("%s: the response is larger than %d bytes", u, v.o.MaxResponseBytes)
	}
	return body, nil
}
