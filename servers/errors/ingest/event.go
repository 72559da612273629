package ingest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"

	json "github.com/segmentio/encoding/json"
)

// Storage caps applied when an event is ingested, so one SDK payload cannot make the
// store or a later answer large. (Display caps, tighter still, are in backend/view.go.)
const (
	ingestMaxString      = 16 << 10
	ingestMaxExceptions  = 20
	ingestMaxFrames      = 250
	ingestMaxContext     = 21
	ingestMaxBreadcrumbs = 100
	ingestMaxKeys        = 100
	ingestMaxList        = 100
	ingestMaxDepth       = 5
)

// sdkEvent is the subset of the Sentry event payload the store keeps.
type sdkEvent struct {
	EventID     event.FlexString                      `json:"event_id"`
	Timestamp   event.FlexTime                        `json:"timestamp"`
	Level       event.FlexString                      `json:"level"`
	Platform    event.FlexString                      `json:"platform"`
	Logger      event.FlexString                      `json:"logger"`
	Transaction event.FlexString                      `json:"transaction"`
	Culprit     event.FlexString                      `json:"culprit"`
	ServerName  event.FlexString                      `json:"server_name"`
	Release     event.FlexString                      `json:"release"`
	Dist        event.FlexString                      `json:"dist"`
	Environment event.FlexString                      `json:"environment"`
	Type        event.FlexString                      `json:"type"`
	Message     json.RawMessage                       `json:"message"`
	LogEntry    *sdkLogEntry                          `json:"logentry"`
	Tags        event.FlexPairs                       `json:"tags"`
	Extra       map[string]any                        `json:"extra"`
	Contexts    map[string]any                        `json:"contexts"`
	User        *sdkUser                              `json:"user"`
	Request     *sdkRequest                           `json:"request"`
	Exception   event.FlexValues[sdkException]        `json:"exception"`
	Threads     event.FlexValues[sdkThread]           `json:"threads"`
	Stacktrace  *sdkStacktrace                        `json:"stacktrace"`
	Breadcrumbs event.FlexValues[event.SDKBreadcrumb] `json:"breadcrumbs"`
	Fingerprint []event.FlexString                    `json:"fingerprint"`
	SDK         *sdkInfo                              `json:"sdk"`
}

type sdkInfo struct {
	Name    event.FlexString `json:"name"`
	Version event.FlexString `json:"version"`
}

type sdkLogEntry struct {
	Message   event.FlexString `json:"message"`
	Formatted event.FlexString `json:"formatted"`
}

type sdkUser struct {
	ID        event.FlexString `json:"id"`
	Username  event.FlexString `json:"username"`
	Email     event.FlexString `json:"email"`
	IPAddress event.FlexString `json:"ip_address"`
}

type sdkRequest struct {
	URL         event.FlexString `json:"url"`
	Method      event.FlexString `json:"method"`
	Data        any              `json:"data"`
	QueryString json.RawMessage  `json:"query_string"`
	Headers     event.FlexPairs  `json:"headers"`
}

type sdkMechanism struct {
	Type    event.FlexString `json:"type"`
	Handled event.FlexBool   `json:"handled"`
}

type sdkException struct {
	Type       event.FlexString `json:"type"`
	Value      event.FlexString `json:"value"`
	Module     event.FlexString `json:"module"`
	Mechanism  *sdkMechanism    `json:"mechanism"`
	Stacktrace *sdkStacktrace   `json:"stacktrace"`
}

type sdkThread struct {
	Crashed    event.FlexBool `json:"crashed"`
	Current    event.FlexBool `json:"current"`
	Stacktrace *sdkStacktrace `json:"stacktrace"`
}

type sdkStacktrace struct {
	Frames []sdkFrame `json:"frames"`
}

