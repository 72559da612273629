package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// stream is where the messages of one request go: its response, and the
// request-scoped notifications (progress, log) and legacy server-to-client requests
// sent before it. On stdio that is stdout; on HTTP the POST's response.
type stream interface {
	write(msg []byte) error
}

// Request is one client request as a handler sees it.
type Request struct {
	// ID is the JSON-RPC id.
	ID ID
	// Method is the JSON-RPC method.
	Method string
	// Params are the raw params, _meta included.
	Params json.RawMessage
	// Meta is the request's _meta (2026-07-28), or the session's equivalent for legacy
	// revisions: protocol version, client capabilities and info, log level, progress token.
	Meta RequestMeta
	// Subject is the authenticated caller on HTTP with authorization, else empty: a
	// JWT's sub or a static token's subject, as the Issuer that vouched for it names
	// the caller. It is unique only together with Issuer: key anything per caller by
	// both (mcpkit binds requestState, legacy sessions and per-caller limits so).
	Subject string
	// Issuer names who vouched for Subject: the JWT issuer's URL, or "static" for a
	// static token (auth.StaticIssuer); empty without authorization.
	Issuer string
	// Scopes are the caller's granted scopes on HTTP with authorization.
	Scopes []string
	// Name is the tool or prompt name, or the resource URI, of a call (for audit logs).
	Name string
	// Header holds the HTTP request's headers on Streamable HTTP (read it, never
	// change it); nil on stdio.
	Header http.Header

	server *Server
	msg    *message // the message the request came in, for its cached decodings
	sess   *session // the legacy session, nil for a stateless 2026-07-28 request
	out    stream

	mu       sync.Mutex
	progress float64
	done     bool

	// Multi-round-trip state: answers known so far, what the handler asked for now,
	// and the handler's own state carried between rounds.
	inputs   map[string]json.RawMessage
	asked    map[string]InputRequest
	appState []byte
	newState []byte
	// What each confirmation was bound to when it was asked (from the state), and
	// the bindings of the confirmations asked in this round (Confirm).
	bound    map[string]string
	newBound map[string]string

	// spec is the method's entry in the method table, found once by prepare.
	spec methodSpec

	// task is set on a tools/call that may run as a task (see tasks.go).
	task *taskRun
}

// Modern reports whether the request is served under the stateless 2026-07-28
// revision (true) or a legacy handshake revision (false).
func (r *Request) Modern() bool { return r.sess == nil }

// Server returns the server handling the request.
func (r *Request) Server() *Server { return r.server }

func (r *Request) send(msg []byte) error {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done || r.out == nil {
		return nil
	}
	return r.out.write(msg)
}

// finish stops request-scoped notifications: the spec forbids them after the response.
func (r *Request) finish() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}

