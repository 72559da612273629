package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// A small typed GraphQL client, for what REST cannot answer (blame, review threads).
// Each query is a constant string in the file of the tool that sends it, decoded into
// a Go struct of just the fields it asks for. It rides the REST client's HTTP stack
// (token only to the API origin, the shared retry policy — queries are marked
// idempotent, mutations are sent once —, GitHub's rate limits, the HTML-page check),
// and its failures go through Backend.fail, so a GraphQL tool fails, waits and
// reports exactly as a REST one. shurcooL/githubv4 was weighed and not taken: see
// the README's GraphQL section.

// maxGraphQLBytes bounds a GraphQL answer read into memory; the queries here ask for
// bounded connections (first: N), so a larger answer is an error, not data.
const maxGraphQLBytes = 8 << 20

// graphQLURL is where GraphQL lives for an endpoint: https://api.github.com/graphql,
// https://api.NAME.ghe.com/graphql, and https://HOST/api/graphql on Enterprise Server
// (whose REST root is /api/v3/).
func graphQLURL(ep Endpoint) string {
	if base, ok := strings.CutSuffix(ep.BaseURL, "/api/v3/"); ok {
		return base + "/api/graphql"
	}
	return ep.BaseURL + "graphql"
}

// graphQLError is one entry of a GraphQL answer's errors.
type graphQLError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// graphQL sends query with vars and decodes the answer's data into out. what names
// the operation for messages, as in Backend.fail. mutation says the query writes:
// then it is sent once, never retried.
func (b *Backend) graphQL(ctx context.Context, what, query string, vars map[string]any, out any, mutation bool) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	if !mutation {
		ctx = upstream.WithIdempotent(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, graphQLURL(b.endpoint), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", b.gh.UserAgent)
	resp, err := b.gh.Client().Do(req)
	if err != nil {
		return b.fail(err, what)
	}
	defer resp.Body.Close()
	if err := gh.CheckResponse(resp); err != nil {
		return b.fail(err, what)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLBytes+1))
	if err != nil {
		return b.fail(err, what)
	}
	if len(raw) > maxGraphQLBytes {
		return b.fail(fmt.Errorf("the answer is larger than %d MiB; narrow the request", maxGraphQLBytes>>20), what)
	}
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []graphQLError  `json:"errors"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return b.fail(err, what)
	}
	if len(env.Errors) > 0 {
		return b.graphQLFailure(resp, env.Errors, what)
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return b.fail(errors.New("GitHub's GraphQL answer has no data"), what)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return b.fail(err, what)
	}
	return nil
}

// graphQLFailure turns a GraphQL answer's errors (sent with status 200) into the
// message the same failure gets over REST: not found, forbidden, rate limited (which
// also stops further GraphQL requests until the reset, as a REST limit does), or
// refused input.
func (b *Backend) graphQLFailure(resp *http.Response, errs []graphQLError, what string) error {
	msg, _ := mcpkit.CleanText(errs[0].Message, 300)
	switch errs[0].Type {
	case "RATE_LIMITED":
		rl := &RateLimitError{Resource: "graphql"}
		rl.Limit, _ = strconv.Atoi(resp.Header.Get("X-RateLimit-Limit"))
		rl.Reset = timeNow().Add(secondaryDefaultWait)
		if secs, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			rl.Reset = time.Unix(secs, 0)
		}
		b.rl.block(rl)
		return b.fail(rl, what)
	case "NOT_FOUND":
		return &apiError{msg: b.redact(fmt.Sprintf("%s: not found on GitHub (%s); check the owner, repository, number, path or ref (private repositories also answer so when the token cannot see them)", what, msg))}
	case "FORBIDDEN", "INSUFFICIENT_SCOPES":
		return &apiError{msg: b.redact(fmt.Sprintf("%s: forbidden by GitHub (%s); the token lacks a permission or scope this needs", what, msg))}
	}
	return &apiError{msg: b.redact(fmt.Sprintf("%s: GitHub refused the query (%s); check the arguments", what, msg))}
}

// asErrorResponse is errors.As for go-github's *ErrorResponse with a response.
func asErrorResponse(err error, er **gh.ErrorResponse) bool {
	return errors.As(err, er) && (*er).Response != nil
}