type sdkFrame struct {
	Function    event.FlexString   `json:"function"`
	Module      event.FlexString   `json:"module"`
	Package     event.FlexString   `json:"package"`
	Filename    event.FlexString   `json:"filename"`
	AbsPath     event.FlexString   `json:"abs_path"`
	Lineno      event.FlexInt      `json:"lineno"`
	Colno       event.FlexInt      `json:"colno"`
	PreContext  []event.FlexString `json:"pre_context"`
	ContextLine *event.FlexString  `json:"context_line"`
	PostContext []event.FlexString `json:"post_context"`
	InApp       event.FlexBool     `json:"in_app"`
	Vars        map[string]any     `json:"vars"`
}

// ParseEvent decodes one event payload and normalises it: lenient about field
// shapes, strict about the payload being one JSON object; sizes capped; secrets in
// structured fields redacted before anything reaches the disk. An event without an
// event_id takes fallbackID (the envelope header's), else a random one.
func ParseEvent(payload []byte, project string, received time.Time, fallbackID string) (*event.Event, error) {
	trimmed := bytes.TrimSpace(payload)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("event payload is not a JSON object")
	}
	if err := checkJSONBounds("the event payload", trimmed); err != nil {
		return nil, err
	}
	in, err := decodeSDKEventOrReflect(trimmed)
	if err != nil {
		return nil, err
	}
	if in.EventID == "" {
		in.EventID = event.FlexString(fallbackID)
	}
	id, err := normalizeEventID(string(in.EventID))
	if err != nil {
		return nil, err
	}
	e := &event.Event{
		ID:          id,
		Project:     project,
		Timestamp:   in.Timestamp.T,
		Level:       normalizeLevel(string(in.Level)),
		Platform:    event.Capped(string(in.Platform), 64),
		Logger:      event.Capped(string(in.Logger), 256),
		Transaction: event.Capped(event.RedactText(string(in.Transaction)), 1024),
		Culprit:     event.Capped(string(in.Culprit), 1024),
		Release:     event.Capped(string(in.Release), event.MaxTagValue),
		Dist:        event.Capped(string(in.Dist), 64),
		Environment: event.Capped(string(in.Environment), 64),
		ServerName:  event.Capped(string(in.ServerName), event.MaxTagValue),
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = received
	}
	if in.SDK != nil {
		e.SDK = event.Capped(strings.TrimSpace(string(in.SDK.Name)+" "+string(in.SDK.Version)), 128)
	}
	e.Message, e.MessageTemplate = eventMessage(in.Message, in.LogEntry)
	excs := []sdkException(in.Exception)
	if len(excs) > ingestMaxExceptions {
		excs = excs[len(excs)-ingestMaxExceptions:] // keep the outermost: they were reported
	}
	if len(excs) > 0 {
		e.Exceptions = make([]event.Exception, 0, len(excs))
	}
	for _, ex := range excs {
		x := event.Exception{
			Type:   event.Capped(string(ex.Type), 512),
			Value:  event.Capped(event.RedactText(string(ex.Value)), ingestMaxString),
			Module: event.Capped(string(ex.Module), 512),
		}
		if ex.Mechanism != nil {
			x.Mechanism = event.Capped(string(ex.Mechanism.Type), 64)
			x.Handled = ex.Mechanism.Handled.V
		}
		if ex.Stacktrace != nil {
			x.Frames = normalizeFrames(ex.Stacktrace.Frames)
		}
		e.Exceptions = append(e.Exceptions, x)
	}
	if len(e.Exceptions) == 0 {
		e.Stacktrace = threadStack(in.Threads, in.Stacktrace)
	}
	crumbs := []event.SDKBreadcrumb(in.Breadcrumbs)
	if len(crumbs) > ingestMaxBreadcrumbs {
		crumbs = crumbs[len(crumbs)-ingestMaxBreadcrumbs:]
	}
	if len(crumbs) > 0 {
		e.Breadcrumbs = make([]event.Breadcrumb, 0, len(crumbs))
	}
	for _, b := range crumbs {
		e.Breadcrumbs = append(e.Breadcrumbs, event.Breadcrumb{
			Timestamp: b.Timestamp.T,
			Type:      event.Capped(string(b.Type), 64),
			Category:  event.Capped(string(b.Category), 128),
			Level:     event.Capped(string(b.Level), 16),
			Message:   event.Capped(event.RedactText(string(b.Message)), 2048),
			Data:      boundMap(b.Data, 1),
		})
	}
	if u := in.User; u != nil {
		e.User = &event.User{ID: event.Capped(string(u.ID), 128), Username: event.Capped(string(u.Username), 128), Email: event.Capped(string(u.Email), 256), IP: event.Capped(string(u.IPAddress), 64)}
		if *e.User == (event.User{}) {
			e.User = nil
		}
	}
	if r := in.Request; r != nil {
		e.Request = normalizeRequest(r)
	}
	e.Contexts = normalizeContexts(in.Contexts)
	e.Extra = boundMap(in.Extra, 1)
	for _, f := range in.Fingerprint {
		if len(e.Fingerprint) < 32 {
			e.Fingerprint = append(e.Fingerprint, event.Capped(string(f), 512))
		}
	}
	e.Tags = normalizeTags(in.Tags)
	return e, nil
}

