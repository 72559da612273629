package mcpkit

// ErrorReporter receives what operators need to hear about: handler panics and
// internal errors (errors that are not protocol errors and answer -32603). Tool
// errors (isError results) are the tool's normal answers and are not reported.
// Package sentryreport implements it for Sentry.
type ErrorReporter interface {
	ReportPanic(req *Request, value any, stack []byte)
	ReportError(req *Request, err error)
}
