package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"time"
)

// methodSpec says where a method may be used and which capability gates it.
type methodSpec struct {
	handler func(s *Server, ctx context.Context, req *Request) (any, error)
	modern  bool   // served under 2026-07-28
	legacy  bool   // served to initialize-handshake clients
	gate    string // capability that must be advertised: tools, resources, prompts, completions, logging
	// cacheable results carry ttlMs and cacheScope in 2026-07-28.
	cacheable bool
	// needsName is the params field the HTTP Mcp-Name header mirrors.
	needsName string
	// onTask marks the methods of the Tasks extension, whose params name a task
	// (taskId): over authorized HTTP they need the scopes of the task's tool.
	onTask bool
}

var methodTable map[string]methodSpec

func init() {
	methodTable = map[string]methodSpec{
		"server/discover":          {handler: (*Server).discover, modern: true, legacy: true, cacheable: true},
		"initialize":               {handler: (*Server).initialize, legacy: true},
		"ping":                     {handler: (*Server).ping, legacy: true},
		"logging/setLevel":         {handler: (*Server).setLevel, legacy: true, gate: "logging"},
		"tools/list":               {handler: (*Server).listTools, modern: true, legacy: true, gate: "tools", cacheable: true},
		"tools/call":               {handler: (*Server).callTool, modern: true, legacy: true, gate: "tools", needsName: "name"},
		"resources/list":           {handler: (*Server).listResources, modern: true, legacy: true, gate: "resources", cacheable: true},
		"resources/templates/list": {handler: (*Server).listTemplates, modern: true, legacy: true, gate: "resources", cacheable: true},
		"resources/read":           {handler: (*Server).readResource, modern: true, legacy: true, gate: "resources", cacheable: true, needsName: "uri"},
		"resources/subscribe":      {handler: (*Server).subscribe, legacy: true, gate: "resources"},
		"resources/unsubscribe":    {handler: (*Server).unsubscribe, legacy: true, gate: "resources"},
		"prompts/list":             {handler: (*Server).listPrompts, modern: true, legacy: true, gate: "prompts", cacheable: true},
		"prompts/get":              {handler: (*Server).getPrompt, modern: true, legacy: true, gate: "prompts", needsName: "name"},
		"completion/complete":      {handler: (*Server).complete, modern: true, legacy: true, gate: "completions"},
		"subscriptions/listen":     {handler: (*Server).listen, modern: true},
		// The Tasks extension (tasks.go): Mcp-Name carries the task id.
		"tasks/get":    {handler: (*Server).getTask, modern: true, needsName: "taskId", onTask: true},
		"tasks/update": {handler: (*Server).updateTask, modern: true, needsName: "taskId", onTask: true},
		"tasks/cancel": {handler: (*Server).cancelTask, modern: true, needsName: "taskId", onTask: true},
	}
}

// mrtrMethods may answer input_required (PROTOCOL.md §6.1).
var mrtrMethods = []string{"tools/call", "resources/read", "prompts/get"}

// gated reports whether the capability a method needs is advertised.
func gated(caps ServerCapabilities, gate string) bool {
	switch gate {
	case "tools":
		return caps.Tools != nil
	case "resources":
		return caps.Resources != nil
	case "prompts":
		return caps.Prompts != nil
	case "completions":
		return caps.Completions != nil
	case "logging":
		return caps.Logging != nil
	}
	return true
}

// incoming is one request as a transport hands it to the server (see lifecycle.go).
type incoming struct {
	msg  *message
	sess *session // the connection's legacy session (stdio) or the HTTP session, or nil
	out  stream
	// subject, issuer and scopes of an authenticated HTTP caller.
	subject string
	issuer  string
	scopes  []string
	// header holds the HTTP request's headers (nil on stdio).
	header http.Header
	// check, when set, runs once the request is prepared and before the handler
	// chain: what only the transport can judge (HTTP headers, tool scopes). A non-nil
	// error refuses the request with it; errAnswered says the transport has already
	// answered (an HTTP 403 challenge, say) and nothing more is sent.
	check func(req *Request) *Error
}

// errAnswered is what an incoming.check returns after answering the request itself.
var errAnswered = &Error{Code: CodeInternalError, Message: "answered by the transport"}