// decodeSDKEventOrReflect decodes a payload with the fast decoder, or, for a payload
// it does not take, with the reflective one (which words the error for a bad payload).
func decodeSDKEventOrReflect(payload []byte) (*sdkEvent, error) {
	if in, ok := decodeSDKEvent(payload); ok {
		return in, nil
	}
	return decodeSDKEventReflect(payload)
}

// decodeSDKEventReflect is the reference decoding of a payload: segmentio's decoder
// with the flex types' UnmarshalJSON.
func decodeSDKEventReflect(payload []byte) (*sdkEvent, error) {
	in := new(sdkEvent)
	if err := json.Unmarshal(payload, in); err != nil {
		return nil, fmt.Errorf("event payload is not valid JSON for a Sentry event: %v", err)
	}
	return in, nil
}

func normalizeEventID(id string) (string, error) {
	id = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(id), "-", ""))
	if id == "" {
		return newEventID(), nil
	}
	if !backend.EventIDPattern.MatchString(id) {
		return "", fmt.Errorf("event_id %q is not 32 hex digits (a UUID)", backend.TruncateForError(id))
	}
	return id, nil
}

func normalizeLevel(l string) string {
	switch l = strings.ToLower(strings.TrimSpace(l)); l {
	case "":
		return "error"
	case "warn":
		return "warning"
	case "critical":
		return "fatal"
	case "fatal", "error", "warning", "info", "debug":
		return l
	default:
		return event.Capped(l, 16)
	}
}

// eventMessage returns the formatted message and its template (used for grouping:
// "user %s not found" groups all users). message may be a string or an object.
func eventMessage(raw json.RawMessage, le *sdkLogEntry) (msg, template string) {
	if le != nil {
		msg, template = string(le.Formatted), string(le.Message)
	}
	if len(raw) > 0 && string(raw) != "null" {
		var obj sdkLogEntry
		if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
			msg = event.FirstNonEmpty(string(obj.Formatted), msg)
			template = event.FirstNonEmpty(string(obj.Message), template)
		} else {
			var s event.FlexString
			if json.Unmarshal(raw, &s) == nil {
				msg = event.FirstNonEmpty(string(s), msg)
			}
		}
	}
	if msg == "" {
		msg = template
	}
	return event.Capped(event.RedactText(msg), ingestMaxString), event.Capped(event.RedactText(template), 2048)
}

