package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Principal is who a verified access token speaks for.
type Principal struct {
	// Subject identifies the caller (the token's sub, or a static token's name)
	// within its Issuer's namespace. It is logged in audit lines.
	Subject string
	// Issuer names who vouched for Subject, the namespace Subject is unique in: a
	// JWT's iss (the issuer URL), or [StaticIssuer] for static tokens. The static
	// token "alice" and a JWT whose sub is "alice" are different callers: mcpkit
	// binds multi-round-trip state and legacy sessions, and keys per-caller limits,
	// by the pair (Issuer, Subject). A verifier of one's own should set it; its
	// subjects otherwise share the empty namespace.
	Issuer string
	// Scopes are the OAuth scopes the token grants.
	Scopes []string
	// Expiry is when the token stops being valid; zero for tokens that do not expire.
	Expiry time.Time
}

// StaticIssuer is the [Principal].Issuer of static tokens ([StaticTokens]). It is
// not a URL, so it can never equal a JWT issuer.
const StaticIssuer = "static"

// Verifier verifies a bearer access token taken from the Authorization header. An
// [Authenticator] calls it on every HTTP request (there is no session to remember a
// token by). An error that wraps [ErrUnavailable] answers 503; any other error
// answers 401 invalid_token with the error's message as error_description, so a
// verifier's errors must never contain the token itself.
type Verifier interface {
	Verify(ctx context.Context, token string) (*Principal, error)
}

// VerifierFunc adapts a function to [Verifier].
type VerifierFunc func(ctx context.Context, token string) (*Principal, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*Principal, error) {
	return f(ctx, token)
}

var (
	// ErrInvalidToken is wrapped by verifiers' errors for a token that is not valid.
	ErrInvalidToken = errors.New("invalid access token")
	// ErrTokenUnrecognized is wrapped by a verifier's error for a token that is not of
	// its kind (not a JWT, not a known static token), so that [Verifiers] can ask the
	// next verifier. It also wraps [ErrInvalidToken].
	ErrTokenUnrecognized = fmt.Errorf("%w: not recognized", ErrInvalidToken)
	// ErrUnavailable is wrapped by a verifier's error when it cannot decide now
	// (the issuer's keys cannot be fetched): the request gets 503, not 401, so the
	// client retries instead of discarding a good token.
	ErrUnavailable = errors.New("authorization temporarily unavailable")
)

// Verifiers combines verifiers: a token is accepted by the first that accepts it.
// A verifier that does not recognize the token ([ErrTokenUnrecognized]) passes it on;
// the first other failure is the answer, so a JWT with a bad signature is reported
// as such rather than as "unknown static token".
func Verifiers(list ...Verifier) Verifier {
	list = slices.DeleteFunc(slices.Clone(list), func(v Verifier) bool { return v == nil })
	if len(list) == 1 {
		return list[0]
	}
	return VerifierFunc(func(ctx context.Context, token string) (*Principal, error) {
		var first error
		for _, v := range list {
			p, err := v.Verify(ctx, token)
			if err == nil {
				return p, nil
			}
			if !errors.Is(err, ErrTokenUnrecognized) && first == nil {
				first = err
			}
		}
		if first != nil {
			return nil, first
		}
		return nil, fmt.Errorf("%w: the token is not recognized by any configured verifier", ErrTokenUnrecognized)
	})
}
