package mcpkit

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPOptions configure the Streamable HTTP transport.
type HTTPOptions struct {
	// AllowedOrigins are the browser origins ("https://app.example.com") allowed to call
	// the server besides loopback ones; "*" allows any. A request with any other Origin
	// is refused with 403 (DNS-rebinding protection).
	AllowedOrigins []string
	// AllowedHosts, when set, are the only Host header values accepted (host or
	// host:port). serve.Serve sets loopback names when it listens on a loopback address.
	AllowedHosts []string
	// MaxBodyBytes bounds a request body (default: the server's MaxMessageBytes).
	MaxBodyBytes int64
	// SessionIdleTimeout ends legacy (2025) sessions unused this long (default 30 min).
	SessionIdleTimeout time.Duration
	// KeepAlive is the interval of SSE comment lines on long-lived streams (default 15 s).
	KeepAlive time.Duration
	// Authenticator, when set, checks every request's credentials before anything
	// else, and the scopes of each tools/call of a tool with Scopes. auth.New makes
	// the endpoint an OAuth 2.1 resource server (bearer tokens, 401/403 challenges,
	// per-tool scopes).
	Authenticator HTTPAuthenticator
	// MaxConcurrentPerCaller bounds the requests one caller (token subject with its
	// issuer, or peer address without authorization) has in flight; more are
	// refused with 429 and Retry-After, never queued. Listen streams do not count
	// (MaxStreamsPerCaller bounds them). 0: no limit.
	MaxConcurrentPerCaller int
	// MaxRatePerCaller bounds the requests one caller (as for
	// MaxConcurrentPerCaller) sends per minute ([RateWindow]); more are refused with
	// 429 and Retry-After. Listen streams do not count. 0: no limit.
	MaxRatePerCaller int
	// SharedLimits, when set, counts MaxConcurrentPerCaller and MaxRatePerCaller in a
	// store every instance shares, so that they hold across instances; without it
	// (and while it cannot be reached) each instance counts on its own.
	SharedLimits SharedLimits
	// MaxStreams bounds the long-lived streams open on this instance
	// (subscriptions/listen and legacy GET streams); more get 429 (default 1000,
	// negative: no limit).
	MaxStreams int
	// MaxStreamsPerCaller bounds the long-lived streams one caller (as for
	// MaxConcurrentPerCaller) has open on this instance, so that one caller cannot
	// take every MaxStreams slot; more get 429 (default
	// [DefaultMaxStreamsPerCaller], negative: no limit).
	MaxStreamsPerCaller int
	// StreamLifetime ends a subscriptions/listen stream with its completion result
	// after this long, so clients listen again and long-lived streams spread over
	// instances as they scale (default 30 min, negative: never). A stream also ends
	// when the caller's token expires. Legacy GET streams end the same way.
	StreamLifetime time.Duration
}

// HTTPHandler serves the MCP endpoint over Streamable HTTP: 2026-07-28 stateless
// requests (one POST each, JSON or SSE answer, 405 for GET and DELETE) and legacy
// clients (initialize mints an Mcp-Session-Id; their GET stream and DELETE work).
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	h := &httpHandler{s: s, sessions: map[string]*httpSession{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = int64(s.opts.MaxMessageBytes)
	}
	if h.opts.SessionIdleTimeout <= 0 {
		h.opts.SessionIdleTimeout = 30 * time.Minute
	}
	if h.opts.KeepAlive <= 0 {
		h.opts.KeepAlive = 15 * time.Second
	}
	if h.opts.MaxStreams == 0 {
		h.opts.MaxStreams = 1000
	}
	if h.opts.StreamLifetime == 0 {
		h.opts.StreamLifetime = 30 * time.Minute
	}
	h.calls = newCallerGate(&h.opts, s)
	h.streams = &streamLimiter{max: h.opts.MaxStreams}
	if h.opts.MaxStreamsPerCaller == 0 {
		h.opts.MaxStreamsPerCaller = DefaultMaxStreamsPerCaller
	}
	h.callerStreams = newCallerLimiter(h.opts.MaxStreamsPerCaller)
	s.markLive()
	return h
}

