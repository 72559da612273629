package errorserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// apiPage is one decoded response and its Link-header cursor for the next page.
type apiPage struct {
	NextCursor string
}

// get performs GET /api/0/<path>/ with q, retrying as the config allows, and decodes
// the JSON answer into out. op names the request in errors ("search issues").
//
// Retry policy: 5xx answers and network errors or attempt timeouts are retried with
// exponential backoff and jitter; 429 is retried after Retry-After if that fits both
// MaxRetryWait and the call's deadline, and otherwise reported with the time to retry.
// Every call is bounded by CallTimeout overall.
func (b *SentryBackend) get(ctx context.Context, op string, segments []string, q url.Values, out any) (apiPage, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	target := b.endpoint(segments, q)
	for attempt := 1; ; attempt++ {
		status, header, body, err := b.attempt(ctx, target)
		b.logger.Debug("sentry request", "op", op, "path", "/api/0/"+strings.Join(segments, "/")+"/", "status", status, "attempt", attempt)
		if err != nil {
			if ctx.Err() != nil {
				return apiPage{}, fmt.Errorf("%w: Sentry did not answer %s within the %s deadline: try again, or narrow the request", ErrUnavailable, op, b.cfg.CallTimeout)
			}
			if attempt < b.cfg.MaxAttempts && retryableNetErr(err) {
				if b.backoff(ctx, attempt) {
					continue
				}
				return apiPage{}, fmt.Errorf("%w: Sentry did not answer %s within the %s deadline (%d attempts, the last: %s): try again, or narrow the request", ErrUnavailable, op, b.cfg.CallTimeout, attempt, describeNetErr(err))
			}
			return apiPage{}, fmt.Errorf("%w: %s: %s", ErrUnavailable, op, describeNetErr(err))
		}
		switch {
		case status >= 200 && status < 300:
			if err := json.Unmarshal(body, out); err != nil {
				return apiPage{}, fmt.Errorf("%w: Sentry's answer to %s is not the expected JSON: %v", ErrUnavailable, op, err)
			}
			return apiPage{NextCursor: nextCursor(header.Values("Link"))}, nil
		case status == http.StatusTooManyRequests:
			wait, at := retryAfter(header.Get("Retry-After"), time.Now())
			deadline, _ := ctx.Deadline()
			if attempt >= b.cfg.MaxAttempts || wait > b.cfg.MaxRetryWait || at.After(deadline) {
				return apiPage{}, fmt.Errorf("%w: Sentry's rate limit refused %s: retry after %s (in %s)", ErrRateLimited, op, at.UTC().Format(time.RFC3339), wait.Round(time.Minute))
			}
			if !sleepCtx(ctx, wait) {
				return apiPage{}, fmt.Errorf("%w: Sentry's rate limit refused %s and the call's deadline ran out while waiting", ErrRateLimited, op)
			}
			continue
		case status == http.StatusUnauthorized:
			return apiPage{}, fmt.Errorf("%w: Sentry refused the token (401 Unauthorized) for %s: check SENTRY_AUTH_TOKEN; it must be a valid auth token with the scopes %s", ErrConfig, op, SentryScopes)
		case status == http.StatusForbidden:
			return apiPage{}, fmt.Errorf("%w: Sentry refused %s (403 Forbidden)%s: the token in SENTRY_AUTH_TOKEN lacks access; it needs the scopes %s and membership in the organization", ErrConfig, op, detailSuffix(body), SentryScopes)
		case status == http.StatusNotFound:
			return apiPage{}, fmt.Errorf("%w: Sentry has no such resource for %s (404)%s", ErrNotFound, op, detailSuffix(body))
		case status == http.StatusBadRequest:
			return apiPage{}, fmt.Errorf("%w: Sentry rejected %s (400)%s", ErrInvalidInput, op, detailSuffix(body))
		case status >= 300 && status < 400:
			return apiPage{}, fmt.Errorf("%w: Sentry redirected %s (%d) to %s: set SENTRY_URL to the host it redirects to", ErrConfig, op, status, redirectHost(header.Get("Location")))
		case status >= 500:
			if attempt < b.cfg.MaxAttempts && b.backoff(ctx, attempt) {
				continue
			}
			return apiPage{}, fmt.Errorf("%w: Sentry failed %s (%d %s) after %d attempts within the %s deadline: try again later", ErrUnavailable, op, status, http.StatusText(status), attempt, b.cfg.CallTimeout)
		default:
			return apiPage{}, fmt.Errorf("%w: Sentry answered %s with %d %s%s", ErrUnavailable, op, status, http.StatusText(status), detailSuffix(body))
		}
	}
}

// endpoint builds base + api/0/ + segments + "/" + ?q. Segments are validated ids, and
// are escaped anyway.
func (b *SentryBackend) endpoint(segments []string, q url.Values) string {
	esc := make([]string, len(segments))
	for i, s := range segments {
		esc[i] = url.PathEscape(s)
	}
	u := b.base.String() + "api/0/" + strings.Join(esc, "/") + "/"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// attempt does one HTTP request under its own timeout and reads a bounded body.
func (b *SentryBackend) attempt(ctx context.Context, target string) (int, http.Header, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, b.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+b.cfg.Token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "mcp-server-errors")
	resp, err := b.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, sentryMaxResponse+1))
	if err != nil {
		return 0, nil, nil, err
	}
	if len(body) > sentryMaxResponse {
		return 0, nil, nil, fmt.Errorf("answer is over %d bytes: narrow the request", sentryMaxResponse)
	}
	return resp.StatusCode, resp.Header, body, nil
}

// backoff sleeps before retry attempt+1: 100ms doubling, capped at 3s, with up to 25%
// jitter. It returns false when the call's deadline would pass first.
func (b *SentryBackend) backoff(ctx context.Context, attempt int) bool {
	d := min(100*time.Millisecond<<(attempt-1), 3*time.Second)
	d += time.Duration(rand.Int64N(int64(d / 4)))
	if deadline, ok := ctx.Deadline(); ok && time.Now().Add(d).After(deadline) {
		return false
	}
	return sleepCtx(ctx, d)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryAfter reads Retry-After in seconds or as an HTTP date (1s when absent) and
// returns how long to wait and until when.
func retryAfter(v string, now time.Time) (time.Duration, time.Time) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n < 1e9 {
		d := time.Duration(n * float64(time.Second))
		return d, now.Add(d)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), t
	}
	return time.Second, now.Add(time.Second)
}

// retryableNetErr: timeouts, refused or reset connections and early EOFs are worth
// another attempt; TLS and DNS configuration errors are not.
func retryableNetErr(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		var dnsErr *net.DNSError
		return !errors.As(err, &dnsErr)
	}
	return false
}

// describeNetErr drops the request URL from a client error (it can be long and holds
// the search text) and keeps what went wrong.
func describeNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "an attempt timed out"
	}
	return err.Error()
}

// detailSuffix renders Sentry's {"detail": "..."} (untrusted, so cleaned and short).
func detailSuffix(body []byte) string {
	var d struct {
		Detail any `json:"detail"`
	}
	if json.Unmarshal(body, &d) != nil || d.Detail == nil {
		return ""
	}
	s, ok := d.Detail.(string)
	if !ok {
		b, _ := json.Marshal(d.Detail)
		s = string(b)
	}
	return ": " + (&viewer{}).text(s, 300)
}

func redirectHost(loc string) string {
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" {
		return "another location"
	}
	return u.Scheme + "://" + u.Host
}