func normalizeFrames(in []sdkFrame) []event.Frame {
	if len(in) > ingestMaxFrames {
		in = in[len(in)-ingestMaxFrames:] // keep the crash end of a deep stack
	}
	out := make([]event.Frame, 0, len(in))
	for _, f := range in {
		fd := event.Frame{
			Function: event.Capped(string(f.Function), 512),
			Module:   event.Capped(string(event.FirstNonEmpty(string(f.Module), string(f.Package))), 512),
			Filename: event.Capped(string(f.Filename), 512),
			AbsPath:  event.Capped(string(f.AbsPath), 1024),
			Line:     int(f.Lineno),
			Column:   int(f.Colno),
			InApp:    f.InApp.V != nil && *f.InApp.V,
			Vars:     boundMap(f.Vars, 1),
		}
		if f.ContextLine != nil {
			pre := f.PreContext
			if len(pre) > ingestMaxContext/2 {
				pre = pre[len(pre)-ingestMaxContext/2:]
			}
			post := f.PostContext
			if len(post) > ingestMaxContext/2 {
				post = post[:ingestMaxContext/2]
			}
			line := fd.Line
			fd.Context = make([]event.ContextLine, 0, len(pre)+1+len(post))
			for i, s := range pre {
				fd.Context = append(fd.Context, event.ContextLine{Line: line - len(pre) + i, Code: event.Capped(string(s), 1024)})
			}
			fd.Context = append(fd.Context, event.ContextLine{Line: line, Code: event.Capped(string(*f.ContextLine), 1024)})
			for i, s := range post {
				fd.Context = append(fd.Context, event.ContextLine{Line: line + 1 + i, Code: event.Capped(string(s), 1024)})
			}
		}
		out = append(out, fd)
	}
	return out
}

// threadStack picks the crashed (else current, else first) thread's stack for an event
// without an exception, or the legacy top-level stacktrace.
func threadStack(threads []sdkThread, legacy *sdkStacktrace) []event.Frame {
	pick := -1
	for i, t := range threads {
		if t.Stacktrace == nil || len(t.Stacktrace.Frames) == 0 {
			continue
		}
		switch {
		case t.Crashed.V != nil && *t.Crashed.V:
			return normalizeFrames(t.Stacktrace.Frames)
		case pick < 0, t.Current.V != nil && *t.Current.V:
			pick = i
		}
	}
	if pick >= 0 {
		return normalizeFrames(threads[pick].Stacktrace.Frames)
	}
	if legacy != nil {
		return normalizeFrames(legacy.Frames)
	}
	return nil
}

func normalizeRequest(r *sdkRequest) *event.Request {
	out := &event.Request{Method: event.Capped(strings.ToUpper(string(r.Method)), 16)}
	u, urlQuery := event.RedactURL(string(r.URL))
	out.URL = event.Capped(u, 2048)
	if q := bytes.TrimSpace(r.QueryString); len(q) > 0 && string(q) != "null" {
		if q[0] == '"' {
			var s string
			if json.Unmarshal(q, &s) == nil {
				out.Query = event.RedactQueryString(s)
			}
		} else {
			var p event.FlexPairs
			if json.Unmarshal(q, &p) == nil {
				out.Query = event.RedactPairs(p)
			}
		}
	}
	if len(out.Query) == 0 {
		out.Query = urlQuery
	}
	out.Query = capPairs(out.Query, ingestMaxKeys)
	out.Headers = capPairs(event.RedactPairs(r.Headers), ingestMaxKeys)
	switch d := r.Data.(type) {
	case nil:
	case string:
		out.Data = event.Capped(d, ingestMaxString)
	default:
		out.Data = boundAny("", d, 1)
	}
	if out.Data != nil {
		if s, ok := out.Data.(string); ok {
			out.Data = event.Capped((&backend.Viewer{}).Body(s), ingestMaxString)
		}
	}
	return out
}

func capPairs(p []event.Pair, n int) []event.Pair {
	if len(p) > n {
		p = p[:n]
	}
	for i := range p {
		p[i].Key = event.Capped(p[i].Key, 256)
		p[i].Value = event.Capped(p[i].Value, 2048)
	}
	return p
}

func normalizeContexts(in map[string]any) map[string]event.Context {
	if len(in) == 0 {
		return nil
	}
	out := map[string]event.Context{}
	for name, v := range in {
		m, ok := v.(map[string]any)
		if !ok || len(out) >= 32 {
			continue
		}
		if event.IsSecretKey(name) {
			continue
		}
		if boundContextAsIs(m) {
			out[event.Capped(name, 128)] = event.Context(m)
			continue
		}
		c := event.Context{}
		for k, val := range m {
			if len(c) >= 32 {
				break
			}
			switch val.(type) {
			case string, float64, bool:
				c[event.Capped(k, 128)] = boundAny(k, val, ingestMaxDepth)
			}
		}
		out[event.Capped(name, 128)] = c
	}
	return out
}

