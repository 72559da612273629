package sentryapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// apiPage is one decoded response and its Link-header cursor for the next page.
type apiPage struct {
	NextCursor string
}

// get performs GET /api/0/<path>/ with q and decodes the JSON answer into out. op
// names the request in errors ("search issues").
//
// Retries are the repository's one policy for idempotent reads (pkg/mcpkit/upstream,
// installed on b.hc by NewSentryBackend): transport failures, attempt timeouts, bodies
// cut short, 429 and 500/502/503/504 are retried with capped, jittered exponential
// backoff, a Retry-After up to MaxRetryWait is waited out, and at most MaxAttempts
// requests are sent. What is left when they run out is reported here, naming Sentry,
// the operation, the status and what to do. Every call is bounded by CallTimeout.
func (b *Backend) get(ctx context.Context, op string, segments []string, q url.Values, out any) (apiPage, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.endpoint(segments, q), nil)
	if err != nil {
		return apiPage{}, fmt.Errorf("%w: %s: %v", backend.ErrInvalidInput, op, err)
	}
	req.Header.Set("Authorization", "Bearer "+b.cfg.Token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "mcp-server-errors")
	resp, err := b.hc.Do(req)
	attempts := upstream.Attempts(resp, err)
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	b.logger.Debug("sentry request", "op", op, "path", "/api/0/"+strings.Join(segments, "/")+"/", "status", status, "attempts", attempts)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return apiPage{}, fmt.Errorf("%w: %s: Sentry did not answer within the %s deadline (%s); try again, or narrow the request", backend.ErrUnavailable, op, b.cfg.CallTimeout, plural(attempts, "attempt"))
		case errors.Is(err, upstream.ErrTooLarge):
			return apiPage{}, fmt.Errorf("%w: %s: Sentry's answer is over %d MiB; narrow the request (a smaller limit or a narrower query)", backend.ErrUnavailable, op, sentryMaxResponse>>20)
		}
		e := upstream.NetworkError("Sentry", "SENTRY_URL ("+b.base.String()+")", err)
		e.Op = op
		return apiPage{}, fmt.Errorf("%w: %w", backend.ErrUnavailable, e)
	}
	body, _ := io.ReadAll(resp.Body) // already in memory: the policy reads it within the attempt
	resp.Body.Close()
	header := resp.Header
	fault := &upstream.Error{Upstream: "Sentry", Op: op, Status: status, Attempts: attempts}
	switch {
	case status >= 200 && status < 300:
		if upstream.IsHTML(header) {
			e := upstream.HTMLPage("Sentry", status, "JSON", "SENTRY_URL ("+b.base.String()+")")
			e.Op, e.Attempts = op, attempts
			return apiPage{}, fmt.Errorf("%w: %w", backend.ErrUnavailable, e)
		}
		if err := json.Unmarshal(body, out); err != nil {
			fault.Problem, fault.Detail, fault.Err = "sent an answer that is not the JSON expected", fmt.Sprintf("%d bytes, %v", len(body), err), err
			fault.Next = "try again; if it keeps happening, check that SENTRY_URL (" + b.base.String() + ") is the Sentry server and not a proxy or a web page"
			return apiPage{}, fmt.Errorf("%w: %w", backend.ErrUnavailable, fault)
		}
		return apiPage{NextCursor: nextCursor(header.Values("Link"))}, nil
	case status == http.StatusTooManyRequests:
		wait, ok := upstream.RetryAfter(header, time.Now())
		if !ok {
			return apiPage{}, fmt.Errorf("%w: Sentry's rate limit refused %s (429, %s): retry in a minute, with fewer requests", backend.ErrRateLimited, op, plural(attempts, "attempt"))
		}
		at := time.Now().Add(wait)
		return apiPage{}, fmt.Errorf("%w: Sentry's rate limit refused %s (429, %s): retry after %s (in %s)", backend.ErrRateLimited, op, plural(attempts, "attempt"), at.UTC().Format(time.RFC3339), wait.Round(time.Minute))
	case status == http.StatusUnauthorized:
		return apiPage{}, fmt.Errorf("%w: Sentry refused the token (401 Unauthorized) for %s: check SENTRY_AUTH_TOKEN; it must be a valid auth token with the scopes %s", backend.ErrConfig, op, SentryScopes)
	case status == http.StatusForbidden:
		return apiPage{}, fmt.Errorf("%w: Sentry refused %s (403 Forbidden)%s: the token in SENTRY_AUTH_TOKEN lacks access; it needs the scopes %s and membership in the organization", backend.ErrConfig, op, detailSuffix(body), SentryScopes)
	case status == http.StatusNotFound:
		return apiPage{}, fmt.Errorf("%w: Sentry has no such resource for %s (404)%s", backend.ErrNotFound, op, detailSuffix(body))
	case status == http.StatusBadRequest:
		return apiPage{}, fmt.Errorf("%w: Sentry rejected %s (400)%s", backend.ErrInvalidInput, op, detailSuffix(body))
	case status >= 300 && status < 400:
		return apiPage{}, fmt.Errorf("%w: Sentry redirected %s (%d) to %s: set SENTRY_URL to the host it redirects to", backend.ErrConfig, op, status, redirectHost(header.Get("Location")))
	}
	fault.Detail = strings.TrimPrefix(detailSuffix(body), ": ")
	fault.Unexpected(header, "SENTRY_URL ("+b.base.String()+")")
	return apiPage{}, fmt.Errorf("%w: %w", backend.ErrUnavailable, fault)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// sentryClient is hc with the shared retry policy (pkg/mcpkit/upstream) around its
// transport, each attempt bounded by AttemptTimeout and reading the whole body (so a
// Body cut short is a failed attempt), and redirects never followed: a redirect could
// carry the bearer token to another host or over plain http, so a 3xx is reported
// with the host to configure instead.
func sentryClient(hc *http.Client, cfg Config) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Transport = upstream.Policy{
		Attempts:       cfg.MaxAttempts,
		MaxRetryAfter:  cfg.MaxRetryWait,
		AttemptTimeout: cfg.AttemptTimeout,
		BufferLimit:    sentryMaxResponse,
	}.Transport(hc.Transport)
	return &c
}

// endpoint builds base + api/0/ + segments + "/" + ?q. Segments are validated ids, and
// are escaped anyway.
func (b *Backend) endpoint(segments []string, q url.Values) string {
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

// detailSuffix renders Sentry's {"detail": "..."} (untrusted, so cleaned and short).
func detailSuffix(body []byte) string {
	var d struct {
		Detail any `json:"detail"`
	}
	if json.Unmarshal(body, &d) != nil || d.Detail == nil {
		return ""
	}
	if s, ok := d.Detail.(string); ok {
		return ": " + (&backend.Viewer{}).Text(s, 300)
	}
	return ": " + (&backend.Viewer{}).JSONText(d.Detail, 300) // an object or a list: as JSON text
}

func redirectHost(loc string) string {
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" {
		return "another location"
	}
	return u.Scheme + "://" + u.Host
}
