package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// apiError is what operations return for a failed GitHub call: a message that says
// what failed and what to do, with the token scrubbed, wrapping the cause for
// errors.Is/As.
type apiError struct {
	msg   string
	cause error
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.cause }

// fail turns an error from go-github or the transports into a message a model can act
// on. what names the operation and its target, e.g. "get issue octo/hello#3".
func (b *Backend) fail(err error, what string) error {
	if err == nil {
		return nil
	}
	var msg string
	var (
		rl    *RateLimitError
		ghRL  *gh.RateLimitError
		ghAb  *gh.AbuseRateLimitError
		na    *NotAllowedError
		er    *gh.ErrorResponse
		acc   *gh.AcceptedError
		urlEr *url.Error
		up    *upstream.Error
		syn   *json.SyntaxError
		typ   *json.UnmarshalTypeError
	)
	host := "GITHUB_HOST (" + b.endpoint.BaseURL + ")"
	switch {
	case errors.As(err, &rl):
		msg = fmt.Sprintf("%s: %v", what, rl)
	case errors.As(err, &ghRL):
		// go-github refuses locally after a response that used the last request.
		msg = fmt.Sprintf("%s: %v", what, &RateLimitError{Resource: "core", Limit: ghRL.Rate.Limit, Reset: ghRL.Rate.Reset.Time, Local: true})
	case errors.As(err, &ghAb):
		e := &RateLimitError{Secondary: true, Resource: "core", Local: true}
		if ghAb.RetryAfter != nil {
			e.Reset = timeNow().Add(*ghAb.RetryAfter)
		}
		msg = fmt.Sprintf("%s: %v", what, e)
	case errors.As(err, &na):
		return na
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("%s: GitHub did not answer within %s (the per-call timeout); try again or narrow the request", what, b.timeout)
	case errors.Is(err, context.Canceled):
		msg = fmt.Sprintf("%s: cancelled", what)
	case errors.As(err, &up):
		// From the transports: an HTML page instead of data, or an answer that did not
		// decode even when asked for again.
		e := *up
		e.Op, e.Attempts = what, max(e.Attempts, upstream.Attempts(nil, err))
		msg = e.Error()
	case errors.As(err, &acc):
		msg = fmt.Sprintf("%s: GitHub is still preparing this data (202 Accepted); try again in a few seconds", what)
	case errors.As(err, &er) && er.Response != nil:
		msg = describeStatus(what, er)
	case errors.Is(err, gh.ErrPathForbidden):
		msg = fmt.Sprintf("%s: the path must not contain \"..\"", what)
	case errors.As(err, &urlEr), errors.Is(err, io.ErrUnexpectedEOF):
		// No usable answer, after the retry policy ran out; or a body too large for the
		// cache's completeness check that was cut short while being read.
		e := upstream.NetworkError("GitHub", host, err)
		e.Op = what
		msg = e.Error()
	case errors.As(err, &syn), errors.As(err, &typ):
		e := &upstream.Error{Upstream: "GitHub", Op: what, Problem: "sent an answer that is not the JSON expected",
			Detail: err.Error(), Err: err,
			Next: "try again; if it keeps happening, check that " + host + " is the API's address and whether a proxy alters answers"}
		msg = e.Error()
	default:
		msg = fmt.Sprintf("%s: %v", what, err)
	}
	return &apiError{msg: b.redact(msg), cause: err}
}

func describeStatus(what string, er *gh.ErrorResponse) string {
	status := er.Response.StatusCode
	detail, _ := mcpkit.CleanText(er.Message, 300)
	for _, e := range er.Errors {
		part := e.Message
		if part == "" {
			part = strings.TrimSpace(e.Code + " " + e.Field)
		}
		if part != "" {
			p, _ := mcpkit.CleanText(part, 200)
			detail += "; " + p
		}
	}
	switch status {
	case 401:
		return fmt.Sprintf("%s: GitHub rejected the token (401 %s); check that GITHUB_TOKEN is set, valid and not expired", what, detail)
	case 403:
		return fmt.Sprintf("%s: forbidden (403 %s) by GitHub; the token lacks a permission or scope this needs, or the resource is blocked", what, detail)
	case 404:
		return fmt.Sprintf("%s: not found (404) on GitHub; check the owner, repository, number, path or ref (private repositories also answer 404 when the token cannot see them)", what)
	case 406:
		return fmt.Sprintf("%s: GitHub cannot produce this representation (406 %s); for a diff too large to render, list the changed files instead", what, detail)
	case 409:
		return fmt.Sprintf("%s: conflict (409 %s) on GitHub; read the current state (for a file, its sha) and try again", what, detail)
	case 422:
		return fmt.Sprintf("%s: GitHub refused the input (422 %s); check the arguments", what, detail)
	}
	// The rest come through the retry policy: 5xx and 429 were retried already.
	e := &upstream.Error{Upstream: "GitHub", Op: what, Status: status, Attempts: upstream.Attempts(er.Response, nil), Detail: detail, Err: er}
	switch {
	case status == 429:
		e.Problem, e.Next = "is limiting requests", "wait a minute, then make fewer or narrower requests"
	case status < 500 && upstream.IsHTML(er.Response.Header):
		e.Problem, e.Detail = "answered with an HTML page instead of JSON", ""
		e.Next = "a proxy or a login page is likely answering in GitHub's place: check HTTPS_PROXY, NO_PROXY and GITHUB_HOST"
	default:
		e.Unexpected(er.Response.Header, "GITHUB_HOST")
	}
	return e.Error()
}

// redact removes the token from any text that leaves the backend, whatever path it
// took to get there.
func (b *Backend) redact(s string) string {
	if b.token == "" {
		return s
	}
	return strings.ReplaceAll(s, b.token, "[REDACTED]")
}