// boundContextAsIs reports whether normalizeContexts would copy a context unchanged:
// few keys, short ones, all values scalars that bounding leaves as they are. Then
// the decoded map is kept instead of a copy (nothing else holds it).
func boundContextAsIs(m map[string]any) bool {
	if len(m) > 32 {
		return false
	}
	for k, val := range m {
		switch val.(type) {
		case string, float64, bool:
		default:
			return false
		}
		if len(k) > 128 {
			return false
		}
		if _, changed := bound(k, val, ingestMaxDepth); changed {
			return false
		}
	}
	return true
}

// boundMap redacts and caps a map of decoded JSON; nil for empty input.
func boundMap(m map[string]any, depth int) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out, _ := boundAny("", m, depth).(map[string]any)
	return out
}

// boundAny redacts secret-looking keys and caps keys, list lengths, string sizes and
// depth of a decoded JSON value.
func boundAny(key string, v any, depth int) any {
	out, _ := bound(key, v, depth)
	return out
}

// bound is boundAny, also saying whether the value changed. A map or list that
// does not change is returned as it is, not copied: most do not (breadcrumb data,
// frame variables), and the decoded value has no other holder.
func bound(key string, v any, depth int) (any, bool) {
	if event.IsSecretKey(key) && v != nil {
		s, ok := v.(string)
		return event.Redacted, !ok || s != event.Redacted
	}
	switch x := v.(type) {
	case string:
		if out := event.Capped(event.RedactText(x), ingestMaxString/4); out != x {
			return out, true
		}
		return v, false // as it came: boxing x again would allocate
	case map[string]any:
		if depth > ingestMaxDepth {
			return "{...}", true
		}
		if x != nil && len(x) <= ingestMaxKeys && !mapChanges(x, depth) {
			return v, false
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > ingestMaxKeys {
			keys = keys[:ingestMaxKeys]
		}
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			out[event.Capped(k, 256)] = boundAny(k, x[k], depth+1)
		}
		return out, true
	case []any:
		if depth > ingestMaxDepth {
			return "[...]", true
		}
		if x != nil && len(x) <= ingestMaxList && !listChanges(key, x, depth) {
			return v, false
		}
		if len(x) > ingestMaxList {
			x = x[:ingestMaxList]
		}
		out := make([]any, len(x))
		for i, e := range x {
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				if k, ok := pair[0].(string); ok {
					out[i] = []any{k, boundAny(k, pair[1], depth+1)}
					continue
				}
			}
			out[i] = boundAny(key, e, depth+1)
		}
		return out, true
	default:
		return v, false
	}
}

// mapChanges reports whether bounding changes a value of m (at depth) or caps a key.
func mapChanges(m map[string]any, depth int) bool {
	for k, e := range m {
		if len(k) > 256 {
			return true
		}
		if _, changed := bound(k, e, depth+1); changed {
			return true
		}
	}
	return false
}

// listChanges reports whether bounding changes an element of l (at depth), a list
// of [key, value] pairs being bounded by their keys.
func listChanges(key string, l []any, depth int) bool {
	for _, e := range l {
		if pair, ok := e.([]any); ok && len(pair) == 2 {
			if k, ok := pair[0].(string); ok {
				if _, changed := bound(k, pair[1], depth+1); changed {
					return true
				}
				continue
			}
		}
		if _, changed := bound(key, e, depth+1); changed {
			return true
		}
	}
	return false
}

func normalizeTags(in []event.Pair) []event.Pair {
	var out []event.Pair
	seen := map[string]bool{}
	for _, t := range in {
		k := event.Capped(strings.TrimSpace(t.Key), event.MaxTagKey)
		if k == "" || seen[k] || len(out) >= event.MaxTags {
			continue
		}
		seen[k] = true
		v := event.RedactValue(k, strings.ReplaceAll(t.Value, "\n", " "))
		out = append(out, event.Pair{Key: k, Value: event.Capped(v, event.MaxTagValue)})
	}
	return out
}

// newEventID is a random event id, for an event that came without one.
func newEventID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
