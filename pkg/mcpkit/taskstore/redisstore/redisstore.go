// Package redisstore keeps the tasks of the Tasks extension (mcpkit.TaskStore) in
// Redis, so that every instance of a server behind one load balancer reads, updates
// and cancels the same tasks: a task created through one instance is polled through
// any other, and outlives the instance that runs its work (which then reports it
// failed once its lease runs out, see mcpkit.ServerOptions.TaskLease).
//
// Each task is one string key holding its state as JSON, written with the task's
// expiry (PXAT), so Redis itself drops expired tasks; updates are optimistic
// transactions (WATCH/MULTI/EXEC) retried on conflict; changes are announced on one
// pub/sub channel. Only this package links the Redis client: a server links it by
// setting serve.Flags.TaskStore to FromURL.
//
// The same Store is the other state instances must share: a mcpkit.ReplayGuard
// (Use: the used requestStates, so a confirmed write replayed to any instance is
// refused) and mcpkit.SharedLimits (Acquire: each caller's concurrency and rate
// counts). Package serve uses it for both unless --replay-store or --limit-store say
// otherwise. While Redis cannot be reached, every method fails with an error that
// says so: tasks and confirmed writes are refused, and mcpkit falls back to each
// instance's own caller limits.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// DefaultPrefix starts every key and the channel name.
const DefaultPrefix = "mcpkit:tasks:"

// Store is a mcpkit.TaskStore in Redis.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	addr   string // for errors: where Redis is, without credentials
}

// New returns a store on rdb whose keys start with prefix (DefaultPrefix if empty):
// servers that must not see each other's tasks use different prefixes or databases.
func New(rdb redis.UniversalClient, prefix string) *Store {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	addr := "(unknown address)"
	if c, ok := rdb.(*redis.Client); ok {
		addr = c.Options().Addr
	}
	return &Store{rdb: rdb, prefix: prefix, addr: addr}
}

// FromURL connects to the Redis at a URL, redis://[user:password@]host:port[/db] or
// rediss:// for TLS (the form redis.ParseURL reads; a prefix query parameter sets
// the key prefix), and checks that it answers. It has the signature of
// serve.Flags.TaskStore, behind --task-store (MCP_TASK_STORE).
func FromURL(raw string) (mcpkit.TaskStore, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("task store URL: %w", err)
	}
	prefix := u.Query().Get("prefix")
	q := u.Query()
	q.Del("prefix")
	u.RawQuery = q.Encode()
	opts, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, fmt.Errorf("task store URL (redis://host:port/db): %w", err)
	}
	rdb := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("task store: Redis at %s does not answer: %w", opts.Addr, err)
	}
	return New(rdb, prefix), nil
}

// Close closes the Redis client.
func (s *Store) Close() error { return s.rdb.Close() }

func (s *Store) key(id string) string { return s.prefix + "task:" + id }
func (s *Store) channel() string      { return s.prefix + "changed" }

// expiry is the absolute expiry Redis keeps the key until (at least a millisecond
// ahead, since PXAT in the past is refused).
func expiry(t *mcpkit.TaskState) time.Time {
	if min := time.Now().Add(time.Millisecond); t.ExpiresAt.Before(min) {
		return min
	}
	return t.ExpiresAt
}

// Create stores a new task; SET NX refuses an id already in use. A single Redis (or
// its primary) answers GET with it as soon as SET returns.
func (s *Store) Create(ctx context.Context, t *mcpkit.TaskState) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	ok, err := s.rdb.SetArgs(ctx, s.key(t.ID), b, redis.SetArgs{Mode: "NX", ExpireAt: expiry(t)}).Result()
	if errors.Is(err, redis.Nil) || (err == nil && ok != "OK") {
		return errors.New("task id already in use")
	}
	return s.wrap(err)
}

// Get reads a task; a missing (never created or expired) key is mcpkit.ErrTaskNotFound.
func (s *Store) Get(ctx context.Context, id string) (*mcpkit.TaskState, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, mcpkit.ErrTaskNotFound
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	return decode(b)
}

func decode(b []byte) (*mcpkit.TaskState, error) {
	var t mcpkit.TaskState
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("task store: undecodable task state: %w", err)
	}
	return &t, nil
}

// maxUpdateTries bounds the retries of an update that keeps losing to others.
const maxUpdateTries = 50

// Update reads, changes and writes a task in one optimistic transaction: WATCH the
// key, apply fn, and EXEC the write only if nobody wrote the key meanwhile; on a
// conflict it starts over with the newer state.
func (s *Store) Update(ctx context.Context, id string, fn func(*mcpkit.TaskState) error) (*mcpkit.TaskState, error) {
	key := s.key(id)
	var out *mcpkit.TaskState
	for range maxUpdateTries {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			b, err := tx.Get(ctx, key).Bytes()
			if errors.Is(err, redis.Nil) {
				return mcpkit.ErrTaskNotFound
			}
			if err != nil {
				return err
			}
			t, err := decode(b)
			if err != nil {
				return err
			}
			if err := fn(t); err != nil {
				if errors.Is(err, mcpkit.ErrTaskUnchanged) {
					out, err = decode(b)
					return err
				}
				return err
			}
			nb, err := json.Marshal(t)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.SetArgs(ctx, key, nb, redis.SetArgs{ExpireAt: expiry(t)})
				return nil
			})
			if err == nil {
				out = t
			}
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue // another instance wrote the task meanwhile: read it again
		}
		if err != nil {
			return nil, s.wrap(err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("task store: task %s kept changing under %d tries to update it", id, maxUpdateTries)
}

// Publish announces on the channel that task id changed.
func (s *Store) Publish(ctx context.Context, id string) error {
	return s.wrap(s.rdb.Publish(ctx, s.channel(), id).Err())
}

// wrap says that the shared task store cannot be reached when err is a connection
// failure; other errors (a task's own, Redis's answers) pass unchanged.
func (s *Store) wrap(err error) error {
	var ne net.Error
	if err == nil || !(errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, redis.ErrPoolTimeout)) {
		return err
	}
	return s.unreachable("the shared task store", err)
}

// Subscribe listens on the channel until ctx ends. It returns once Redis confirmed
// the subscription; the client resubscribes by itself after a lost connection
// (announcements made meanwhile are lost, which mcpkit tolerates: it also reads the
// tasks it waits on now and then).
func (s *Store) Subscribe(ctx context.Context, fn func(id string)) error {
	sub := s.rdb.Subscribe(ctx, s.channel())
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return fmt.Errorf("task store: subscribing to task changes: %w", err)
	}
	ch := sub.Channel()
	go func() {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				fn(m.Payload)
			}
		}
	}()
	return nil
}

var _ mcpkit.TaskStore = (*Store)(nil)