// reply is the server's answer to one request.
type reply struct {
	msg  []byte // the encoded response; nil when nothing is to be sent (cancelled, or answered by the transport)
	code int    // the JSON-RPC error code of an error response, else 0
	// refused is set when the request was refused before its handler chain ran
	// (preparation or the transport's check).
	refused bool
}

// prepare checks a request's era, _meta, version and method and builds the [Request] a
// handler will see. The error is the JSON-RPC error to answer with.
func (s *Server) prepare(in incoming) (*Request, methodSpec, *Error) {
	m := in.msg
	meta, perr := parseMeta(m)
	req := &Request{ID: m.ID, Method: m.Method, Params: m.Params, server: s, msg: m, out: in.out,
		Subject: in.subject, Issuer: in.issuer, Scopes: in.scopes, Header: in.header}
	if perr != nil {
		return req, methodSpec{}, perr
	}
	spec, known := methodTable[m.Method]
	req.spec = spec
	switch {
	case meta.hasModernMeta():
		if !meta.hasCapabilities {
			return req, spec, InvalidParams("missing required _meta field %q (an object, {} when the client has none)", metaClientCapabilities)
		}
		if !isModern(meta.ProtocolVersion) {
			return req, spec, &Error{Code: CodeUnsupportedProtocolVersion,
				Message: fmt.Sprintf("unsupported protocol version %q: this server serves %v per request, and %v through initialize", meta.ProtocolVersion, ModernRevisions, LegacyRevisions),
				Data:    map[string]any{"supported": SupportedRevisions(), "requested": meta.ProtocolVersion}}
		}
		req.Meta = meta
		if !known || !spec.modern {
			return req, spec, Errorf(CodeMethodNotFound, "method not found: %q is not a %s method", m.Method, Revision20260728)
		}
	case in.sess != nil && (m.Method == "initialize" || in.sess.isInitialized() || m.Method == "ping"):
		req.sess = in.sess
		req.Meta = in.sess.meta()
		req.Meta.ProgressToken = meta.ProgressToken
		req.Meta.Traceparent, req.Meta.Tracestate, req.Meta.Raw = meta.Traceparent, meta.Tracestate, meta.Raw
		if !known || !spec.legacy {
			return req, spec, Errorf(CodeMethodNotFound, "method not found: %q", m.Method)
		}
	default:
		if !known {
			return req, spec, Errorf(CodeMethodNotFound, "method not found: %q", m.Method)
		}
		if spec.legacy && !spec.modern && m.Method != "initialize" {
			return req, spec, Errorf(CodeInvalidRequest, "%s needs an initialized session: send initialize first, or use %s with _meta", m.Method, Revision20260728)
		}
		if m.Method == "initialize" {
			return req, spec, Errorf(CodeInvalidRequest, "initialize is not available on this transport without a session")
		}
		return req, spec, InvalidParams("missing required _meta field %q: %s requests carry it on every request (legacy clients send initialize first)", metaProtocolVersion, Revision20260728)
	}
	if spec.gate != "" && !gated(s.capabilities(), spec.gate) {
		return req, spec, Errorf(CodeMethodNotFound, "method not found: %s needs the %q capability, which this server does not advertise", m.Method, spec.gate)
	}
	return req, spec, nil
}

// handle is the one entry from a transport into the server for a request: it
// prepares the request, lets the transport check it, runs the handler chain with
// panic recovery, encodes the answer and tells the observers.
func (s *Server) handle(ctx context.Context, in incoming) reply {
	req, _, perr := s.prepare(in)
	if perr == nil && in.check != nil {
		perr = in.check(req)
	}
	switch {
	case perr == errAnswered:
		return reply{refused: true}
	case perr != nil:
		s.logRefused(in.transport(), in.msg.Method, 0, perr)
		return reply{msg: encodeResponse(in.msg.ID, nil, perr), code: perr.Code, refused: true}
	}
	start := time.Now()
	res, err := s.run(ctx, req)
	req.finish()
	rep := s.answer(ctx, req, res, err)
	if observers := s.observers.Load(); observers != nil && len(*observers) > 0 {
		resp := Response{Outcome: outcomeOf(ctx, res, err), Bytes: len(rep.msg), Code: rep.code, Duration: time.Since(start)}
		for _, o := range *observers {
			o(ctx, req, resp)
		}
	}
	return rep
}

