// Package upstream is how the servers of this repository talk to the HTTP APIs they
// front (GitHub, Sentry, ...): one retry policy for idempotent reads, and one error
// shape that names the upstream, the operation, the HTTP status and the next step.
//
// The policy, in full (Policy, Transport):
//
//   - Only GET and HEAD requests are retried; anything else is sent once.
//   - At most Attempts requests in all (default 3).
//   - A retry follows a transport failure before a complete answer (connection refused
//     or reset, EOF, an attempt timeout; with BufferLimit, an answer whose body is cut
//     short) or an answer of 429, 500, 502, 503 or 504.
//   - The wait before retry n is Backoff·2^(n-1) (default 200 ms), capped at MaxBackoff
//     (default 2 s) and jittered into its upper half. An answer's Retry-After, in
//     seconds or as an HTTP date, replaces it, up to MaxRetryAfter (default 10 s): a
//     longer one ends the retries and the answer goes back to the caller, which reports
//     when to try again.
//   - No wait runs past the request context's deadline (the last answer is returned
//     instead), and cancelling the context stops at once.
//
// A response that took more than one attempt carries AttemptsHeader; an error that
// ends the retries wraps the last failure and remembers the count (see Attempts).
//
// Error is the message a tool shows when an upstream call fails; NetworkError and
// HTMLPage build it for the two failures every server meets (no usable answer; a web
// page where API data was expected, which means a proxy or a login page answered).
package upstream

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Policy defaults. Both servers use them unless an operator overrides a knob.
const (
	DefaultAttempts      = 3
	DefaultBackoff       = 200 * time.Millisecond
	DefaultMaxBackoff    = 2 * time.Second
	DefaultMaxRetryAfter = 10 * time.Second
)

// AttemptsHeader is set on a response that took more than one attempt, to their
// number, so the caller's error message can say how hard it tried.
const AttemptsHeader = "X-Mcpkit-Attempts"

// ErrTooLarge is wrapped by the error for an answer longer than Policy.BufferLimit.
var ErrTooLarge = errors.New("upstream answer too large")

// Policy is the retry policy. The zero value is the default policy.
type Policy struct {
	// Attempts bounds the requests sent for one call, the first included. 0: 3.
	Attempts int
	// Backoff is the wait before the first retry; it doubles for each later one. 0: 200ms.
	Backoff time.Duration
	// MaxBackoff caps one backoff wait. 0: 2s.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a longer one ends the retries
	// and the answer is returned. 0: 10s.
	MaxRetryAfter time.Duration
	// AttemptTimeout bounds one attempt, reading the body included; an attempt that
	// runs out is retried while the request's own deadline allows. 0: no bound.
	AttemptTimeout time.Duration
	// BufferLimit, when positive, makes each attempt read its whole body (at most this
	// many bytes) before it counts as answered, so a body cut short is a failed attempt
	// that is retried, and a longer one fails with ErrTooLarge. The response handed
	// back then reads from memory.
	BufferLimit int64
	// Sleep waits d or until ctx ends. nil: a timer. Tests record the waits here.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock Retry-After dates are read against. nil: time.Now.
	Now func() time.Time
}

func (p Policy) attempts() int {
	if p.Attempts > 0 {
		return p.Attempts
	}
	return DefaultAttempts
}

func (p Policy) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter > 0 {
		return p.MaxRetryAfter
	}
	return DefaultMaxRetryAfter
}

