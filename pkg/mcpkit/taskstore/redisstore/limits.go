package redisstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// InflightLease bounds how long a request counts as in flight in the shared
// concurrency count without being released: the count of an instance that died with
// requests in flight heals after it. A request running longer stops counting then
// (the limit is loose for it, never stuck).
const InflightLease = 10 * time.Minute

// acquireScript counts one request of a caller, in one round trip and atomically:
//
//	KEYS[1]  the caller's in-flight set (sorted set of request ids scored by lease end, ms)
//	KEYS[2]  the caller's rate counter (expires with its window)
//	ARGV     request id, concurrent limit, rate limit, window ms, lease ms
//
// It drops expired in-flight entries, refuses (1) at the concurrent limit, counts the
// request in the window and refuses (2) over the rate, and otherwise records the
// request in flight (0). Time is Redis's own clock (TIME), so instances' clocks do not
// matter.
var acquireScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local conc, rate = tonumber(ARGV[2]), tonumber(ARGV[3])
if conc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= conc then return 1 end
end
if rate > 0 then
  local n = redis.call('INCR', KEYS[2])
  if n == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  if n > rate then return 2 end
end
if conc > 0 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return 0
`)

// Acquire is the store as mcpkit.SharedLimits: a caller's concurrency and rate counts
// kept in Redis (one script call per request, one ZREM when it ends), so that they
// hold across every instance. Keys name the caller by a hash of its key (a token
// subject or an address), never the key itself.
func (s *Store) Acquire(ctx context.Context, key string, l mcpkit.CallerLimit) (func(), string, error) {
	sum := sha256.Sum256([]byte(key))
	caller := hex.EncodeToString(sum[:16])
	inflight, rate := s.prefix+"inflight:"+caller, s.prefix+"rate:"+caller
	id := rand.Text()
	window := l.Window
	if window <= 0 {
		window = mcpkit.RateWindow
	}
	res, err := acquireScript.Run(ctx, s.rdb, []string{inflight, rate}, id, l.Concurrent, l.Rate, window.Milliseconds(), InflightLease.Milliseconds()).Int()
	if err != nil {
		return nil, "", s.unreachable("the shared caller limits", err)
	}
	switch res {
	case 0:
	case 1:
		return nil, mcpkit.LimitConcurrent, nil
	case 2:
		return nil, mcpkit.LimitRate, nil
	default:
		return nil, "", fmt.Errorf("the shared caller limits answered %d", res)
	}
	if l.Concurrent <= 0 {
		return func() {}, "", nil
	}
	return func() {
		// The request is answered: its own deadline, not the caller's context (which
		// may be done), bounds the release. A release lost to an unreachable Redis
		// heals after InflightLease.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.rdb.ZRem(rctx, inflight, id).Err()
	}, "", nil
}

var _ mcpkit.SharedLimits = (*Store)(nil)
