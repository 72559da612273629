package mcpkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// JSON-RPC 2.0 and MCP error codes (PROTOCOL.md §2.3).
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
	// CodeResourceNotFoundLegacy is what revisions up to 2025-11-25 use for an unknown
	// resource; 2026-07-28 uses -32602 and forbids this code.
	CodeResourceNotFoundLegacy = -32002
)

// ID is a JSON-RPC request id kept as its raw JSON so that a string stays a string and
// a number stays a number when it is echoed back (the spec requires both).
type ID struct{ raw json.RawMessage }

// IsZero reports whether the message had no id (a notification).
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// String is the id's JSON text, usable as a map key.
func (id ID) String() string { return string(id.raw) }

// MarshalJSON writes the id as it came in; a missing id is written as null, which is
// what an error response for an unreadable request carries.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id.raw) == 0 {
		return []byte("null"), nil
	}
	return id.raw, nil
}

// UnmarshalJSON accepts a string or an integer and nothing else.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return errors.New("id must be a string or an integer, not null")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return errors.New("id must be a string or an integer")
		}
		if _, err := n.Int64(); err != nil {
			return errors.New("id must be a string or an integer")
		}
	}
	id.raw = append(json.RawMessage(nil), b...)
	return nil
}

// NewIntID and NewStringID make ids for messages mcpkit itself sends (legacy
// server-to-client requests) and for tests.
func NewIntID(n int64) ID { return ID{raw: json.RawMessage(fmt.Sprint(n))} }

// NewStringID makes a string id.
func NewStringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: b}
}

// message is any JSON-RPC 2.0 message on the wire. Which fields are set tells its kind.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitzero"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`

	// env holds params split into the fields mcpkit itself reads (_meta and the call
	// fields), decoded in one pass although preparation, authorization, header
	// validation and the handler all read them.
	env    *paramsEnvelope
	envErr error
	// paramsValid says Params is known to be valid JSON (it came from a decoded
	// message), so envelope may split it without checking it again.
	paramsValid bool
	// call caches the params of tools/call, resources/read and prompts/get.
	call    *callParams
	callErr error
}

// paramsEnvelope is params with every field mcpkit reads kept raw, so that one pass over
// the params serves all of them and a field of the wrong type is reported by whoever
// reads it, naming that field.
type paramsEnvelope struct {
	Meta           json.RawMessage `json:"_meta"`
	Name           json.RawMessage `json:"name"`
	URI            json.RawMessage `json:"uri"`
	Arguments      json.RawMessage `json:"arguments"`
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
	TaskID         json.RawMessage `json:"taskId"`
}

// envelope returns the message's params split into raw fields, decoding them once.
func (m *message) envelope() (*paramsEnvelope, error) {
	if m.env == nil && m.envErr == nil {
		var e paramsEnvelope
		if fe, ok := m.envelopeFast(); ok {
			e = *fe
		} else if len(m.Params) > 0 {
			if err := json.Unmarshal(m.Params, &e); err != nil {
				m.envErr = err
				return nil, err
			}
		}
		m.env = &e
	}
	return m.env, m.envErr
}

// callParams returns the message's params decoded as a call, decoding them once.
func (m *message) callParams() (*callParams, error) {
	if m.call == nil && m.callErr == nil {
		m.call, m.callErr = m.decodeCall()
	}
	return m.call, m.callErr
}

func (m *message) decodeCall() (*callParams, error) {
	e, err := m.envelope()
	if err != nil {
		return nil, err
	}
	var p callParams
	if err := decodeField("name", e.Name, &p.Name); err != nil {
		return nil, err
	}
	if err := decodeField("uri", e.URI, &p.URI); err != nil {
		return nil, err
	}
	if err := decodeField("requestState", e.RequestState, &p.RequestState); err != nil {
		return nil, err
	}
	if err := decodeField("taskId", e.TaskID, &p.TaskID); err != nil {
		return nil, err
	}
	if err := decodeField("inputResponses", e.InputResponses, &p.InputResponses); err != nil {
		return nil, err
	}
	if len(e.Arguments) > 0 && string(e.Arguments) != "null" {
		p.Arguments = e.Arguments
	}
	return &p, nil
}

// decodeField decodes one raw field of params into v (a *string takes a fast path for
// strings without escapes); a type error names the field.
func decodeField(name string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if sp, ok := v.(*string); ok {
		if s, ok := plainString(raw); ok {
			*sp = s
			return nil
		}
	}
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return &json.UnmarshalTypeError{Value: te.Value, Type: te.Type, Offset: te.Offset, Field: name}
	}
	return err
}

// plainString returns the value of a JSON string literal that has no escapes and no
// control characters, without running the decoder; ok is false for anything else.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

func (m *message) isRequest() bool      { return m.Method != "" && !m.ID.IsZero() }
func (m *message) isNotification() bool { return m.Method != "" && m.ID.IsZero() }
func (m *message) isResponse() bool     { return m.Method == "" && !m.ID.IsZero() }

// Error is a JSON-RPC error object. A handler returns one (or wraps one) to answer with
// a protocol error instead of a result.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Errorf builds a protocol error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams is the error for bad request parameters (-32602).
func InvalidParams(format string, args ...any) *Error {
	return Errorf(CodeInvalidParams, format, args...)
}