func (p Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or returns ctx's error if it ends first: the wait every retry layer
// in front of an upstream needs (Policy's own, a server's rate-limit waits).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoffFor is the wait before retry n (1 for the first retry), before jitter.
func (p Policy) backoffFor(n int) time.Duration {
	base, maxB := p.Backoff, p.MaxBackoff
	if base <= 0 {
		base = DefaultBackoff
	}
	if maxB <= 0 {
		maxB = DefaultMaxBackoff
	}
	d := base
	for i := 1; i < n && d < maxB; i++ {
		d *= 2
	}
	return min(d, maxB)
}

// jittered spreads d over [d/2, d] so clients that failed together do not retry
// together, while a wait never shrinks below half the backoff.
func jittered(d time.Duration) time.Duration {
	if d < 2 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// Transport wraps next with this policy.
func (p Policy) Transport(next http.RoundTripper) *Transport {
	if next == nil {
		next = http.DefaultTransport
	}
	return &Transport{Policy: p, Next: next}
}

// Transport is an http.RoundTripper that applies a Policy. Change Policy only before
// the first request.
type Transport struct {
	Policy Policy
	Next   http.RoundTripper
}

// RoundTrip sends req, retrying as the policy says.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.Policy
	if !Idempotent(req) {
		return t.attempt(req, p)
	}
	ctx := req.Context()
	limit := p.attempts()
	for n := 1; ; n++ {
		send := req
		if n > 1 {
			send = req.Clone(ctx)
			if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
				b, err := req.GetBody()
				if err != nil {
					return nil, &attemptsError{n: n - 1, err: err}
				}
				send.Body = b
			}
		}
		resp, err := t.attempt(send, p)
		if err != nil && ctx.Err() != nil {
			return nil, &attemptsError{n: n, err: err}
		}
		var wait time.Duration
		switch {
		case err != nil:
			if n >= limit || !Transient(err) {
				return nil, &attemptsError{n: n, err: err}
			}
			wait = jittered(p.backoffFor(n))
		case RetryableStatus(resp.StatusCode):
			if n >= limit {
				return marked(resp, n), nil
			}
			if d, ok := RetryAfter(resp.Header, p.now()); ok {
				if d > p.maxRetryAfter() {
					return marked(resp, n), nil
				}
				wait = d
			} else {
				wait = jittered(p.backoffFor(n))
			}
		default:
			return marked(resp, n), nil
		}
		if dl, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(dl) {
			if err != nil {
				return nil, &attemptsError{n: n, err: err}
			}
			return marked(resp, n), nil
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if serr := p.sleep(ctx, wait); serr != nil {
			return nil, &attemptsError{n: n, err: serr}
		}
	}
}

// attempt sends one request under the attempt timeout and, with BufferLimit, reads
// its body within that attempt.
func (t *Transport) attempt(req *http.Request, p Policy) (*http.Response, error) {
	if p.AttemptTimeout <= 0 {
		return t.send(req, p)
	}
	ctx, cancel := context.WithTimeout(req.Context(), p.AttemptTimeout)
	resp, err := t.send(req.WithContext(ctx), p)
	if err != nil || p.BufferLimit > 0 {
		cancel()
		return resp, err
	}
	// The timeout covers reading the body too; closing it ends the attempt.
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

func (t *Transport) send(req *http.Request, p Policy) (*http.Response, error) {
	resp, err := t.Next.RoundTrip(req)
	if err != nil || p.BufferLimit <= 0 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.BufferLimit+1))
	resp.Body.Close()
	if err != nil {
		return nil, &BodyError{Status: resp.StatusCode, Read: len(body), Err: err}
	}
	if int64(len(body)) > p.BufferLimit {
		return nil, fmt.Errorf("%w: the answer is longer than %d bytes", ErrTooLarge, p.BufferLimit)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func marked(resp *http.Response, n int) *http.Response {
	if n > 1 {
		if resp.Header == nil {
			resp.Header = http.Header{}
		}
		resp.Header.Set(AttemptsHeader, strconv.Itoa(n))
	}
	return resp
}

// attemptsError is the last failure of a request, and how many attempts were made.
// Its text is the failure's own.
type attemptsError struct {
	n   int
	err error
}

func (e *attemptsError) Error() string { return e.err.Error() }
func (e *attemptsError) Unwrap() error { return e.err }

// BodyError is an answer whose status and headers arrived but whose body broke off
// (a connection cut, a Content-Length longer than what came, a truncated gzip
// stream). Transient judges it by Err: a cut is worth another attempt.
type BodyError struct {
	Status int   // the answer's HTTP status
	Read   int   // bytes read before the failure
	Err    error // the read error, often io.ErrUnexpectedEOF
}

func (e *BodyError) Error() string {
	return fmt.Sprintf("the body broke off after %d bytes: %v", e.Read, e.Err)
}

func (e *BodyError) Unwrap() error { return e.Err }

// Attempts reports how many requests a call through Transport sent: from the
// response's AttemptsHeader, or from the error that ended the retries. 1 when
// neither says more.
func Attempts(resp *http.Response, err error) int {
	var ae *attemptsError
	if errors.As(err, &ae) {
		return ae.n
	}
	if resp != nil {
		if n, e := strconv.Atoi(resp.Header.Get(AttemptsHeader)); e == nil && n > 1 {
			return n
		}
	}
	return 1
}

// Idempotent reports whether req may be sent again: GET or HEAD, or a request whose
// context is marked with [WithIdempotent], whose body (if any) can be replayed.
func Idempotent(req *http.Request) bool {
	if req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != "" &&
		req.Context().Value(idempotentKey{}) == nil {
		return false
	}
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

type idempotentKey struct{}

// WithIdempotent marks the requests made with ctx as safe to send again although
// their method is POST: a GraphQL query reads and changes nothing, so it gets the
// retry policy of a GET. Never mark a request that writes.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// RetryableStatus reports whether an answer with this status is worth another
// attempt: 429 Too Many Requests and 500, 502, 503, 504.
func RetryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// RetryAfter reads a Retry-After header, in seconds or as an HTTP date, as a wait
// from now (never negative). ok is false when the header is absent or unreadable.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 1e9 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// Transient reports whether a transport error is worth another attempt: a refused,
// reset or aborted connection, an EOF before a complete answer, a timeout. Name
// resolution failures (unless temporary), certificate errors, cancellation and
// everything else are not.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrTooLarge) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	if certError(err) {
		return false
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// proxyError reports whether err came from connecting through an HTTP proxy (the
// dial to the proxy, or its refusal of CONNECT): net/http marks both as a
// *net.OpError with Op "proxyconnect".
func proxyError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "proxyconnect"
}

// proxySet names the proxy variable set in this process's environment, the one
// net/http takes the proxy from (HTTPS_PROXY for the https upstreams here), or "".
func proxySet() string {
	for _, v := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// proxyVariable is proxySet, or HTTPS_PROXY when none is set (a proxy given
// another way).
func proxyVariable() string {
	if v := proxySet(); v != "" {
		return v
	}
	return "HTTPS_PROXY"
}

func certError(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
		ci x509.CertificateInvalidError
		rh tls.RecordHeaderError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) || errors.As(err, &rh)
}

// Error is a failed call to an upstream API, phrased for the person or model who
// must act on it:
//
//	OP: UPSTREAM PROBLEM (HTTP STATUS, after N attempts: DETAIL); NEXT
//
// e.g. "get diff of pull request octo/hello#4: GitHub answered with an HTML page
// (text/html) instead of a diff (HTTP 200 OK); a proxy, captive portal or single
// sign-on page is answering in GitHub's place: ...".
type Error struct {
	// Upstream names the service: "GitHub", "Sentry".
	Upstream string
	// Op is what was asked, with its target: "search issues", "get repository o/r".
	Op string
	// Status is the HTTP status of the last answer; 0 when there was none.
	Status int
	// Attempts is how many requests were sent; shown when more than one.
	Attempts int
	// Problem says what went wrong, as a predicate of Upstream: "had an internal error".
	Problem string
	// Detail is the upstream's own words or the low-level cause, short and cleaned.
	Detail string
	// Next is the step to take: "try again in a few minutes".
	Next string
	// Err is the cause, for errors.Is and errors.As. It is not shown.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Upstream)
	if e.Problem != "" {
		b.WriteString(" ")
		b.WriteString(e.Problem)
	}
	var paren []string
	if e.Status > 0 {
		paren = append(paren, strings.TrimSpace(fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))))
	}
	if e.Attempts > 1 {
		paren = append(paren, fmt.Sprintf("after %d attempts", e.Attempts))
	}
	inner := strings.Join(paren, ", ")
	if e.Detail != "" {
		if inner != "" {
			inner += ": "
		}
		inner += e.Detail
	}
	if inner != "" {
		b.WriteString(" (")
		b.WriteString(inner)
		b.WriteString(")")
	}
	if e.Next != "" {
		b.WriteString("; ")
		b.WriteString(e.Next)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// NetworkError describes a request that got no usable answer from upstream. setting
// names what the operator configures to reach it, e.g. "GITHUB_HOST
// (https://github.example.com)". Op is left for the caller; Attempts is taken from
// err when Transport ended the retries.
func NetworkError(upstream, setting string, err error) *Error {
	e := &Error{Upstream: upstream, Err: err, Attempts: Attempts(nil, err)}
	var be *BodyError
	if errors.As(err, &be) {
		e.Status = be.Status
	}
	// Show the innermost text that still says something: a *url.Error repeats the URL
	// (long, and it may hold search text).
	cause := err
	for {
		if ae, ok := cause.(*attemptsError); ok {
			cause = ae.err
		} else if ue, ok := cause.(*url.Error); ok {
			cause = ue.Err
		} else {
			break
		}
	}
	e.Detail = shorten(cause.Error(), 200)
	retry := "try again in a minute; if it keeps happening, a proxy or firewall between this server and " + upstream + " may be cutting connections"
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, ErrTooLarge):
		e.Problem, e.Next = "sent an answer too large to read", "narrow the request"
	case proxyError(err):
		// The proxy, not upstream, refused or failed: the setting to check is the
		// proxy variable, not the upstream's address.
		v := proxyVariable()
		e.Problem = "could not be reached through the proxy " + v + " names"
		e.Next = "check " + v + " (the proxy refused the connection or could not be reached), or list the host in NO_PROXY to go direct"
	case errors.As(err, &dns):
		e.Problem, e.Next = "could not be found: its host name does not resolve", "check "+setting+" and this machine's DNS"
	case certError(err):
		e.Problem = "presented a certificate this server does not trust"
		e.Next = "check " + setting + "; behind a TLS-inspecting proxy, add its CA to the system trust store (or SSL_CERT_FILE)"
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Problem, e.Next = "refused the connection", "check "+setting+" (host and port) and that the service is up, then try again"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		e.Problem, e.Next = "did not answer in time", "try again, or narrow the request"
	case be != nil || errors.Is(err, io.ErrUnexpectedEOF):
		e.Problem, e.Next = "cut its answer short", retry
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		e.Problem, e.Next = "closed the connection before answering", retry
	case proxySet() != "":
		// A proxy's refusal of CONNECT comes back from net/http as the bare status
		// text ("Forbidden"), unmarked: with a proxy configured it is the first
		// suspect.
		v := proxySet()
		e.Problem = "could not be reached through the proxy " + v + " names"
		e.Next = "check " + v + " (the proxy may refuse this host; list the host in NO_PROXY to go direct), then " + setting
	default:
		e.Problem, e.Next = "could not be reached", "check "+setting+" and the network, then try again"
	}
	return e
}