// answer encodes what the handler chain returned as the response to send.
func (s *Server) answer(ctx context.Context, req *Request, res any, err error) reply {
	if err == nil {
		return reply{msg: encodeResponse(req.ID, s.decorate(req, res), nil)}
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return reply{} // the spec: a cancelled request gets no response
	}
	if errors.Is(err, ErrInputRequired) && req.Modern() && slices.Contains(mrtrMethods, req.Method) {
		ir, serr := s.inputRequired(req)
		if serr != nil {
			return reply{msg: encodeResponse(req.ID, nil, serr), code: serr.Code}
		}
		return reply{msg: encodeResponse(req.ID, s.decorate(req, ir), nil)}
	}
	var rpcErr *Error
	if !errors.As(err, &rpcErr) {
		req.Logger().Error("request failed", "error", err)
		if s.opts.ErrorReporter != nil {
			s.opts.ErrorReporter.ReportError(req, err)
		}
		rpcErr = &Error{Code: CodeInternalError, Message: "internal error: " + err.Error()}
	}
	if rpcErr.Code == CodeInvalidParams && !req.Modern() && req.Method == "resources/read" && isNotFound(rpcErr) {
		rpcErr = &Error{Code: CodeResourceNotFoundLegacy, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	return reply{msg: encodeResponse(req.ID, nil, rpcErr), code: rpcErr.Code}
}

// run calls the handler chain with panic recovery.
func (s *Server) run(ctx context.Context, req *Request) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, s.handlerPanicked(req, p)
		}
	}()
	return (*s.handler.Load())(ctx, req)
}

// handlerPanicked logs and reports a handler's panic p (recovered by the caller's
// deferred function) and returns the error the client is answered with.
func (s *Server) handlerPanicked(req *Request, p any) *Error {
	stack := debug.Stack()
	req.Logger().Error("handler panicked", "panic", fmt.Sprint(p), "stack", string(stack))
	if s.opts.ErrorReporter != nil {
		s.opts.ErrorReporter.ReportPanic(req, p, stack)
	}
	return &Error{Code: CodeInternalError, Message: "internal error: the handler failed unexpectedly"}
}

// dispatch is the innermost handler: the method the request was prepared for.
func (s *Server) dispatch(ctx context.Context, req *Request) (any, error) {
	spec := req.spec
	if spec.handler == nil {
		return nil, Errorf(CodeMethodNotFound, "method not found: %q", req.Method)
	}
	if req.Method == "tools/call" {
		return s.toolDeadline(ctx, req, func(ctx context.Context) (any, error) { return spec.handler(s, ctx, req) })
	}
	return spec.handler(s, ctx, req)
}

// decorate adds what the revision requires to a result: resultType, serverInfo and
// caching hints for 2026-07-28; nothing for legacy revisions.
func (s *Server) decorate(req *Request, res any) any {
	spec := req.spec
	r, ok := res.(result)
	if !ok {
		if res == nil {
			r = &emptyResult{}
		} else {
			return res
		}
	}
	if !req.Modern() {
		return r
	}
	b := r.base()
	if b.ResultType == "" {
		b.ResultType = "complete"
	}
	if b.Meta == nil {
		b.Meta = map[string]any{}
	}
	b.Meta[metaServerInfo] = s.infoJSON()
	if spec.cacheable && b.ResultType == "complete" && b.CacheScope == "" {
		ttl := int64(0)
		if spec.handler != nil && req.Method != "resources/read" {
			ttl = s.opts.ListTTL.Milliseconds()
		}
		b.TTLMs = &ttl
		b.CacheScope = "public"
		if req.Subject != "" {
			b.CacheScope = "private"
		}
	}
	return r
}

func isNotFound(e *Error) bool {
	d, ok := e.Data.(map[string]any)
	if !ok {
		return false
	}
	_, ok = d["uri"]
	return ok
}

// discoverResult is the answer to server/discover.
type discoverResult struct {
	resultBase
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
}

func (s *Server) discover(_ context.Context, req *Request) (any, error) {
	return &discoverResult{SupportedVersions: SupportedRevisions(), Capabilities: s.capabilities(), Instructions: s.opts.Instructions}, nil
}

