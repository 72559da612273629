package mcpkit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// requestState is what mcpkit carries between rounds of a multi-round-trip request.
// It is signed with the server's state key (HMAC-SHA256) so a client cannot forge
// answers or replay it against another request, and it expires.
type requestState struct {
	Method  string                     `json:"m"`
	Target  string                     `json:"t"`            // tool or prompt name, or resource URI
	Args    string                     `json:"a"`            // digest of the arguments
	Subject string                     `json:"s,omitempty"`  // authenticated caller, if any…
	Issuer  string                     `json:"si,omitempty"` // …and who vouched for it: subjects are unique only per issuer
	Expires int64                      `json:"x"`            // unix seconds
	Inputs  map[string]json.RawMessage `json:"i,omitempty"`  // answers from earlier rounds
	App     []byte                     `json:"d,omitempty"`  // handler state (SetState)
	Asked   []string                   `json:"q,omitempty"`  // keys the server asked for in this round
	Nonce   string                     `json:"n"`            // random, once per state: the ReplayGuard's key
	Bound   map[string]string          `json:"b,omitempty"`  // per confirmation key, what it was bound to (Confirm)
}

// newNonce returns 16 random bytes, base64url.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// argsDigest binds a state to the arguments it was issued for. The arguments are
// canonicalised first (keys sorted, no spaces) because a client may re-encode them.
func argsDigest(args json.RawMessage) string {
	var v any
	if len(args) > 0 && json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	sum := sha256.Sum256(args)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// sign encodes and signs a state: base64url(payload) "." base64url(hmac).
func (s *Server) sign(st *requestState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// verify checks a state's signature, expiry and binding to this request.
func (s *Server) verify(token string, req *Request, target string, args json.RawMessage) (*requestState, error) {
	bad := func(why string) error {
		return InvalidParams("invalid requestState: %s; send the original request again without requestState and inputResponses", why)
	}
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return nil, bad("it is not a state this server issued")
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, bad("it is not a state this server issued")
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(payload)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, bad("its signature does not verify (it was altered or issued by another server)")
	}
	var st requestState
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, bad("it cannot be decoded")
	}
	if time.Now().Unix() > st.Expires {
		return nil, bad("it has expired")
	}
	if st.Method != req.Method || st.Target != target || st.Args != argsDigest(args) || st.Subject != req.Subject || st.Issuer != req.Issuer {
		return nil, bad("it was issued for a different request")
	}
	if st.Nonce == "" {
		return nil, bad("it carries no nonce (it was issued by an older version of this server)")
	}
	return &st, nil
}

// use records a verified state as used, before its handler runs: a state answers one
// retry, so a finished confirmation sent again cannot repeat what it confirmed.
func (s *Server) use(ctx context.Context, st *requestState) error {
	fresh, err := s.replay.Use(ctx, st.Nonce, time.Unix(st.Expires+1, 0))
	if err != nil {
		return &Error{Code: CodeInternalError, Message: "cannot tell whether this requestState was used before, so it is refused: " + err.Error()}
	}
	if !fresh {
		return InvalidParams("invalid requestState: it was already used, and a round of a multi-round-trip request is answered once so that a confirmed action is never repeated; " +
			"send the original request again without requestState and inputResponses to be asked again")
	}
	return nil
}

// resume loads the answers of earlier rounds (from a verified requestState) and this
// round (inputResponses) into the request before the handler runs again.
func (s *Server) resume(ctx context.Context, req *Request, p callParams, args json.RawMessage) error {
	if !req.Modern() {
		return nil
	}
	target := p.Name
	if req.Method == "resources/read" {
		target = p.URI
	}
	if p.RequestState == "" {
		// Answers are only taken for questions this server asked, as recorded in the
		// signed state it issued with them: a client cannot pre-answer a
		// confirmation it was never shown. Without a state, inputResponses are ignored
		// and the handler asks afresh.
		return nil
	}
	st, err := s.verify(p.RequestState, req, target, args)
	if err != nil {
		return err
	}
	if err := s.use(ctx, st); err != nil {
		return err
	}
	req.bound = st.Bound
	for k, v := range st.Inputs {
		req.remember(k, v)
	}
	req.appState = st.App
	for _, k := range st.Asked {
		if v, ok := p.InputResponses[k]; ok {
			req.remember(k, v)
		}
	}
	return nil
}

// inputRequired builds the input_required result for a handler that asked for input,
// with a signed state carrying everything answered so far.
func (s *Server) inputRequired(req *Request) (*inputRequiredResult, *Error) {
	p, _ := req.call()
	target, args := p.Name, p.Arguments
	if req.Method == "resources/read" {
		target, args = p.URI, nil
	}
	if req.Method == "tools/call" && (len(args) == 0 || string(args) == "null") {
		args = json.RawMessage("{}")
	}
	req.mu.Lock()
	st := &requestState{Method: req.Method, Target: target, Args: argsDigest(args), Subject: req.Subject, Issuer: req.Issuer,
		Expires: time.Now().Add(s.opts.StateTTL).Unix(), Inputs: req.inputs, App: req.newState, Nonce: newNonce()}
	if st.App == nil {
		st.App = req.appState
	}
	for k, v := range req.bound {
		if st.Bound == nil {
			st.Bound = map[string]string{}
		}
		st.Bound[k] = v
	}
	for k, v := range req.newBound {
		if st.Bound == nil {
			st.Bound = map[string]string{}
		}
		st.Bound[k] = v
	}
	asked := req.asked
	for k := range asked {
		st.Asked = append(st.Asked, k)
	}
	sort.Strings(st.Asked)
	req.mu.Unlock()
	if len(asked) == 0 && st.App == nil {
		return nil, &Error{Code: CodeInternalError, Message: "internal error: handler returned ErrInputRequired without asking for input"}
	}
	token, err := s.sign(st)
	if err != nil {
		return nil, &Error{Code: CodeInternalError, Message: "internal error: encoding request state: " + err.Error()}
	}
	return &inputRequiredResult{resultBase: resultBase{ResultType: "input_required"}, InputRequests: asked, RequestState: token}, nil
}