// Progress reports progress if the client asked for it (a progressToken in _meta).
// Progress must increase; a value not above the last one is raised just above it.
//
// In a call running as a task (Tasks extension), where progress notifications are not
// sent, it sets the task's statusMessage instead: message, or "progress of total".
func (r *Request) Progress(progress, total float64, message string) {
	if t := r.task; t != nil && t.inTask() {
		if message == "" {
			message = fmt.Sprintf("%g", progress)
			if total > 0 {
				message = fmt.Sprintf("%g of %g", progress, total)
			}
		}
		t.setProgress(message)
		return
	}
	if len(r.Meta.ProgressToken) == 0 {
		return
	}
	r.mu.Lock()
	if progress <= r.progress && r.progress != 0 {
		progress = r.progress + 1e-9
	}
	r.progress = progress
	r.mu.Unlock()
	p := map[string]any{"progressToken": r.Meta.ProgressToken, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	_ = r.send(encodeNotification("notifications/progress", p))
}

// Log sends a notifications/message to the client if it asked for messages at this
// level or above (per request in 2026-07-28, logging/setLevel before).
func (r *Request) Log(level, logger string, data any) {
	min := r.Meta.LogLevel
	if r.sess != nil {
		min = r.sess.logLevel()
	}
	if min == "" || levelRank(level) < levelRank(min) {
		return
	}
	p := map[string]any{"level": level, "data": data}
	if logger != "" {
		p["logger"] = logger
	}
	_ = r.send(encodeNotification("notifications/message", p))
}

// ErrInputRequired is returned by Request.Elicit, Sample, ListRoots and Input when the
// client must be asked first (2026-07-28). A handler returns it unchanged; mcpkit then
// answers input_required and runs the handler again when the client retries with the
// answers.
var ErrInputRequired = errors.New("mcpkit: input required from the client")

// ElicitParams asks the user for input. Mode is "form" (default) or "url".
type ElicitParams struct {
	Mode            string         `json:"mode,omitempty"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema,omitempty"`
	URL             string         `json:"url,omitempty"`
	ElicitationID   string         `json:"elicitationId,omitempty"`
}

// ElicitResult is the user's answer: Action is "accept", "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the user through the client. key names the question; it must be stable
// across rounds (the same question has the same key each time the handler runs).
func (r *Request) Elicit(ctx context.Context, key string, p ElicitParams) (*ElicitResult, error) {
	mode := p.Mode
	if mode == "" {
		mode = "form"
	}
	if !r.Meta.ClientCapabilities.HasElicitation(mode) {
		caps := map[string]any{"elicitation": map[string]any{}}
		if mode == "url" {
			caps = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
		}
		return nil, &Error{Code: CodeMissingClientCapability,
			Message: fmt.Sprintf("this request needs the client's elicitation capability (%s mode), which the client did not declare", mode),
			Data:    map[string]any{"requiredCapabilities": caps}}
	}
	if r.Modern() {
		p.ElicitationID = "" // removed in 2026-07-28
	}
	var res ElicitResult
	if err := r.ask(ctx, key, InputRequest{Method: "elicitation/create", Params: p}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Sample asks the client's model for a completion (sampling/createMessage). params
// follows CreateMessageRequestParams; the result is the raw CreateMessageResult.
func (r *Request) Sample(ctx context.Context, key string, params any) (json.RawMessage, error) {
	if !r.Meta.ClientCapabilities.HasSampling() {
		return nil, &Error{Code: CodeMissingClientCapability,
			Message: "this request needs the client's sampling capability, which the client did not declare",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
	}
	var res json.RawMessage
	if err := r.ask(ctx, key, InputRequest{Method: "sampling/createMessage", Params: params}, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// Root is a directory or file the client lets the server work with.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRoots asks the client for its roots.
func (r *Request) ListRoots(ctx context.Context, key string) ([]Root, error) {
	if !r.Meta.ClientCapabilities.HasRoots() {
		return nil, &Error{Code: CodeMissingClientCapability,
			Message: "this request needs the client's roots capability, which the client did not declare",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"roots": map[string]any{}}}}
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	// A legacy session answers from its cache until the client says the roots changed.
	if r.sess != nil {
		if raw := r.sess.cachedRoots(); raw != nil && json.Unmarshal(raw, &res) == nil {
			return res.Roots, nil
		}
	}
	if err := r.ask(ctx, key, InputRequest{Method: "roots/list"}, &res); err != nil {
		return nil, err
	}
	if r.sess != nil {
		if raw, err := json.Marshal(res); err == nil {
			r.sess.setRoots(raw)
		}
	}
	return res.Roots, nil
}

// Input asks for several inputs in one round. It returns every answer when all are
// known, or ErrInputRequired after recording the missing ones. In a call running as
// a task it asks them all through the task and waits for every answer. Capabilities
// are the caller's to check.
func (r *Request) Input(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	missing := map[string]InputRequest{}
	for key, ir := range reqs {
		if v, ok := r.known(key); ok {
			out[key] = v
			continue
		}
		if r.sess != nil {
			var raw json.RawMessage
			if err := r.ask(ctx, key, ir, &raw); err != nil {
				return nil, err
			}
			out[key] = raw
			continue
		}
		missing[key] = ir
	}
	if len(missing) == 0 {
		return out, nil
	}
	if t := r.task; t != nil && t.askInTask() {
		got, err := t.input(ctx, missing)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			r.remember(k, v)
			out[k] = v
		}
		return out, nil
	}
	for key, ir := range missing {
		r.want(key, ir)
	}
	return nil, ErrInputRequired
}

// State returns the handler state carried from the previous round (SetState), or nil.
func (r *Request) State() []byte { return r.appState }

// SetState stores handler state to carry to the next round of a multi-round-trip
// request. It is signed, never encrypted: do not put secrets in it.
func (r *Request) SetState(b []byte) {
	r.mu.Lock()
	r.newState = append([]byte(nil), b...)
	r.mu.Unlock()
}

// ask resolves one input: from an earlier round's answers, by a server-to-client
// request on a legacy session, or by recording it for an input_required result.
func (r *Request) ask(ctx context.Context, key string, ir InputRequest, into any) error {
	if v, ok := r.known(key); ok {
		if err := json.Unmarshal(v, into); err != nil {
			return InvalidParams("inputResponses[%q] is not a valid %s result: %s", key, ir.Method, describeJSONError(err))
		}
		return nil
	}
	if r.sess != nil {
		raw, err := r.sess.call(ctx, r.out, ir.Method, ir.Params)
		if err != nil {
			return err
		}
		r.remember(key, raw)
		return json.Unmarshal(raw, into)
	}
	if t := r.task; t != nil && t.askInTask() {
		got, err := t.input(ctx, map[string]InputRequest{key: ir})
		if err != nil {
			return err
		}
		raw := got[key]
		r.remember(key, raw)
		if err := json.Unmarshal(raw, into); err != nil {
			return InvalidParams("inputResponses[%q] is not a valid %s result: %s", key, ir.Method, describeJSONError(err))
		}
		return nil
	}
	r.want(key, ir)
	return ErrInputRequired
}

func (r *Request) known(key string) (json.RawMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.inputs[key]
	return v, ok
}

func (r *Request) remember(key string, v json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inputs == nil {
		r.inputs = map[string]json.RawMessage{}
	}
	r.inputs[key] = v
}

func (r *Request) want(key string, ir InputRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]InputRequest{}
	}
	r.asked[key] = ir
}

// call returns the request's params decoded as a tools/call, resources/read or
// prompts/get call (decoded once per message).
func (r *Request) call() (callParams, error) {
	m := r.msg
	if m == nil {
		m = &message{Params: r.Params}
		r.msg = m
	}
	p, err := m.callParams()
	if err != nil {
		return callParams{}, err
	}
	return *p, nil
}
