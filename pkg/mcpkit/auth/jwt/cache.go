package jwt

import (
	"crypto/sha256"
	"slices"
	"sync"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/auth"
)

// verifiedTokens remembers tokens that passed every check, by their SHA-256, for
// at most verifiedTTL and never past their expiry, so a client sending the same
// token on every request pays for one signature check a minute instead of one per
// request. Only valid tokens enter, so forged tokens cannot fill it; it is bounded
// and simply emptied when full.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]verifiedToken
}

type verifiedToken struct {
	p     auth.Principal
	until time.Time
}

const (
	verifiedTTL = time.Minute
	verifiedMax = 4096
)

func (c *verifiedTokens) get(key [sha256.Size]byte, now time.Time) (*auth.Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil, false
	}
	if !now.Before(e.until) {
		delete(c.m, key)
		return nil, false
	}
	p := e.p
	p.Scopes = slices.Clone(p.Scopes)
	return &p, true
}

func (c *verifiedTokens) put(key [sha256.Size]byte, p *auth.Principal, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= verifiedMax {
		c.m = make(map[[sha256.Size]byte]verifiedToken)
	}
	e := verifiedToken{p: *p, until: until}
	e.p.Scopes = slices.Clone(p.Scopes)
	c.m[key] = e
}
