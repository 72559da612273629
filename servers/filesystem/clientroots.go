package filesystem

import (
	"context"
	"fmt"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// access decides which directories one request may touch: the server's roots, narrowed
// by the client's roots where the client offers them.
//
// Client roots are honoured on legacy (2025) sessions only. There the client declares
// the roots capability once at initialize, mcpkit asks roots/list once and caches the
// answer for the session until notifications/roots/list_changed, so narrowing costs a
// round trip per roots change, not per call. Revision 2026-07-28 deprecates roots and
// has no session to cache them in: asking would cost an input_required round trip on
// every call, so 2026-07-28 requests get the server's directories as configured.
//
// Narrowing never widens: a client root inside a server root becomes the allowed
// directory, a client root containing a server root keeps that server root, and a
// client root elsewhere is ignored. When the client names roots and none of them meets
// a server root, the request is refused rather than falling back to the server's
// directories. A client that declares the capability but lists no roots at all offers
// none (the Go SDK client does this by default), so the server's roots apply.
type access struct {
	roots *Roots
}

// rootsFor returns the roots a request may use and a function that releases them.
func (a *access) rootsFor(ctx context.Context, req *mcpkit.Request) (*Roots, func(), error) {
	if req == nil || req.Modern() || !req.Meta.ClientCapabilities.HasRoots() {
		return a.roots, func() {}, nil
	}
	list, err := req.ListRoots(ctx, "roots")
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("the client declared the roots capability but roots/list failed (%v); refusing rather than guessing which directories the client allows", err)
	}
	if len(list) == 0 {
		return a.roots, func() {}, nil
	}
	uris := make([]string, len(list))
	for i, r := range list {
		uris[i] = r.URI
	}
	narrowed, err := a.roots.Narrow(uris)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; the client's roots decide what this session may touch: start the client in one of the server's directories (or add a root inside one), or start the server with a directory inside the client's roots", err)
	}
	return narrowed, func() { narrowed.Close() }, nil
}

// withRoots wraps a file-layer operation as a typed tool handler that runs it on the
// request's roots.
func withRoots[In, Out any](a *access, op func(*Roots, context.Context, In) (Out, error)) mcpkit.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcpkit.Request, in In) (Out, error) {
		ctx = mcpkit.WithProgress(ctx, req, 0) // the walks report progress through it
		rs, release, err := a.rootsFor(ctx, req)
		if err != nil {
			var zero Out
			return zero, err
		}
		defer release()
		return op(rs, ctx, in)
	}
}

// withConfirm is withRoots for a write that confirms what it destroys: op gets
// req.Confirm (the one confirmation of every server here) as its confirmFunc.
func withConfirm[In, Out any](a *access, op func(*Roots, context.Context, In, confirmFunc) (Out, error)) mcpkit.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcpkit.Request, in In) (Out, error) {
		confirm := func(message string, bind ...string) error { return req.Confirm(ctx, "confirm", message, bind...) }
		return withRoots(a, func(rs *Roots, ctx context.Context, in In) (Out, error) { return op(rs, ctx, in, confirm) })(ctx, req, in)
	}
}
