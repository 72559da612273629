package sentryapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// Sentry backend defaults.
const (
	DefaultSentryURL      = "https://sentry.io/"
	DefaultCallTimeout    = 45 * time.Second
	DefaultAttemptTimeout = 20 * time.Second
	DefaultMaxAttempts    = upstream.DefaultAttempts      // the shared policy's, as for GitHub
	DefaultMaxRetryWait   = upstream.DefaultMaxRetryAfter // the shared policy's, as for GitHub
	sentryMaxResponse     = 16 << 20
	// SentryScopes are the token scopes the read-only tools need.
	SentryScopes = "org:read, project:read and event:read"
)

// Config configures the Sentry REST API backend.
type Config struct {
	// BaseURL is sentry.io, a regional host (https://us.sentry.io, https://de.sentry.io)
	// or a self-hosted server, with any path prefix it is served under
	// (https://sentry.example.com/sentry/). Plain http is accepted only for loopback
	// hosts. Empty: DefaultSentryURL.
	BaseURL string
	// Token is the auth token (SENTRY_AUTH_TOKEN), sent as a bearer token. Required.
	// It is never logged nor put in an error message.
	Token string
	// Organization is the default organization slug (SENTRY_ORG). When empty and the
	// token sees exactly one organization, that one is used.
	Organization string
	// HTTPClient is used for every request. nil: a client with sane dial and TLS timeouts.
	HTTPClient *http.Client
	// CallTimeout bounds one backend call, retries and waits included.
	CallTimeout time.Duration
	// AttemptTimeout bounds one HTTP attempt; an attempt that runs out is retried while
	// the call's deadline allows.
	AttemptTimeout time.Duration
	// MaxAttempts bounds the requests per read, the first included (the shared retry
	// policy of pkg/mcpkit/upstream: transport failures, attempt timeouts, 429 and
	// 500/502/503/504 are retried with backoff). 0: DefaultMaxAttempts.
	MaxAttempts int
	// MaxRetryWait is the longest Retry-After this backend sleeps through; longer ones
	// are reported to the caller with the time to retry.
	MaxRetryWait time.Duration
	// Logger receives one debug line per request (path, status and attempts; never the
	// token).
	Logger *slog.Logger
	// Now is the clock the timeline is read against. nil: time.Now.
	Now func() time.Time
}

// parseSentryBaseURL validates a Sentry base URL and normalises it to end in "/"
// without "/api/0".
func parseSentryBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = DefaultSentryURL
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: SENTRY_URL %q is not a URL: %v", backend.ErrConfig, raw, err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: SENTRY_URL must not contain credentials: put the token in SENTRY_AUTH_TOKEN", backend.ErrConfig)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: SENTRY_URL %q has no host: use https://sentry.io, a regional host such as https://us.sentry.io or your server's URL", backend.ErrConfig, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: SENTRY_URL %q must not have a query or fragment", backend.ErrConfig, raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !mcpkit.IsLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("%w: SENTRY_URL %q uses plain http, which would send the token unencrypted: use https (http is accepted only for loopback hosts such as 127.0.0.1, ::1 and localhost)", backend.ErrConfig, raw)
		}
	default:
		return nil, fmt.Errorf("%w: SENTRY_URL %q must use https", backend.ErrConfig, raw)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/api/0")
	u.Path, u.RawPath = p+"/", ""
	return u, nil
}

// checkToken refuses tokens that cannot be a header value, without echoing them.
func checkToken(tok string) error {
	if tok == "" {
		return fmt.Errorf("%w: SENTRY_AUTH_TOKEN is empty: create a token with the scopes %s in Sentry (Settings > Auth Tokens) and set it", backend.ErrConfig, SentryScopes)
	}
	for _, r := range tok {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("%w: SENTRY_AUTH_TOKEN contains whitespace or control characters: copy the token again", backend.ErrConfig)
		}
	}
	return nil
}

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = DefaultAttemptTimeout
	t.MaxIdleConnsPerHost = 8
	return &http.Client{Transport: t}
}
