package mcpkit

import (
	"encoding/json"
	"hash/maphash"
	"maps"
	"slices"
	"sync/atomic"
)

// Protocol revisions this library speaks. The first is stateless (per-request _meta);
// the others use the initialize handshake.
const (
	Revision20260728 = "2026-07-28"
	Revision20251125 = "2025-11-25"
	Revision20250618 = "2025-06-18"
	Revision20250326 = "2025-03-26"
)

// ModernRevisions are served statelessly; LegacyRevisions through initialize.
var (
	ModernRevisions = []string{Revision20260728}
	LegacyRevisions = []string{Revision20251125, Revision20250618, Revision20250326}
)

// SupportedRevisions lists every revision, newest first, as server/discover and the
// -32022 error report them.
func SupportedRevisions() []string {
	return append(slices.Clone(ModernRevisions), LegacyRevisions...)
}

func isModern(rev string) bool { return slices.Contains(ModernRevisions, rev) }
func isLegacy(rev string) bool { return slices.Contains(LegacyRevisions, rev) }

// Reserved _meta keys (PROTOCOL.md §2.4).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	metaProgressToken      = "progressToken"
	metaTraceparent        = "traceparent"
	metaTracestate         = "tracestate"
)

// Implementation names a client or server.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a host may show for a server, tool, resource or prompt.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// ClientCapabilities is what a client declared: per request in 2026-07-28, once at
// initialize before. Fields are raw so that nothing a client sends is lost.
type ClientCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Roots        json.RawMessage            `json:"roots,omitempty"`
	Sampling     json.RawMessage            `json:"sampling,omitempty"`
	Elicitation  json.RawMessage            `json:"elicitation,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// HasElicitation reports whether the client can answer an elicitation in the given
// mode ("form" or "url"). An empty elicitation object means form only.
func (c *ClientCapabilities) HasElicitation(mode string) bool {
	if c == nil || len(c.Elicitation) == 0 || string(c.Elicitation) == "null" {
		return false
	}
	var modes map[string]json.RawMessage
	if json.Unmarshal(c.Elicitation, &modes) != nil {
		return false
	}
	if len(modes) == 0 {
		return mode == "" || mode == "form"
	}
	if mode == "" {
		mode = "form"
	}
	_, ok := modes[mode]
	return ok
}

// HasSampling reports whether the client declared sampling.
func (c *ClientCapabilities) HasSampling() bool {
	return c != nil && len(c.Sampling) > 0 && string(c.Sampling) != "null"
}

// HasRoots reports whether the client declared roots.
func (c *ClientCapabilities) HasRoots() bool {
	return c != nil && len(c.Roots) > 0 && string(c.Roots) != "null"
}

// ServerCapabilities is what this server advertises.
type ServerCapabilities struct {
	Experimental map[string]any  `json:"experimental,omitempty"`
	Logging      *struct{}       `json:"logging,omitempty"`
	Completions  *struct{}       `json:"completions,omitempty"`
	Prompts      *ListChangedCap `json:"prompts,omitempty"`
	Resources    *ResourcesCap   `json:"resources,omitempty"`
	Tools        *ListChangedCap `json:"tools,omitempty"`
	Extensions   map[string]any  `json:"extensions,omitempty"`
}

// ListChangedCap is the capability object of tools and prompts.
type ListChangedCap struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCap is the resources capability.
type ResourcesCap struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// LoggingLevel values in increasing severity (RFC 5424 names).
var loggingLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelRank(level string) int { return slices.Index(loggingLevels, level) }

// RequestMeta is the parsed per-request _meta of a request. For legacy revisions the
// fields come from the session (initialize and logging/setLevel) instead.
type RequestMeta struct {
	ProtocolVersion    string
	ClientCapabilities ClientCapabilities
	ClientInfo         *Implementation
	LogLevel           string
	ProgressToken      json.RawMessage
	Traceparent        string
	Tracestate         string
	// Raw is the _meta object as sent, for extensions mcpkit does not know.
	Raw json.RawMessage

	hasVersion, hasCapabilities bool
}

// metaFields are the reserved keys, decoded in one pass into a struct (no map): this
// runs on every request.
type metaFields struct {
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
	LogLevel           json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
	Traceparent        json.RawMessage `json:"traceparent"`
	Tracestate         json.RawMessage `json:"tracestate"`
}

// metaKeys are metaFields' json names, for the fast path's case-folding check.
var metaKeys = []string{metaProtocolVersion, metaClientCapabilities, metaClientInfo, metaLogLevel, "progressToken", "traceparent", "tracestate"}

// splitFast fills f from raw as json.Unmarshal would, without encoding/json's
// reflection (building its field cache was most of the first request's parse); it
// reports false, leaving the slow path to decide, for invalid JSON, a key with an
// escape, or a key that matches a field only case-insensitively.
func (f *metaFields) splitFast(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return false
	}
	return splitObject(raw, func(key, value []byte) bool {
		value = value[:len(value):len(value)] // shares raw, which no one changes
		switch string(key) {
		case metaProtocolVersion:
			f.ProtocolVersion = value
		case metaClientCapabilities:
			f.ClientCapabilities = value
		case metaClientInfo:
			f.ClientInfo = value
		case metaLogLevel:
			f.LogLevel = value
		case "progressToken":
			f.ProgressToken = value
		case "traceparent":
			f.Traceparent = value
		case "tracestate":
			f.Tracestate = value
		default:
			return !foldsTo(key, metaKeys)
		}
		return true
	})
}

// parseMeta reads params._meta. It reports missing required fields only when the
// request is modern; the caller decides.
func parseMeta(msg *message) (RequestMeta, *Error) {
	var m RequestMeta
	if len(msg.Params) == 0 {
		return m, nil
	}
	p, err := msg.envelope()
	if err != nil {
		return m, InvalidParams("invalid params: %s", describeJSONError(err))
	}
	if len(p.Meta) == 0 || string(p.Meta) == "null" {
		return m, nil
	}
	if p.Meta[0] != '{' {
		return m, InvalidParams(`"_meta" must be an object`)
	}
	if cached, ok := lookupMeta(p.Meta); ok {
		return cached, nil
	}
	m, perr := parseMetaObject(p.Meta)
	if perr == nil {
		rememberMeta(p.Meta, m)
	}
	return m, perr
}

// parseMetaObject parses a _meta object (p.Meta, starting with '{').
func parseMetaObject(raw json.RawMessage) (RequestMeta, *Error) {
	var m RequestMeta
	m.Raw = raw
	var f metaFields
	if !f.splitFast(raw) {
		f = metaFields{}
		if err := json.Unmarshal(raw, &f); err != nil {
			return m, InvalidParams("invalid _meta: %s", describeJSONError(err))
		}
	}
	if v := f.ProtocolVersion; v != nil {
		m.hasVersion = true
		if err := decodeField("", v, &m.ProtocolVersion); err != nil || m.ProtocolVersion == "" {
			return m, InvalidParams("_meta[%q] must be a non-empty string such as %q", metaProtocolVersion, Revision20260728)
		}
	}
	if v := f.ClientCapabilities; v != nil {
		m.hasCapabilities = true
		if len(v) == 0 || v[0] != '{' {
			return m, InvalidParams("_meta[%q] must be an object ({} when the client has none)", metaClientCapabilities)
		}
		if len(v) > 2 { // "{}" needs no decoding
			if err := json.Unmarshal(v, &m.ClientCapabilities); err != nil {
				return m, InvalidParams("_meta[%q]: %s", metaClientCapabilities, describeJSONError(err))
			}
		}
	}
	if v := f.ClientInfo; v != nil {
		var info Implementation
		if json.Unmarshal(v, &info) == nil {
			m.ClientInfo = &info
		}
	}
	if v := f.LogLevel; v != nil {
		if decodeField("", v, &m.LogLevel) != nil || levelRank(m.LogLevel) < 0 {
			return m, InvalidParams("_meta[%q] must be one of %v", metaLogLevel, loggingLevels)
		}
	}
	if v := f.ProgressToken; len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		m.ProgressToken = v
	}
	if v := f.Traceparent; v != nil {
		_ = decodeField("", v, &m.Traceparent)
	}
	if v := f.Tracestate; v != nil {
		_ = decodeField("", v, &m.Tracestate)
	}
	return m, nil
}

// hasModernMeta reports whether params name a protocol version in _meta: the mark of a
// 2026-07-28-style request.
func (m *RequestMeta) hasModernMeta() bool { return m.hasVersion }

// metaCache remembers the last _meta objects parsed, by their exact bytes: a client
// sends the same _meta (revision, capabilities, client info) with nearly every
// request, and decoding it again was about a sixth of a small tools/call's CPU. The
// parse depends on nothing but the bytes, so a hit is the same result, validation
// included. Entries are immutable; a hit hands out copies of the parts a handler could
// change. Shared by every server of the process: a few slots, chosen by hash.
var (
	metaCache     [16]atomic.Pointer[metaEntry]
	metaCacheSeed = maphash.MakeSeed()
)

// metaCacheMax bounds the _meta objects remembered, in bytes: larger ones (carrying
// per-request data) are parsed every time.
const metaCacheMax = 1024

type metaEntry struct {
	raw  string
	meta RequestMeta // Raw unset: it is each request's own
}

func metaSlot(raw []byte) *atomic.Pointer[metaEntry] {
	return &metaCache[maphash.Bytes(metaCacheSeed, raw)%uint64(len(metaCache))]
}

func lookupMeta(raw json.RawMessage) (RequestMeta, bool) {
	if len(raw) > metaCacheMax {
		return RequestMeta{}, false
	}
	e := metaSlot(raw).Load()
	if e == nil || e.raw != string(raw) {
		return RequestMeta{}, false
	}
	m := detachedMeta(e.meta)
	m.Raw = raw
	return m, true
}

func rememberMeta(raw json.RawMessage, m RequestMeta) {
	if len(raw) > metaCacheMax {
		return
	}
	m = detachedMeta(m)
	m.Raw = nil
	metaSlot(raw).Store(&metaEntry{raw: string(raw), meta: m})
}

// detachedMeta copies m with its own copies of the parts a handler could change
// (ClientInfo, the capability maps), so a cache entry and a request never share them.
func detachedMeta(m RequestMeta) RequestMeta {
	if m.ClientInfo != nil {
		info := *m.ClientInfo
		m.ClientInfo = &info
	}
	m.ClientCapabilities.Experimental = maps.Clone(m.ClientCapabilities.Experimental)
	m.ClientCapabilities.Extensions = maps.Clone(m.ClientCapabilities.Extensions)
	return m
}
