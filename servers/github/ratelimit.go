package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// DefaultMaxRetryWait is how long a call may wait for a rate limit to pass before it
// gives up and reports the reset time instead: the shared retry policy's longest
// Retry-After, which backend.go gives it too.
const DefaultMaxRetryWait = upstream.DefaultMaxRetryAfter

// secondaryDefaultWait is GitHub's advice when a secondary limit names no wait:
// "wait for at least one minute before retrying".
const secondaryDefaultWait = time.Minute

// RateLimitError reports that GitHub refused a request for rate limiting and that
// waiting was not worth it (longer than the allowed wait or the call's deadline).
type RateLimitError struct {
	// Secondary is true for GitHub's burst ("secondary") limits, false for the hourly
	// primary quota.
	Secondary bool
	// Resource is the quota that ran out: core, search, code_search, ...
	Resource string
	// Limit is the size of the primary quota, when GitHub said.
	Limit int
	// Reset is when requests will be accepted again.
	Reset time.Time
	// Local is true when no request was sent because an earlier answer already said
	// the limit is exhausted until Reset (GitHub asks clients not to keep trying).
	Local bool
}

func (e *RateLimitError) Error() string {
	wait := time.Until(e.Reset).Round(time.Second)
	if wait < 0 {
		wait = 0
	}
	at := e.Reset.UTC().Format(time.RFC3339)
	if e.Secondary {
		return fmt.Sprintf("GitHub secondary rate limit hit (too many requests in a short time); retry after %s (in %s); make fewer or narrower requests", at, wait)
	}
	limit := ""
	if e.Limit > 0 {
		limit = fmt.Sprintf(" of %d requests per hour", e.Limit)
	}
	return fmt.Sprintf("GitHub rate limit%s for %q requests is exhausted; it resets at %s (in %s); try again after that", limit, e.Resource, at, wait)
}

// rateLimitTransport recognises GitHub's primary and secondary rate-limit answers
// (403 or 429), waits and retries when the wait is short and fits the call's deadline,
// and otherwise fails with a *RateLimitError that states the reset time. Until that
// time it refuses further requests of the same kind locally: GitHub warns that
// integrations which keep sending while limited may be banned.
type rateLimitTransport struct {
	next       http.RoundTripper
	maxWait    time.Duration
	maxRetries int
	now        func() time.Time
	sleep      func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	blocked map[string]*RateLimitError // by resource; "" = secondary, all resources
}

func newRateLimitTransport(next http.RoundTripper, maxWait time.Duration) *rateLimitTransport {
	if maxWait <= 0 {
		maxWait = DefaultMaxRetryWait
	}
	return &rateLimitTransport{
		next:       next,
		maxWait:    maxWait,
		maxRetries: 2,
		now:        time.Now,
		sleep:      upstream.Sleep,
		blocked:    map[string]*RateLimitError{},
	}
}

func (t *rateLimitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resource := resourceOf(req.URL.Path)
	for attempt := 0; ; attempt++ {
		if err := t.blockedFor(resource); err != nil {
			closeBody(req)
			return nil, err
		}
		send := req
		if attempt > 0 {
			var err error
			if send, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.next.RoundTrip(send)
		if err != nil {
			return nil, err
		}
		rl, wait, err := t.classify(resp, resource)
		if err != nil || rl == nil {
			return resp, err
		}
		resp.Body.Close()
		if attempt < t.maxRetries && wait <= t.maxWait && fitsDeadline(req.Context(), t.now(), wait) &&
			(req.Body == nil || req.GetBody != nil) {
			if err := t.sleep(req.Context(), wait); err != nil {
				return nil, err
			}
			continue
		}
		t.block(rl)
		return nil, rl
	}
}

// classify returns a *RateLimitError when resp is a rate-limit refusal, following
// GitHub's documented order: Retry-After first, then X-RateLimit-Remaining: 0 with
// X-RateLimit-Reset, then a "secondary rate limit" message (wait a minute). A 403
// without any of these is a permission problem and passes through untouched.
func (t *rateLimitTransport) classify(resp *http.Response, resource string) (*RateLimitError, time.Duration, error) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return nil, 0, nil
	}
	h := resp.Header
	if r := h.Get("X-RateLimit-Resource"); r != "" {
		resource = r
	}
	rl := &RateLimitError{Resource: resource}
	rl.Limit, _ = strconv.Atoi(h.Get("X-RateLimit-Limit"))
	now := t.now()

	if h.Get("Retry-After") != "" {
		rl.Secondary = true
		wait, ok := upstream.RetryAfter(h, now)
		if !ok {
			wait = secondaryDefaultWait
		}
		rl.Reset = now.Add(wait)
		return rl, wait, nil
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if secs, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			rl.Reset = time.Unix(secs, 0)
		} else {
			rl.Reset = now.Add(secondaryDefaultWait)
		}
		return rl, max(rl.Reset.Sub(now), 0), nil
	}
	// Look for the secondary-limit message; keep the body readable for the caller.
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		resp.Body.Close()
		return nil, 0, err
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit")) ||
		bytes.Contains(bytes.ToLower(body), []byte("abuse detection")) {
		rl.Secondary = true
		rl.Reset = now.Add(secondaryDefaultWait)
		return rl, secondaryDefaultWait, nil
	}
	return nil, 0, nil
}

func (t *rateLimitTransport) block(rl *RateLimitError) {
	key := rl.Resource
	if rl.Secondary {
		key = ""
	}
	t.mu.Lock()
	t.blocked[key] = rl
	t.mu.Unlock()
}

func (t *rateLimitTransport) blockedFor(resource string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for _, key := range []string{"", resource} {
		rl, ok := t.blocked[key]
		if !ok {
			continue
		}
		if !now.Before(rl.Reset) {
			delete(t.blocked, key)
			continue
		}
		c := *rl
		c.Local = true
		return &c
	}
	return nil
}

// resourceOf guesses the quota a request draws on from its path, the same way GitHub
// names it in X-RateLimit-Resource.
func resourceOf(path string) string {
	switch {
	case strings.Contains(path, "/search/code"):
		return "code_search"
	case strings.Contains(path, "/search/"):
		return "search"
	case strings.HasSuffix(path, "/graphql"):
		return "graphql"
	default:
		return "core"
	}
}

func fitsDeadline(ctx context.Context, now time.Time, wait time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || now.Add(wait).Before(dl)
}

// rewind prepares req to be sent again, with a fresh copy of its body.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	return r, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