// IsHTML reports whether a response's Content-Type is a web page (text/html or
// XHTML), which an API endpoint never sends for JSON, diffs or other data.
func IsHTML(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return false
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// HTMLPage is the Error for an API answer that is a web page where expected data
// (e.g. "JSON", "a diff") should be: almost always a proxy, a captive portal or a
// single sign-on page answering in the upstream's place. setting names what the
// operator configures to reach the upstream.
func HTMLPage(upstream string, status int, expected, setting string) *Error {
	return &Error{
		Upstream: upstream,
		Status:   status,
		Problem:  "answered with an HTML page (text/html) instead of " + expected,
		Next: "a proxy, captive portal or single sign-on login page is likely answering in " + upstream +
			"'s place: check HTTPS_PROXY and NO_PROXY, that " + setting + " is the API's address, or sign in to the network, then try again",
	}
}

// Unexpected fills e's Problem and Next for an answer whose status (e.Status) the
// caller has no words of its own for: a server error (the retry policy has run out),
// shown as a proxy's failure when the answer is an HTML page (Detail then says so),
// or anything else, which points at setting (what the operator configures to reach
// the upstream) and any proxy. It returns e.
func (e *Error) Unexpected(h http.Header, setting string) *Error {
	switch {
	case e.Status >= 500 && IsHTML(h):
		e.Problem, e.Detail = "or a proxy in front of it failed", "an HTML error page"
		e.Next = "try again in a few minutes; if it keeps happening, check the proxy between this server and " + e.Upstream
	case e.Status >= 500:
		e.Problem, e.Next = "had an internal error", "try again in a few minutes"
	default:
		e.Problem, e.Next = "gave an answer this server does not expect", "check "+setting+" and any proxy between this server and "+e.Upstream
	}
	return e
}

// shorten cuts s to at most n bytes on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