type httpHandler struct {
	s       *Server
	opts    HTTPOptions
	calls   *callerGate
	streams *streamLimiter
	// callerStreams is each caller's share of streams; nil without a per-caller limit.
	callerStreams *callerLimiter

	mu       sync.Mutex
	sessions map[string]*httpSession
}

type httpSession struct {
	*session
	owner    identity // the caller who created it: no one else may use it
	lastUsed time.Time
}

const (
	hdrProtocolVersion = "Mcp-Protocol-Version"
	hdrMethod          = "Mcp-Method"
	hdrName            = "Mcp-Name"
	hdrSessionID       = "Mcp-Session-Id"
	hdrParamPrefix     = "Mcp-Param-"
)

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.originAllowed(r) {
		h.refuse(w, "", http.StatusForbidden, ID{}, Errorf(CodeInvalidRequest, "origin %q is not allowed", r.Header.Get("Origin")))
		return
	}
	if !h.hostAllowed(r) {
		h.refuse(w, "", http.StatusForbidden, ID{}, Errorf(CodeInvalidRequest, "host %q is not allowed", r.Host))
		return
	}
	c := caller{}
	if a := h.opts.Authenticator; a != nil {
		ac, ok := a.Authenticate(w, r)
		if !ok {
			return
		}
		c = caller{subject: ac.Subject, issuer: ac.Issuer, scopes: ac.Scopes, expiry: ac.Expiry, authed: true}
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r, c)
	case http.MethodGet:
		h.get(w, r, c)
	case http.MethodDelete:
		h.delete(w, r, c)
	default:
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: the MCP endpoint takes POST", http.StatusMethodNotAllowed)
	}
}

// originAllowed implements DNS-rebinding protection: a browser's Origin must be a
// loopback origin or one the operator allowed.
func (h *httpHandler) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser
	}
	for _, o := range h.opts.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return IsLoopbackHost(u.Hostname())
}

// hostAllowed checks the Host header: against AllowedHosts when set; otherwise a
// request that arrived on a loopback address must name a loopback host, which is what
// defeats DNS rebinding (a page on evil.example that resolves to 127.0.0.1 still sends
// Host: evil.example).
func (h *httpHandler) hostAllowed(r *http.Request) bool {
	host := r.Host
	name := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		name = hn
	}
	if len(h.opts.AllowedHosts) == 0 {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if tcp, ok := la.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
				return IsLoopbackHost(name)
			}
		}
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// IsLoopbackHost reports whether a host name (brackets around an IPv6 address
// allowed) is localhost or a loopback IP address, without asking DNS: the hosts the
// HTTP handler's DNS-rebinding check accepts, and those package auth lets use plain
// http.
func IsLoopbackHost(name string) bool {
	name = strings.Trim(name, "[]")
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// statusFor maps a JSON-RPC error to the HTTP status the spec gives it.
func statusFor(code int, prepared bool) int {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case CodeMethodNotFound:
		return http.StatusNotFound
	case CodeInvalidParams:
		if prepared {
			return http.StatusBadRequest // a missing _meta field
		}
	}
	return http.StatusOK
}

// refuse answers a request the transport refuses before any handler runs, and logs
// why (see Server.logRefused).
func (h *httpHandler) refuse(w http.ResponseWriter, method string, status int, id ID, e *Error) {
	h.s.logRefused("http", method, status, e)
	writeJSONError(w, status, id, e)
}

func writeJSONError(w http.ResponseWriter, status int, id ID, e *Error) {
	writeJSON(w, status, encodeResponse(id, nil, e))
}

// writeJSON answers with one encoded JSON-RPC message.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(msg)
}

// caller is who sent a request, as authorization established it. The caller's
// identity is the pair (issuer, subject): subjects are unique only per issuer.
type caller struct {
	subject string
	issuer  string
	scopes  []string
	expiry  time.Time // when the caller's token expires; zero if it does not
	authed  bool
}

