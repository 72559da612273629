package mcpkit

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Outcomes of a request as observers (and the audit line) report them.
const (
	OutcomeOK            = "ok"             // a result
	OutcomeToolError     = "isError"        // a tool result with isError: the tool failed, the protocol did not
	OutcomeError         = "error"          // a JSON-RPC error
	OutcomeCancelled     = "cancelled"      // the client went away or cancelled; nothing was sent
	OutcomeInputRequired = "input_required" // the server asked the client for input (multi round trip)
)

// Response is what the server answered one request, as an [Observer] sees it.
type Response struct {
	// Outcome is one of the Outcome constants.
	Outcome string
	// Bytes is the size of the encoded response; 0 when nothing was sent.
	Bytes int
	// Code is the JSON-RPC error code of an error response, else 0.
	Code int
	// Duration runs from the request reaching the handler chain to its answer being
	// encoded.
	Duration time.Duration
}

// Observer is told of every answered request that reached the handler chain (one the
// server prepared and the transport let through), after its response is encoded and
// before it is written. Observers are for audit logs ([Audit]), metrics and traces:
// they run on the request's goroutine and must not block. Requests refused before that
// (a malformed message, an unknown method, a failed header or scope check) are not
// observed: no handler ran for them.
type Observer func(ctx context.Context, req *Request, resp Response)

// Observe adds observers, told in the order they were added.
func (s *Server) Observe(o ...Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []Observer
	if cur := s.observers.Load(); cur != nil {
		all = slices.Clone(*cur)
	}
	all = append(all, o...)
	s.observers.Store(&all)
}

// outcomeOf classifies what the handler chain returned.
func outcomeOf(ctx context.Context, res any, err error) string {
	switch {
	case err == nil:
		if r, ok := res.(*CallToolResult); ok && r.IsError {
			return OutcomeToolError
		}
		return OutcomeOK
	case errors.Is(err, ErrInputRequired):
		return OutcomeInputRequired
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return OutcomeCancelled
	}
	return OutcomeError
}
