// Package sentryreport reports what operators need to hear about (handler panics
// and internal errors, the [mcpkit.ErrorReporter] calls) to Sentry with
// github.com/getsentry/sentry-go, without anything a caller sent. It is the only
// package of mcpkit that links sentry-go.
//
// A server's main turns it on for the standard flags of package serve (reporting
// starts when SENTRY_DSN is set) with:
//
//	sf := serve.RegisterFlags(fs)
//	sf.Reporter = sentryreport.FromEnv
package sentryreport

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/getsentry/sentry-go"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Reporter is an [mcpkit.ErrorReporter] that reports panics and internal errors to
// Sentry with github.com/getsentry/sentry-go. Events carry the method, the tool or prompt name
// and the trace id as tags, and nothing a caller sent: BeforeSend removes request
// data, user data, breadcrumbs and threads, and replaces every message that a
// handler wrote with its size (only the Go runtime's own panic messages are kept),
// so that neither tokens, tool arguments nor file contents leave the server.
type Reporter struct {
	hub *sentry.Hub
}

// Options configure [New].
type Options struct {
	// DSN is the Sentry project's DSN (required).
	DSN string
	// Environment and Release tag events (defaults: SENTRY_ENVIRONMENT and
	// SENTRY_RELEASE, as sentry-go reads them).
	Environment, Release string
	// ServerName names this instance (default: the host name).
	ServerName string
}

// New returns a reporter sending to the given DSN. It uses its own
// sentry-go client and hub, so it does not touch sentry-go's global hub, which the
// server's own code may use for something else.
func New(o Options) (*Reporter, error) {
	if o.DSN == "" {
		return nil, errors.New("sentry: a DSN is required")
	}
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn:            o.DSN,
		Environment:    o.Environment,
		Release:        o.Release,
		ServerName:     o.ServerName,
		SendDefaultPII: false,
		MaxBreadcrumbs: -1, // none: breadcrumbs could carry request data
		// The classic transport's Flush waits for every queued event; the newer
		// telemetry buffer can return while an event is still on its way, which
		// loses the report of a crash right before the process exits.
		DisableTelemetryBuffer: true,
		BeforeSend:             scrub,
		// Only what is needed: no source-file context lines read from disk.
		Integrations: func(in []sentry.Integration) []sentry.Integration {
			var out []sentry.Integration
			for _, i := range in {
				if i.Name() != "ContextifyFrames" {
					out = append(out, i)
				}
			}
			return out
		},
	})
	if err != nil {
		return nil, fmt.Errorf("sentry: %w", err)
	}
	return &Reporter{hub: sentry.NewHub(client, sentry.NewScope())}, nil
}

// FromEnv returns a reporter when SENTRY_DSN is set (tagging events with
// SENTRY_ENVIRONMENT, and with SENTRY_RELEASE or else release), and nil, nil when
// it is not: reporting is opt-in. It is the value of serve.Flags.Reporter.
func FromEnv(release string) (mcpkit.ErrorReporter, error) {
	dsn := os.Getenv("SENTRY_DSN")
	if dsn == "" {
		return nil, nil
	}
	if r := os.Getenv("SENTRY_RELEASE"); r != "" {
		release = r
	}
	r, err := New(Options{DSN: dsn, Release: release})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ReportPanic sends a panic with the stack of the goroutine that panicked (it is
// called from the deferred recover, so the panicking frames are still there).
func (r *Reporter) ReportPanic(req *mcpkit.Request, value any, _ []byte) {
	err, ok := value.(error)
	if !ok {
		// As an error, the value gets an exception with the panicking stack; a plain
		// message would have none.
		err = panicValue{value}
	}
	r.hub.WithScope(func(scope *sentry.Scope) {
		r.tag(scope, req)
		scope.SetLevel(sentry.LevelFatal)
		r.hub.Recover(err)
	})
}

// panicValue carries a panic value that is not an error.
type panicValue struct{ v any }

func (p panicValue) Error() string { return fmt.Sprint(p.v) }

// ReportError sends an internal error.
func (r *Reporter) ReportError(req *mcpkit.Request, err error) {
	r.hub.WithScope(func(scope *sentry.Scope) {
		r.tag(scope, req)
		r.hub.CaptureException(err)
	})
}

// Flush waits up to timeout for queued events to be sent; call it before exiting.
func (r *Reporter) Flush(timeout time.Duration) bool { return r.hub.Flush(timeout) }

func (r *Reporter) tag(scope *sentry.Scope, req *mcpkit.Request) {
	if req == nil {
		return
	}
	scope.SetTag("mcp.method", req.Method)
	// Tool and prompt names are the server's own; resource URIs are request data.
	if req.Name != "" && req.Method != "resources/read" {
		scope.SetTag("mcp.name", clip(req.Name))
	}
	if tc, ok := req.Trace(); ok {
		scope.SetTag("trace_id", tc.TraceID)
	}
	if req.Subject != "" {
		scope.SetTag("mcp.authenticated", "true")
	}
}

// allowedContexts are the event contexts that describe the process, not a request.
var allowedContexts = map[string]bool{"os": true, "runtime": true, "device": true, "trace": true}

// scrub is the BeforeSend hook: it keeps what locates a bug (exception
// types, stack frames, the method and tool name tags, the Go runtime's own panic
// messages) and removes what a caller sent or the server read on its behalf.
// Messages of errors and panic values are written by handlers and may quote
// arguments, tokens or file contents, so only their size is kept; operators find
// the full message in the server's own log line, next to the same trace id.
func scrub(e *sentry.Event, hint *sentry.EventHint) *sentry.Event {
	e.Request = nil
	e.User = sentry.User{}
	e.Breadcrumbs = nil
	e.Threads = nil
	for k := range e.Contexts {
		if !allowedContexts[k] {
			delete(e.Contexts, k)
		}
	}
	for k := range e.Tags {
		if !strings.HasPrefix(k, "mcp.") && k != "trace_id" {
			delete(e.Tags, k)
		}
	}
	_, runtimePanic := recovered(hint).(runtime.Error)
	e.Message = redact(e.Message, runtimePanic)
	for i := range e.Exception {
		e.Exception[i].Value = redact(e.Exception[i].Value, runtimePanic)
		if st := e.Exception[i].Stacktrace; st != nil {
			for j := range st.Frames {
				f := &st.Frames[j]
				f.Vars, f.PreContext, f.PostContext, f.ContextLine = nil, nil, nil, ""
			}
		}
	}
	return e
}

func recovered(hint *sentry.EventHint) any {
	if hint == nil {
		return nil
	}
	return hint.RecoveredException
}

// redact keeps the Go runtime's own panic messages ("runtime error: index out of
// range [5] with length 3"), which name no data, and replaces any other message
// with its size.
func redact(msg string, runtimeMessage bool) string {
	if msg == "" {
		return ""
	}
	if runtimeMessage && strings.HasPrefix(msg, "runtime error: ") && !strings.ContainsAny(msg, "\n\"") && len(msg) <= 200 {
		return msg
	}
	return fmt.Sprintf("[redacted: %d bytes; see the server log]", len(msg))
}

// clip bounds a name before it becomes a tag.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