// identity is who a caller is: its subject qualified by the issuer that vouched
// for it. The zero identity is the unauthenticated caller.
type identity struct{ issuer, subject string }

func (c caller) identity() identity { return identity{issuer: c.issuer, subject: c.subject} }

// acquireStream takes a long-lived stream slot, the caller's share first and then
// one of the instance's, or answers 429 saying which limit was reached.
func (h *httpHandler) acquireStream(w http.ResponseWriter, r *http.Request, c caller, id ID) (release func(), ok bool) {
	key := callerKey(r, c)
	if !h.callerStreams.acquire(key) {
		tooMany(w, id, "too many open streams from this caller (the limit is %d per caller); close one or wait for one to end", h.opts.MaxStreamsPerCaller)
		return nil, false
	}
	if !h.streams.acquire() {
		h.callerStreams.release(key)
		tooMany(w, id, "too many open streams on this server instance (the limit is %d)", h.opts.MaxStreams)
		return nil, false
	}
	return func() {
		h.streams.release()
		h.callerStreams.release(key)
	}, true
}

// streamLifetime is how long a long-lived stream of this caller may stay open: the
// configured lifetime, and never past the token's expiry, since the token is checked
// only when the stream opens.
func (h *httpHandler) streamLifetime(c caller) time.Duration {
	d := h.opts.StreamLifetime
	if !c.expiry.IsZero() {
		if left := time.Until(c.expiry); d <= 0 || left < d {
			d = max(left, time.Millisecond)
		}
	}
	return d
}

