package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Use is the store as a mcpkit.ReplayGuard shared by every instance: SET NX of the
// nonce's key with the state's expiry (PXAT), one round trip, atomic in Redis, so of
// two instances presenting one requestState exactly one sees it fresh. Redis drops
// the key when the state expires, which is when it could no longer be presented.
//
// It fails closed: when Redis cannot be reached the error refuses the request (a
// confirmed write is not done), since an instance that cannot tell whether a state
// was used must not run what it confirms.
func (s *Store) Use(ctx context.Context, nonce string, expires time.Time) (bool, error) {
	if min := time.Now().Add(time.Millisecond); expires.Before(min) {
		expires = min
	}
	ok, err := s.rdb.SetArgs(ctx, s.prefix+"used:"+nonce, 1, redis.SetArgs{Mode: "NX", ExpireAt: expires}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil // already used
	case err != nil:
		return false, s.unreachable("the shared record of used requestStates", err)
	}
	return ok == "OK", nil
}

// unreachable says which shared state cannot be reached (or refused the command) and
// what that means for the request, naming Redis by its address only (never the URL,
// which may hold a password).
func (s *Store) unreachable(what string, err error) error {
	return fmt.Errorf("%s (Redis at %s) cannot be reached: %v; writes and tasks are refused until it answers again, reads go on", what, s.addr, err)
}

var _ mcpkit.ReplayGuard = (*Store)(nil)