type initializeResult struct {
	resultBase
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

func (s *Server) initialize(_ context.Context, req *Request) (any, error) {
	var p struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    ClientCapabilities `json:"capabilities"`
		ClientInfo      *Implementation    `json:"clientInfo"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, InvalidParams("invalid initialize params: %s", describeJSONError(err))
	}
	if p.ProtocolVersion == "" {
		return nil, InvalidParams(`initialize needs "protocolVersion", for example %q`, Revision20251125)
	}
	// Echo a supported legacy revision; otherwise offer our newest legacy one. Never
	// negotiate 2026-07-28 through initialize: it has no handshake.
	rev := p.ProtocolVersion
	if !isLegacy(rev) {
		rev = LegacyRevisions[0]
	}
	sess := req.sess
	sess.mu.Lock()
	sess.revision = rev
	sess.caps = p.Capabilities
	sess.clientInfo = p.ClientInfo
	sess.mu.Unlock()
	return &initializeResult{ProtocolVersion: rev, Capabilities: s.capabilities(), ServerInfo: s.info, Instructions: s.opts.Instructions}, nil
}

// initialized marks a legacy session ready for notifications.
func (s *Server) initialized(sess *session) {
	sess.mu.Lock()
	if sess.revision == "" || sess.initialized {
		sess.mu.Unlock()
		return
	}
	sess.initialized = true
	l := &listener{filter: SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}}
	l.deliver = func(method string, params map[string]any) {
		var p any // an untyped nil: a nil map would encode as "params":null
		if len(params) > 0 {
			p = params
		}
		sess.notify(encodeNotification(method, p))
	}
	sess.listener = l
	sess.mu.Unlock()
	s.hub.add(l)
}

// closeSession unregisters a legacy session's listener.
func (s *Server) closeSession(sess *session) {
	if sess == nil {
		return
	}
	sess.mu.Lock()
	l := sess.listener
	sess.listener = nil
	sess.mu.Unlock()
	if l != nil {
		s.hub.remove(l)
	}
	s.noticeEnd(sess)
}

func (s *session) isInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized || s.revision != ""
}

func (s *Server) ping(context.Context, *Request) (any, error) { return &emptyResult{}, nil }

func (s *Server) setLevel(_ context.Context, req *Request) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || levelRank(p.Level) < 0 {
		return nil, InvalidParams("logging/setLevel needs \"level\", one of %v", loggingLevels)
	}
	req.sess.mu.Lock()
	req.sess.level = p.Level
	req.sess.mu.Unlock()
	return &emptyResult{}, nil
}

func (s *Server) subscribe(_ context.Context, req *Request) (any, error) {
	uri, err := uriParam(req)
	if err != nil {
		return nil, err
	}
	sess := req.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.subs[uri] = true
	if sess.listener != nil {
		sess.listener.mu.Lock()
		if !slices.Contains(sess.listener.filter.ResourceSubscriptions, uri) {
			sess.listener.filter.ResourceSubscriptions = append(sess.listener.filter.ResourceSubscriptions, uri)
		}
		sess.listener.mu.Unlock()
	}
	return &emptyResult{}, nil
}

func (s *Server) unsubscribe(_ context.Context, req *Request) (any, error) {
	uri, err := uriParam(req)
	if err != nil {
		return nil, err
	}
	sess := req.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	delete(sess.subs, uri)
	if sess.listener != nil {
		sess.listener.mu.Lock()
		sess.listener.filter.ResourceSubscriptions = slices.DeleteFunc(sess.listener.filter.ResourceSubscriptions, func(s string) bool { return s == uri })
		sess.listener.mu.Unlock()
	}
	return &emptyResult{}, nil
}

func uriParam(req *Request) (string, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return "", InvalidParams("invalid params: %s", describeJSONError(err))
	}
	if p.URI == "" {
		return "", InvalidParams(`%s needs "uri"`, req.Method)
	}
	return p.URI, nil
}

// infoJSON is the serverInfo _meta value, encoded once: it goes into every result.
func (s *Server) infoJSON() json.RawMessage {
	s.infoOnce.Do(func() {
		b, err := json.Marshal(s.info)
		if err != nil {
			b = []byte(`{"name":"unknown","version":"unknown"}`)
		}
		s.infoRaw = b
	})
	return s.infoRaw
}

// transport names the transport a request came over, for logs.
func (in incoming) transport() string {
	if _, ok := in.out.(*lineWriter); ok {
		return "stdio"
	}
	return "http"
}