func (h *httpHandler) post(w http.ResponseWriter, r *http.Request, c caller) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			h.refuse(w, "", http.StatusUnsupportedMediaType, ID{}, Errorf(CodeInvalidRequest, "Content-Type must be application/json, got %q", ct))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			// The answer goes to this POST whatever its id; the id from the body's first
			// bytes is added for clients that match answers by id all the same.
			h.refuse(w, "", http.StatusRequestEntityTooLarge, oversizedID(body[:min(len(body), oversizedKeep)], nil), tooLarge(int(h.opts.MaxBodyBytes)))
			return
		}
		h.refuse(w, "", http.StatusBadRequest, ID{}, Errorf(CodeParseError, "reading request body: %v", err))
		return
	}
	m, derr := decodeMessage(body)
	if derr != nil {
		var id ID
		if m != nil {
			id = m.ID
		}
		method := ""
		if m != nil {
			method = m.Method
		}
		h.refuse(w, method, http.StatusBadRequest, id, derr)
		return
	}

	// Legacy sessions: an initialize mints one; later messages name it.
	var hs *httpSession
	if sid := r.Header.Get(hdrSessionID); sid != "" && m.Method != "initialize" {
		if hs = h.session(sid, c.identity()); hs == nil {
			h.refuse(w, m.Method, http.StatusNotFound, m.ID, Errorf(CodeInvalidRequest, "unknown or expired session %q: send initialize again", sid))
			return
		}
	}

	if !m.isRequest() {
		if hs != nil {
			hs.receive(m) // without a session there is nothing a notification can act on
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	// Only requests count against the caller's limit: a notification or a response
	// (an answer to a legacy elicitation) must get through while a call waits for it.
	if m.Method == "subscriptions/listen" {
		release, ok := h.acquireStream(w, r, c, m.ID)
		if !ok {
			return
		}
		defer release()
	} else {
		release, ok := h.calls.admit(w, r, callerKey(r, c), m.ID)
		if !ok {
			return
		}
		defer release()
	}
	if perr := versionHeaderMismatch(r, m); perr != nil {
		h.refuse(w, m.Method, http.StatusBadRequest, m.ID, perr)
		return
	}

	if m.Method == "initialize" {
		hs = h.newSession(c.identity())
		w.Header().Set(hdrSessionID, hs.id)
	}
	// A legacy session's requests are in flight on it (notifications/cancelled reaches
	// them); a stateless request ends with its HTTP request.
	ctx := r.Context()
	var sess *session
	if hs != nil {
		sess = hs.session
		var refusal *Error
		if ctx, refusal = sess.begin(ctx, m); refusal != nil {
			h.refuse(w, m.Method, http.StatusBadRequest, m.ID, refusal)
			return
		}
		defer sess.end(m)
	}
	st := newHTTPStream(w, h.opts.KeepAlive)
	if m.Method == "subscriptions/listen" {
		var stop func()
		ctx, stop = withListenLifetime(ctx, h.streamLifetime(c))
		defer stop()
	}
	check := func(req *Request) *Error {
		if req.Modern() {
			if perr := h.checkHeaders(r, m, req); perr != nil {
				return perr
			}
		}
		if c.authed && m.Method == "tools/call" && !h.toolScopesGranted(w, r, m, c) {
			return errAnswered
		}
		if c.authed && req.spec.onTask && !h.taskScopesGranted(w, r, m, c) {
			return errAnswered
		}
		if m.Method == "subscriptions/listen" {
			st.startSSE() // the stream stays open: it must be SSE from the start
			st.keepAlive(ctx)
		}
		return nil
	}
	rep := h.s.handle(ctx, incoming{msg: m, sess: sess, out: st, subject: c.subject, issuer: c.issuer, scopes: c.scopes, header: r.Header, check: check})
	if rep.refused {
		if m.Method == "initialize" && hs != nil {
			h.dropSession(hs.id)
		}
		if rep.msg != nil {
			writeJSON(w, statusFor(rep.code, true), rep.msg)
		}
		return
	}
	st.finish(rep.msg, statusFor(rep.code, false))
}

// versionHeaderMismatch compares MCP-Protocol-Version with the version a modern body
// claims. It runs before the version itself is judged, so a header that disagrees
// with the body is a header problem (-32020) even when the body's version is unknown.
// Only _meta is decoded: the params' split (envelope) is the one prepare uses.
func versionHeaderMismatch(r *http.Request, m *message) *Error {
	e, err := m.envelope()
	if err != nil || len(e.Meta) == 0 {
		return nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(e.Meta, &meta) != nil {
		return nil
	}
	raw, ok := meta[metaProtocolVersion]
	if !ok {
		return nil
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	pv := r.Header.Get(hdrProtocolVersion)
	if pv == "" {
		return Errorf(CodeHeaderMismatch, "missing required header %s (expected %q)", hdrProtocolVersion, v)
	}
	if pv != v {
		return Errorf(CodeHeaderMismatch, "header mismatch: %s %q does not match _meta protocol version %q", hdrProtocolVersion, pv, v)
	}
	return nil
}

// checkHeaders validates the 2026-07-28 request headers against the body.
func (h *httpHandler) checkHeaders(r *http.Request, m *message, req *Request) *Error {
	mismatch := func(format string, args ...any) *Error { return Errorf(CodeHeaderMismatch, format, args...) }
	pv := r.Header.Get(hdrProtocolVersion)
	if pv == "" {
		return mismatch("missing required header %s (expected %q)", hdrProtocolVersion, req.Meta.ProtocolVersion)
	}
	if pv != req.Meta.ProtocolVersion {
		return mismatch("header mismatch: %s %q does not match _meta protocol version %q", hdrProtocolVersion, pv, req.Meta.ProtocolVersion)
	}
	mh, ok := headerValue(r, hdrMethod)
	if !ok {
		return mismatch("invalid %s header: bad base64 encoding", hdrMethod)
	}
	if mh == "" {
		return mismatch("missing required header %s (expected %q)", hdrMethod, m.Method)
	}
	if mh != m.Method {
		return mismatch("header mismatch: %s %q does not match body method %q", hdrMethod, mh, m.Method)
	}
	spec := req.spec
	if spec.needsName == "" {
		return nil
	}
	p, _ := req.call()
	want := p.Name
	switch spec.needsName {
	case "uri":
		want = p.URI
	case "taskId":
		want = p.TaskID
	}
	nh, ok := headerValue(r, hdrName)
	if !ok {
		return mismatch("invalid %s header: bad base64 encoding", hdrName)
	}
	if _, present := r.Header[http.CanonicalHeaderKey(hdrName)]; !present {
		return mismatch("missing required header %s (expected %q)", hdrName, want)
	}
	if nh != want {
		return mismatch("header mismatch: %s %q does not match body value %q", hdrName, nh, want)
	}
	if m.Method == "tools/call" {
		return checkParamHeaders(r, h.s.toolHeaders(p.Name), p.Arguments)
	}
	return nil
}

// checkParamHeaders validates Mcp-Param-* headers of x-mcp-header arguments.
func checkParamHeaders(r *http.Request, params map[string]string, args json.RawMessage) *Error {
	if len(params) == 0 {
		return nil
	}
	var vals map[string]json.RawMessage
	_ = json.Unmarshal(args, &vals)
	for arg, name := range params {
		hdr := hdrParamPrefix + name
		hv, ok := headerValue(r, hdr)
		if !ok {
			return Errorf(CodeHeaderMismatch, "invalid %s header: bad encoding or characters", hdr)
		}
		_, present := r.Header[http.CanonicalHeaderKey(hdr)]
		v, inBody := vals[arg]
		if !inBody || string(v) == "null" {
			if present {
				return Errorf(CodeHeaderMismatch, "header mismatch: %s is set but argument %q is absent", hdr, arg)
			}
			continue
		}
		if !present {
			return Errorf(CodeHeaderMismatch, "missing required header %s mirroring argument %q", hdr, arg)
		}
		if !paramMatches(hv, v) {
			return Errorf(CodeHeaderMismatch, "header mismatch: %s %q does not match argument %q", hdr, hv, arg)
		}
	}
	return nil
}

// paramMatches compares a header value with a JSON argument: strings exactly,
// numbers numerically, booleans as true/false.
func paramMatches(hv string, v json.RawMessage) bool {
	switch {
	case len(v) > 0 && v[0] == '"':
		var s string
		return json.Unmarshal(v, &s) == nil && s == hv
	case string(v) == "true" || string(v) == "false":
		return hv == string(v)
	default:
		var a, b json.Number
		if json.Unmarshal(v, &a) != nil {
			return false
		}
		b = json.Number(strings.TrimSpace(hv))
		af, err1 := a.Float64()
		bf, err2 := b.Float64()
		return err1 == nil && err2 == nil && af == bf
	}
}

// headerValue reads a header and decodes the =?base64?…?= form. ok is false for a
// value that is malformed or holds characters a header must not carry.
func headerValue(r *http.Request, name string) (string, bool) {
	v := r.Header.Get(name)
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", false
		}
	}
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		dec, err := decodeBase64Strict(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return "", false
		}
		return string(dec), true
	}
	return v, true
}

