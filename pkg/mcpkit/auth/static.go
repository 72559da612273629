package auth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// StaticTokens verifies bearer tokens against a fixed list, for deployments without
// an authorization server. Only SHA-256 digests of the tokens are kept in memory, and
// a presented token is compared with every entry in constant time.
//
// The list format, one token per line (blank lines and lines starting with # are
// ignored):
//
//	sha256:<64 hex digits>  <subject>  [scope1,scope2,...]
//	<plain token>           <subject>  [scope1,scope2,...]
//
// The first field is the digest of the token (printf %s "$TOKEN" | sha256sum) or the
// token itself, hashed when loaded; prefer digests in files. A plain token must be at
// least 32 characters so it cannot be guessed. The subject names the caller in audit
// logs and rate limits, as the caller ([StaticIssuer], subject): never the same
// caller as a JWT with that sub; scopes are comma-separated ("-" or nothing for none).
type StaticTokens struct {
	entries []staticToken
}

type staticToken struct {
	digest  [sha256.Size]byte
	subject string
	scopes  []string
}

var _ Verifier = (*StaticTokens)(nil)

// MinStaticTokenLength is the shortest plain token accepted in a static token list.
const MinStaticTokenLength = 32

// HashStaticToken returns the "sha256:<hex>" form of a token for a static token list.
func HashStaticToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LoadStaticTokens reads a static token list from a file (see [StaticTokens]).
func LoadStaticTokens(path string) (*StaticTokens, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading static token file: %w", err)
	}
	st, err := ParseStaticTokens(string(b))
	if err != nil {
		return nil, fmt.Errorf("static token file %s: %w", path, err)
	}
	return st, nil
}

// ParseStaticTokens reads a static token list (see [StaticTokens]). Entries may also be
// separated by ';' so that a list fits in one environment variable. Errors name the
// line but never repeat a token.
func ParseStaticTokens(text string) (*StaticTokens, error) {
	st := &StaticTokens{}
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(text, ";", "\n")))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("entry %d: expected \"<token or sha256:hex> <subject> [scope1,scope2]\", got %d fields", n, len(f))
		}
		e := staticToken{subject: f[1]}
		if hexDigest, ok := strings.CutPrefix(f[0], "sha256:"); ok {
			d, err := hex.DecodeString(hexDigest)
			if err != nil || len(d) != sha256.Size {
				return nil, fmt.Errorf("entry %d: sha256: must be followed by 64 hex digits", n)
			}
			copy(e.digest[:], d)
		} else {
			if len(f[0]) < MinStaticTokenLength {
				return nil, fmt.Errorf("entry %d: a plain token must be at least %d characters (generate one with: openssl rand -base64 32)", n, MinStaticTokenLength)
			}
			if !isToken68(f[0]) {
				return nil, fmt.Errorf("entry %d: a token may contain only letters, digits and -._~+/ (with trailing =)", n)
			}
			e.digest = sha256.Sum256([]byte(f[0]))
		}
		if len(f) == 3 && f[2] != "-" {
			for _, s := range strings.Split(f[2], ",") {
				if s = strings.TrimSpace(s); s != "" {
					e.scopes = append(e.scopes, s)
				}
			}
		}
		for _, prev := range st.entries {
			if prev.digest == e.digest {
				return nil, fmt.Errorf("entry %d: the same token is listed twice", n)
			}
		}
		st.entries = append(st.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(st.entries) == 0 {
		return nil, errors.New("no tokens: the list is empty")
	}
	return st, nil
}

// Len is the number of tokens in the list.
func (st *StaticTokens) Len() int { return len(st.entries) }

// Verify accepts a token whose digest is in the list. Every entry is compared, so
// the time taken does not reveal which entry matched or how much of a digest did.
func (st *StaticTokens) Verify(_ context.Context, token string) (*Principal, error) {
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range st.entries {
		if subtle.ConstantTimeCompare(sum[:], st.entries[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return nil, fmt.Errorf("%w: it is not one of this server's static tokens", ErrTokenUnrecognized)
	}
	e := st.entries[match]
	return &Principal{Subject: e.subject, Issuer: StaticIssuer, Scopes: append([]string(nil), e.scopes...)}, nil
}
