package github

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// DefaultTimeout is the per-call deadline when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// BackendConfig is everything the backend needs; main fills it from flags and
// environment. The library itself never reads the environment.
type BackendConfig struct {
	// Token is the GitHub token (see TokenFromEnv). Empty means anonymous access,
	// which GitHub limits to public data and 60 requests per hour.
	Token string
	// Host is GITHUB_HOST / --gh-host: empty for github.com, or a GitHub Enterprise
	// host name or URL (see ParseHost).
	Host string
	// Repos confines every operation to these repositories; nil allows all.
	Repos *AllowList
	// Lockdown hides content written on public repositories by users without push
	// access (bodies, comments, reviews), saying what it hid.
	Lockdown bool
	// Timeout bounds every operation, including its retries. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRetryWait is the longest a call waits for a rate limit or a Retry-After before
	// reporting it. Zero means DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Cache holds conditional-request entries; nil makes a private cache of
	// DefaultCacheBytes. Pass one cache to several backends to share it.
	Cache *HTTPCache
	// Transport is the underlying HTTP transport; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Trace, when set, wraps the API client's stack below the token (retries and
	// rate-limit waits included): OpenTelemetry client spans (otelmcp.HTTPClient.Wrap).
	Trace func(http.RoundTripper) http.RoundTripper
	// UserAgent identifies this server to GitHub; empty means "mcp-server-github".
	UserAgent string
	// Logger receives diagnostics (never tokens); nil means slog.Default().
	Logger *slog.Logger
}

// TokenFromEnv returns GITHUB_TOKEN, or else GITHUB_PERSONAL_ACCESS_TOKEN, using the
// given lookup (os.Getenv in main, a map in tests).
func TokenFromEnv(getenv func(string) string) string {
	for _, name := range []string{"GITHUB_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
	}
	return ""
}

// Backend performs the GitHub operations the MCP tools expose. Every operation checks
// the allow-list before it sends anything, runs under the per-call deadline, and
// returns compact, sanitized, bounded results.
type Backend struct {
	gh       *gh.Client
	endpoint Endpoint
	allow    *AllowList
	timeout  time.Duration
	token    string
	rl       *rateLimitTransport
	retry    *upstream.Transport // the shared retry policy for reads (pkg/mcpkit/upstream)
	cache    *HTTPCache
	download *http.Client // log downloads: never carries the token
	log      *slog.Logger
	lock     *lockdown // nil when lockdown is off
}

// NewBackend builds a Backend. It fails on a bad host or a token that could not be a
// token; it sends no request.
func NewBackend(cfg BackendConfig) (*Backend, error) {
	ep, err := ParseHost(cfg.Host)
	if err != nil {
		return nil, err
	}
	if strings.ContainsFunc(cfg.Token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, fmt.Errorf("the GitHub token contains spaces or control characters; check GITHUB_TOKEN (the value is not shown)")
	}
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	cache := cfg.Cache
	if cache == nil {
		cache = NewHTTPCache(DefaultCacheBytes)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	// Outermost first: the token, then the shared retry policy for reads (transient
	// failures and 5xx), then GitHub's rate limits (which wait out or report 403/429
	// limits and stop sending while limited; the retry layer never retries their
	// refusals), then the cache (which keeps only answers that decoded completely),
	// then the check that an answer is not a proxy's or a login page's HTML.
	policy := upstream.Policy{MaxRetryAfter: cfg.MaxRetryWait}
	rl := newRateLimitTransport(cache.Transport(pageCheck{next: base}), cfg.MaxRetryWait)
	retry := policy.Transport(rl)
	apiURL, err := url.Parse(ep.BaseURL)
	if err != nil {
		return nil, err
	}
	uploadURL, err := url.Parse(ep.UploadURL)
	if err != nil {
		return nil, err
	}
	var traced http.RoundTripper = retry
	if cfg.Trace != nil {
		traced = cfg.Trace(retry)
	}
	auth := &authTransport{next: traced, token: cfg.Token, origins: map[string]bool{
		origin(apiURL): true, origin(uploadURL): true,
	}}
	client := gh.NewClient(&http.Client{Transport: auth})
	client.BaseURL, client.UploadURL = apiURL, uploadURL
	client.UserAgent = cfg.UserAgent
	if client.UserAgent == "" {
		client.UserAgent = "mcp-server-github"
	}
	b := &Backend{
		gh:       client,
		endpoint: ep,
		allow:    cfg.Repos,
		timeout:  timeout,
		token:    cfg.Token,
		rl:       rl,
		retry:    retry,
		cache:    cache,
		log:      logger,
		download: &http.Client{Transport: policy.Transport(base), CheckRedirect: checkDownloadRedirect},
	}
	if cfg.Lockdown {
		b.lock = newLockdown()
	}
	return b, nil
}

// HasToken reports whether a token was configured. The MCP layer refuses calls
// without one (saying which variable to set) but still lists its tools.
func (b *Backend) HasToken() bool { return b.token != "" }

// Endpoint tells where this backend sends requests.
func (b *Backend) Endpoint() Endpoint { return b.endpoint }

// AllowList returns the --repos list in force (nil: all repositories).
func (b *Backend) AllowList() *AllowList { return b.allow }

// CacheStats reports the conditional-request cache's counters.
func (b *Backend) CacheStats() CacheStats { return b.cache.Stats() }

// start is the first line of every operation: it checks the repository against the
// allow-list (before anything is sent) and sets the per-call deadline.
func (b *Backend) start(ctx context.Context, owner, repo string) (context.Context, context.CancelFunc, error) {
	if owner != "" || repo != "" {
		if err := b.allow.check(owner, repo); err != nil {
			return nil, nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	return ctx, cancel, nil
}

// authTransport adds the token only to requests for the configured API origins, so a
// redirect or an absolute URL to another host never receives it.
type authTransport struct {
	next    http.RoundTripper
	token   string
	origins map[string]bool
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token == "" || !t.origins[origin(req.URL)] {
		if req.Header.Get("Authorization") != "" {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
		}
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(req)
}

func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// checkDownloadRedirect lets a log download follow a few redirects, each to https or
// to loopback http only.
func checkDownloadRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return fmt.Errorf("log download redirected more than 3 times")
	}
	return checkDownloadURL(req.URL)
}

func checkDownloadURL(u *url.URL) error {
	if u.Scheme == "https" || u.Scheme == "http" && mcpkit.IsLoopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("log download URL uses %s://%s; only https (or http on loopback) is followed", u.Scheme, u.Hostname())
}