func (h *httpHandler) newSession(owner identity) *httpSession {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	hs := &httpSession{session: newSession(h.s, hex.EncodeToString(b)), owner: owner, lastUsed: time.Now()}
	h.mu.Lock()
	h.expireLocked()
	h.sessions[hs.id] = hs
	h.mu.Unlock()
	return hs
}

// session finds a legacy session by id for the caller who created it; another
// caller presenting the id gets nil, as if it did not exist.
func (h *httpHandler) session(id string, owner identity) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	hs := h.sessions[id]
	if hs != nil && hs.owner != owner {
		return nil
	}
	if hs != nil {
		hs.lastUsed = time.Now()
	}
	return hs
}

func (h *httpHandler) dropSession(id string) {
	h.mu.Lock()
	hs := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if hs != nil {
		h.s.closeSession(hs.session)
	}
}

// expireLocked drops idle legacy sessions; called when a session is created so the
// map cannot grow without bound.
func (h *httpHandler) expireLocked() {
	cutoff := time.Now().Add(-h.opts.SessionIdleTimeout)
	for id, hs := range h.sessions {
		if hs.lastUsed.Before(cutoff) && !hs.busy() {
			delete(h.sessions, id)
			go h.s.closeSession(hs.session)
		}
	}
}

// get opens a legacy session's stream of unsolicited notifications. 2026-07-28 has
// no GET stream: 405.
func (h *httpHandler) get(w http.ResponseWriter, r *http.Request, c caller) {
	sid := r.Header.Get(hdrSessionID)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: this revision has no GET stream; use subscriptions/listen", http.StatusMethodNotAllowed)
		return
	}
	hs := h.session(sid, c.identity())
	if hs == nil {
		writeJSONError(w, http.StatusNotFound, ID{}, Errorf(CodeInvalidRequest, "unknown or expired session %q", sid))
		return
	}
	release, ok := h.acquireStream(w, r, c, ID{})
	if !ok {
		return
	}
	defer release()
	ctx := r.Context()
	if d := h.streamLifetime(c); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	st := newHTTPStream(w, h.opts.KeepAlive)
	st.startSSE()
	hs.setUnsolicited(st)
	defer hs.setUnsolicited(nil)
	st.keepAlive(ctx)
	select {
	case <-ctx.Done():
	case <-h.s.hub.closing:
	}
}

