package errorserver

import (
	"bytes"
	"fmt"
	json "github.com/segmentio/encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Storage caps applied when an event is ingested, so one SDK payload cannot make the
// store or a later answer large. (Display caps, tighter still, are in view.go.)
const (
	ingestMaxString      = 16 << 10
	ingestMaxExceptions  = 20
	ingestMaxFrames      = 250
	ingestMaxContext     = 21
	ingestMaxBreadcrumbs = 100
	ingestMaxTags        = 200
	ingestMaxKeys        = 100
	ingestMaxList        = 100
	ingestMaxDepth       = 5
	ingestMaxTagValue    = 200
	ingestMaxTagKey      = 64
)

// sdkEvent is the subset of the Sentry event payload the store keeps.
type sdkEvent struct {
	EventID     flexString                `json:"event_id"`
	Timestamp   flexTime                  `json:"timestamp"`
	Level       flexString                `json:"level"`
	Platform    flexString                `json:"platform"`
	Logger      flexString                `json:"logger"`
	Transaction flexString                `json:"transaction"`
	Culprit     flexString                `json:"culprit"`
	ServerName  flexString                `json:"server_name"`
	Release     flexString                `json:"release"`
	Dist        flexString                `json:"dist"`
	Environment flexString                `json:"environment"`
	Type        flexString                `json:"type"`
	Message     json.RawMessage           `json:"message"`
	LogEntry    *sdkLogEntry              `json:"logentry"`
	Tags        flexPairs                 `json:"tags"`
	Extra       map[string]any            `json:"extra"`
	Contexts    map[string]any            `json:"contexts"`
	User        *sdkUser                  `json:"user"`
	Request     *sdkRequest               `json:"request"`
	Exception   flexValues[sdkException]  `json:"exception"`
	Threads     flexValues[sdkThread]     `json:"threads"`
	Stacktrace  *sdkStacktrace            `json:"stacktrace"`
	Breadcrumbs flexValues[sdkBreadcrumb] `json:"breadcrumbs"`
	Fingerprint []flexString              `json:"fingerprint"`
	SDK         *sdkInfo                  `json:"sdk"`
}

type sdkInfo struct {
	Name    flexString `json:"name"`
	Version flexString `json:"version"`
}

type sdkLogEntry struct {
	Message   flexString `json:"message"`
	Formatted flexString `json:"formatted"`
}

type sdkUser struct {
	ID        flexString `json:"id"`
	Username  flexString `json:"username"`
	Email     flexString `json:"email"`
	IPAddress flexString `json:"ip_address"`
}

type sdkRequest struct {
	URL         flexString      `json:"url"`
	Method      flexString      `json:"method"`
	Data        any             `json:"data"`
	QueryString json.RawMessage `json:"query_string"`
	Headers     flexPairs       `json:"headers"`
}

type sdkMechanism struct {
	Type    flexString `json:"type"`
	Handled flexBool   `json:"handled"`
}

type sdkException struct {
	Type       flexString     `json:"type"`
	Value      flexString     `json:"value"`
	Module     flexString     `json:"module"`
	Mechanism  *sdkMechanism  `json:"mechanism"`
	Stacktrace *sdkStacktrace `json:"stacktrace"`
}

type sdkThread struct {
	Crashed    flexBool       `json:"crashed"`
	Current    flexBool       `json:"current"`
	Stacktrace *sdkStacktrace `json:"stacktrace"`
}

type sdkStacktrace struct {
	Frames []sdkFrame `json:"frames"`
}

type sdkFrame struct {
	Function    flexString     `json:"function"`
	Module      flexString     `json:"module"`
	Package     flexString     `json:"package"`
	Filename    flexString     `json:"filename"`
	AbsPath     flexString     `json:"abs_path"`
	Lineno      flexInt        `json:"lineno"`
	Colno       flexInt        `json:"colno"`
	PreContext  []flexString   `json:"pre_context"`
	ContextLine *flexString    `json:"context_line"`
	PostContext []flexString   `json:"post_context"`
	InApp       flexBool       `json:"in_app"`
	Vars        map[string]any `json:"vars"`
}

type sdkBreadcrumb struct {
	Timestamp flexTime       `json:"timestamp"`
	Type      flexString     `json:"type"`
	Category  flexString     `json:"category"`
	Level     flexString     `json:"level"`
	Message   flexString     `json:"message"`
	Data      map[string]any `json:"data"`
}

// parseSDKEvent decodes one event payload and normalises it: lenient about field
// shapes, strict about the payload being one JSON object; sizes capped; secrets in
// structured fields redacted before anything reaches the disk. An event without an
// event_id takes fallbackID (the envelope header's), else a random one.
func parseSDKEvent(payload []byte, project string, received time.Time, fallbackID string) (*eventData, error) {
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
		in.EventID = flexString(fallbackID)
	}
	id, err := normalizeEventID(string(in.EventID))
	if err != nil {
		return nil, err
	}
	e := &eventData{
		ID:          id,
		Project:     project,
		Timestamp:   in.Timestamp.t,
		Level:       normalizeLevel(string(in.Level)),
		Platform:    capped(string(in.Platform), 64),
		Logger:      capped(string(in.Logger), 256),
		Transaction: capped(RedactText(string(in.Transaction)), 1024),
		Culprit:     capped(string(in.Culprit), 1024),
		Release:     capped(string(in.Release), ingestMaxTagValue),
		Dist:        capped(string(in.Dist), 64),
		Environment: capped(string(in.Environment), 64),
		ServerName:  capped(string(in.ServerName), ingestMaxTagValue),
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = received
	}
	if in.SDK != nil {
		e.SDK = capped(strings.TrimSpace(string(in.SDK.Name)+" "+string(in.SDK.Version)), 128)
	}
	e.Message, e.MessageTemplate = eventMessage(in.Message, in.LogEntry)
	excs := []sdkException(in.Exception)
	if len(excs) > ingestMaxExceptions {
		excs = excs[len(excs)-ingestMaxExceptions:] // keep the outermost: they were reported
	}
	if len(excs) > 0 {
		e.Exceptions = make([]exceptionData, 0, len(excs))
	}
	for _, ex := range excs {
		x := exceptionData{
			Type:   capped(string(ex.Type), 512),
			Value:  capped(RedactText(string(ex.Value)), ingestMaxString),
			Module: capped(string(ex.Module), 512),
		}
		if ex.Mechanism != nil {
			x.Mechanism = capped(string(ex.Mechanism.Type), 64)
			x.Handled = ex.Mechanism.Handled.v
		}
		if ex.Stacktrace != nil {
			x.Frames = normalizeFrames(ex.Stacktrace.Frames)
		}
		e.Exceptions = append(e.Exceptions, x)
	}
	if len(e.Exceptions) == 0 {
		e.Stacktrace = threadStack(in.Threads, in.Stacktrace)
	}
	crumbs := []sdkBreadcrumb(in.Breadcrumbs)
	if len(crumbs) > ingestMaxBreadcrumbs {
		crumbs = crumbs[len(crumbs)-ingestMaxBreadcrumbs:]
	}
	if len(crumbs) > 0 {
		e.Breadcrumbs = make([]breadcrumbData, 0, len(crumbs))
	}
	for _, b := range crumbs {
		e.Breadcrumbs = append(e.Breadcrumbs, breadcrumbData{
			Timestamp: b.Timestamp.t,
			Type:      capped(string(b.Type), 64),
			Category:  capped(string(b.Category), 128),
			Level:     capped(string(b.Level), 16),
			Message:   capped(RedactText(string(b.Message)), 2048),
			Data:      boundMap(b.Data, 1),
		})
	}
	if u := in.User; u != nil {
		e.User = &userData{ID: capped(string(u.ID), 128), Username: capped(string(u.Username), 128), Email: capped(string(u.Email), 256), IP: capped(string(u.IPAddress), 64)}
		if *e.User == (userData{}) {
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
			e.Fingerprint = append(e.Fingerprint, capped(string(f), 512))
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

func capped(s string, max int) string {
	out, _ := mcpkit.TruncateText(s, max)
	return out
}

func normalizeEventID(id string) (string, error) {
	id = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(id), "-", ""))
	if id == "" {
		return newEventID(), nil
	}
	if !eventIDPattern.MatchString(id) {
		return "", fmt.Errorf("event_id %q is not 32 hex digits (a UUID)", truncateForError(id))
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
		return capped(l, 16)
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
			msg = firstNonEmpty(string(obj.Formatted), msg)
			template = firstNonEmpty(string(obj.Message), template)
		} else {
			var s flexString
			if json.Unmarshal(raw, &s) == nil {
				msg = firstNonEmpty(string(s), msg)
			}
		}
	}
	if msg == "" {
		msg = template
	}
	return capped(RedactText(msg), ingestMaxString), capped(RedactText(template), 2048)
}