// decodeMessage parses one wire message and classifies what is wrong with it, so the
// caller can answer with the right JSON-RPC error. The id is returned whenever it could
// be read, even for an invalid message.
func decodeMessage(data []byte) (*message, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, Errorf(CodeInvalidRequest, "empty message: expected a JSON-RPC 2.0 object")
	}
	if data[0] == '[' {
		return nil, Errorf(CodeInvalidRequest, "JSON-RPC batches are not supported by MCP: send one message at a time")
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return nil, Errorf(CodeParseError, "parse error: message is not valid JSON")
		}
		return nil, Errorf(CodeInvalidRequest, "invalid request: expected a JSON-RPC 2.0 object")
	}
	var m message
	fast := decodeMessageFast(data, &m) // see jsonfast.go
	if !fast {
		m = message{}
	}
	if err := m.decodeSlow(fast, data); err != nil {
		if strings.Contains(err.Error(), "exceeded max depth") {
			return nil, Errorf(CodeParseError, "parse error: JSON nested deeper than 10000 levels")
		}
		if !json.Valid(data) {
			return nil, Errorf(CodeParseError, "parse error: message is not valid JSON")
		}
		// Valid JSON with a field of the wrong type. Recover the id if we can.
		var loose struct {
			ID ID `json:"id"`
		}
		_ = json.Unmarshal(data, &loose)
		return &message{ID: loose.ID}, Errorf(CodeInvalidRequest, "invalid request: %s", describeJSONError(err))
	}
	m.paramsValid = true
	if m.JSONRPC != "2.0" {
		return &m, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if m.Method == "" && m.ID.IsZero() {
		return &m, Errorf(CodeInvalidRequest, `invalid request: a message needs a "method" (request or notification) or an "id" (response)`)
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return &m, Errorf(CodeInvalidRequest, `invalid request: a message with an "id" needs a "method" (a request) or a "result" or "error" (a response)`)
	}
	if m.Method != "" && (m.Result != nil || m.Error != nil) {
		return &m, Errorf(CodeInvalidRequest, `invalid request: a request must not carry "result" or "error"`)
	}
	if len(m.Params) > 0 && m.Params[0] != '{' && string(m.Params) != "null" {
		return &m, Errorf(CodeInvalidRequest, `invalid request: "params" must be an object`)
	}
	return &m, nil
}

// decodeSlow decodes data into m with encoding/json unless the fast path already did.
func (m *message) decodeSlow(fast bool, data []byte) error {
	if fast {
		return nil
	}
	return json.Unmarshal(data, m)
}

// describeJSONError turns encoding/json's messages into one that names the field.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %q must be %s, got %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("expected %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "float64", "float32":
		return "a number"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "an integer"
	}
	return goKind
}

// encodeResponse renders a response line (without the trailing newline).
func encodeResponse(id ID, result any, rpcErr *Error) []byte {
	tool, _ := result.(*CallToolResult)
	var dst []byte
	if tool != nil && rpcErr == nil {
		// A tool result is appended in place into a buffer sized for it up front
		// (pooled when large), so it is neither regrown nor copied.
		if hint := tool.encodedSizeHint(); hint > pooledResponseMin {
			dst = getResponseBuffer(hint)
		} else {
			dst = make([]byte, 0, hint)
		}
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	idb, _ := id.MarshalJSON()
	dst = append(dst, idb...)
	if rpcErr != nil {
		b, err := json.Marshal(rpcErr)
		if err != nil {
			b, _ = json.Marshal(&Error{Code: CodeInternalError, Message: "internal error: unencodable error data"})
		}
		dst = append(append(dst, `,"error":`...), b...)
		return append(dst, '}')
	}
	dst = append(dst, `,"result":`...)
	var err error
	if tool != nil {
		dst, err = appendCallToolResult(dst, tool)
	} else {
		var b []byte
		b, err = marshalNoEscape(result)
		dst = append(dst, b...)
	}
	if err != nil {
		return encodeResponse(id, nil, &Error{Code: CodeInternalError, Message: "internal error: result could not be encoded: " + err.Error()})
	}
	return append(dst, '}')
}

// encodeNotification renders a notification line.
func encodeNotification(method string, params any) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","method":`)
	mb, _ := json.Marshal(method)
	buf.Write(mb)
	if params != nil {
		b, err := marshalNoEscape(params)
		if err == nil {
			buf.WriteString(`,"params":`)
			buf.Write(b)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// encodeRequest renders a server-to-client request (legacy revisions only).
func encodeRequest(id ID, method string, params any) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	idb, _ := id.MarshalJSON()
	buf.Write(idb)
	buf.WriteString(`,"method":`)
	mb, _ := json.Marshal(method)
	buf.Write(mb)
	if params != nil {
		b, _ := marshalNoEscape(params)
		buf.WriteString(`,"params":`)
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// marshalNoEscape is json.Marshal without HTML escaping (<, >, & stay as they are: the
// output is a protocol stream, not HTML) and without the trailing newline.
func marshalNoEscape(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil
}

// Large tool results (a file, a page of rows) are encoded into pooled buffers: a fresh
// buffer of tens of KiB per call must be zeroed, and churns the heap enough that the
// collector and the scavenger cost more than the encoding. The transports hand a
// response back with releaseResponse once it is written.
const (
	pooledResponseMin = 4 << 10
	pooledResponseMax = 1 << 20 // larger buffers are left to the collector
)

var responsePool sync.Pool // of *[]byte

func getResponseBuffer(hint int) []byte {
	if p, ok := responsePool.Get().(*[]byte); ok && cap(*p) >= hint {
		return (*p)[:0]
	}
	return make([]byte, 0, hint)
}

// releaseResponse returns a response's buffer to the pool. The caller must not use b
// afterwards.
func releaseResponse(b []byte) {
	if c := cap(b); c > pooledResponseMin && c <= pooledResponseMax {
		b = b[:0]
		responsePool.Put(&b)
	}
}