func (h *httpHandler) delete(w http.ResponseWriter, r *http.Request, c caller) {
	sid := r.Header.Get(hdrSessionID)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed: this revision has no sessions", http.StatusMethodNotAllowed)
		return
	}
	if h.session(sid, c.identity()) == nil {
		writeJSONError(w, http.StatusNotFound, ID{}, Errorf(CodeInvalidRequest, "unknown or expired session %q", sid))
		return
	}
	h.dropSession(sid)
	w.WriteHeader(http.StatusNoContent)
}

// httpStream is the answer to one POST. It starts as a plain JSON response and turns
// into an SSE stream the moment a message must precede the response (progress, log,
// a legacy server-to-client request, a listen acknowledgement).
type httpStream struct {
	mu       sync.Mutex
	w        http.ResponseWriter
	rc       *http.ResponseController
	sse      bool
	done     bool
	interval time.Duration
}

func newHTTPStream(w http.ResponseWriter, keepAlive time.Duration) *httpStream {
	return &httpStream{w: w, rc: http.NewResponseController(w), interval: keepAlive}
}

func (h *httpStream) startSSE() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.startSSELocked()
}

func (h *httpStream) startSSELocked() {
	if h.sse {
		return
	}
	h.sse = true
	hdr := h.w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	h.w.WriteHeader(http.StatusOK)
	_ = h.rc.Flush()
}

func (h *httpStream) write(msg []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return errors.New("response already sent")
	}
	h.startSSELocked()
	return h.eventLocked(msg)
}

func (h *httpStream) eventLocked(msg []byte) error {
	if _, err := io.WriteString(h.w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := h.w.Write(msg); err != nil {
		return err
	}
	if _, err := io.WriteString(h.w, "\n\n"); err != nil {
		return err
	}
	return h.rc.Flush()
}

// keepAlive writes SSE comments while ctx lasts, so proxies keep the stream open.
func (h *httpStream) keepAlive(ctx context.Context) {
	go func() {
		t := time.NewTicker(h.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.mu.Lock()
				if h.done {
					h.mu.Unlock()
					return
				}
				_, err := io.WriteString(h.w, ":\n\n")
				if err == nil {
					err = h.rc.Flush()
				}
				h.mu.Unlock()
				if err != nil {
					return
				}
			}
		}
	}()
}

// finish sends the response: as the last SSE event if streaming began, otherwise as
// a JSON body with the given status. A nil response (cancelled) just ends the stream.
func (h *httpStream) finish(resp []byte, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	if h.sse {
		if resp != nil {
			_ = h.eventLocked(resp)
		}
		return
	}
	if resp == nil {
		h.w.WriteHeader(http.StatusNoContent)
		return
	}
	h.w.Header().Set("Content-Type", "application/json")
	h.w.WriteHeader(status)
	_, _ = h.w.Write(resp)
}

// decodeBase64Strict accepts only padded standard base64, as the spec's sentinel
// form requires: a value that is not exactly that is refused, not guessed at.
func decodeBase64Strict(s string) ([]byte, error) {
	return base64.StdEncoding.Strict().DecodeString(s)
}