func normalizeFrames(in []sdkFrame) []frameData {
	if len(in) > ingestMaxFrames {
		in = in[len(in)-ingestMaxFrames:] // keep the crash end of a deep stack
	}
	out := make([]frameData, 0, len(in))
	for _, f := range in {
		fd := frameData{
			Function: capped(string(f.Function), 512),
			Module:   capped(string(firstNonEmpty(string(f.Module), string(f.Package))), 512),
			Filename: capped(string(f.Filename), 512),
			AbsPath:  capped(string(f.AbsPath), 1024),
			Line:     int(f.Lineno),
			Column:   int(f.Colno),
			InApp:    f.InApp.v != nil && *f.InApp.v,
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
			fd.Context = make([]contextLine, 0, len(pre)+1+len(post))
			for i, s := range pre {
				fd.Context = append(fd.Context, contextLine{Line: line - len(pre) + i, Code: capped(string(s), 1024)})
			}
			fd.Context = append(fd.Context, contextLine{Line: line, Code: capped(string(*f.ContextLine), 1024)})
			for i, s := range post {
				fd.Context = append(fd.Context, contextLine{Line: line + 1 + i, Code: capped(string(s), 1024)})
			}
		}
		out = append(out, fd)
	}
	return out
}

// threadStack picks the crashed (else current, else first) thread's stack for an event
// without an exception, or the legacy top-level stacktrace.
func threadStack(threads []sdkThread, legacy *sdkStacktrace) []frameData {
	pick := -1
	for i, t := range threads {
		if t.Stacktrace == nil || len(t.Stacktrace.Frames) == 0 {
			continue
		}
		switch {
		case t.Crashed.v != nil && *t.Crashed.v:
			return normalizeFrames(t.Stacktrace.Frames)
		case pick < 0, t.Current.v != nil && *t.Current.v:
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

func normalizeRequest(r *sdkRequest) *requestData {
	out := &requestData{Method: capped(strings.ToUpper(string(r.Method)), 16)}
	u, urlQuery := redactURL(string(r.URL))
	out.URL = capped(u, 2048)
	if q := bytes.TrimSpace(r.QueryString); len(q) > 0 && string(q) != "null" {
		if q[0] == '"' {
			var s string
			if json.Unmarshal(q, &s) == nil {
				out.Query = redactQueryString(s)
			}
		} else {
			var p flexPairs
			if json.Unmarshal(q, &p) == nil {
				out.Query = redactPairs(p)
			}
		}
	}
	if len(out.Query) == 0 {
		out.Query = urlQuery
	}
	out.Query = capPairs(out.Query, ingestMaxKeys)
	out.Headers = capPairs(redactPairs(r.Headers), ingestMaxKeys)
	switch d := r.Data.(type) {
	case nil:
	case string:
		out.Data = capped(d, ingestMaxString)
	default:
		out.Data = boundAny("", d, 1)
	}
	if out.Data != nil {
		if s, ok := out.Data.(string); ok {
			out.Data = capped((&viewer{}).body(s), ingestMaxString)
		}
	}
	return out
}

func capPairs(p []tagPair, n int) []tagPair {
	if len(p) > n {
		p = p[:n]
	}
	for i := range p {
		p[i].Key = capped(p[i].Key, 256)
		p[i].Value = capped(p[i].Value, 2048)
	}
	return p
}

func normalizeContexts(in map[string]any) map[string]ctxData {
	if len(in) == 0 {
		return nil
	}
	out := map[string]ctxData{}
	for name, v := range in {
		m, ok := v.(map[string]any)
		if !ok || len(out) >= 32 {
			continue
		}
		if IsSecretKey(name) {
			continue
		}
		if boundContextAsIs(m) {
			out[capped(name, 128)] = ctxData(m)
			continue
		}
		c := ctxData{}
		for k, val := range m {
			if len(c) >= 32 {
				break
			}
			switch val.(type) {
			case string, float64, bool:
				c[capped(k, 128)] = boundAny(k, val, ingestMaxDepth)
			}
		}
		out[capped(name, 128)] = c
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
	if IsSecretKey(key) && v != nil {
		s, ok := v.(string)
		return Redacted, !ok || s != Redacted
	}
	switch x := v.(type) {
	case string:
		if out := capped(RedactText(x), ingestMaxString/4); out != x {
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
			out[capped(k, 256)] = boundAny(k, x[k], depth+1)
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

func normalizeTags(in []tagPair) []tagPair {
	var out []tagPair
	seen := map[string]bool{}
	for _, t := range in {
		k := capped(strings.TrimSpace(t.Key), ingestMaxTagKey)
		if k == "" || seen[k] || len(out) >= ingestMaxTags {
			continue
		}
		seen[k] = true
		v := redactValue(k, strings.ReplaceAll(t.Value, "\n", " "))
		out = append(out, tagPair{Key: k, Value: capped(v, ingestMaxTagValue)})
	}
	return out
}

func sortPairs(p []tagPair) {
	slices.SortStableFunc(p, func(a, b tagPair) int { return strings.Compare(a.Key, b.Key) })
}
