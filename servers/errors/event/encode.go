package event

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"
)

// Marshal encodes an event for the store's body column: the bytes json.Marshal
// (segmentio's, which wrote every body so far) gives, without its reflection, map
// iteration and per-value interface boxing, which cost more than parsing the event.
// Whatever the appender does not know (a value type no decoder produces, a NaN) is
// left to json.Marshal, so the output and the errors stay the same; tests compare
// the two on every kind of event, and FuzzMarshalEvent on any payload.
//
// Two properties of segmentio's encoder are kept on purpose because stored bodies
// have them: it ignores the omitzero option (a zero time is written as
// "0001-01-01T00:00:00Z"), and it escapes <, > and & as \u003c, \u003e and \u0026.
func Marshal(e *Event) ([]byte, error) {
	a := appenderPool.Get().(*jsonAppender)
	defer a.release()
	a.event(e)
	if a.failed {
		return json.Marshal(e)
	}
	return slices.Clone(a.b), nil
}

// release returns the appender to the pool, unless an outsized event grew it.
func (a *jsonAppender) release() {
	if cap(a.b) > 1<<20 {
		return
	}
	a.b, a.failed = a.b[:0], false
	appenderPool.Put(a)
}

// MarshalTags encodes an event's tags (distinct keys) for the tags column: a JSON
// object of key and value, keys sorted, as json.Marshal of a map[string]string gives.
func MarshalTags(tags []Pair) []byte {
	a := appenderPool.Get().(*jsonAppender)
	defer a.release()
	sorted := append(a.sorted[:0], tags...)
	slices.SortFunc(sorted, func(x, y Pair) int { return strings.Compare(x.Key, y.Key) })
	a.b = append(a.b, '{')
	for i, t := range sorted {
		if i > 0 {
			a.b = append(a.b, ',')
		}
		a.str(t.Key)
		a.b = append(a.b, ':')
		a.str(t.Value)
	}
	a.b = append(a.b, '}')
	clear(sorted)
	a.sorted = sorted[:0]
	return slices.Clone(a.b)
}

// jsonAppender appends JSON to b; failed says it met something it leaves to
// json.Marshal. keys and sorted are scratch for sorting.
type jsonAppender struct {
	b      []byte
	keys   []string
	sorted []Pair
	failed bool
}

var appenderPool = sync.Pool{New: func() any { return &jsonAppender{b: make([]byte, 0, 8<<10)} }}

// field writes a member's key, after a comma unless it is the object's first (n
// counts the members written).
func (a *jsonAppender) field(n *int, key string) {
	if *n > 0 {
		a.b = append(a.b, ',')
	}
	*n++
	a.b = append(a.b, '"')
	a.b = append(a.b, key...)
	a.b = append(a.b, '"', ':')
}

func (a *jsonAppender) strField(n *int, key, v string) {
	if v != "" {
		a.field(n, key)
		a.str(v)
	}
}

func (a *jsonAppender) intField(n *int, key string, v int) {
	if v != 0 {
		a.field(n, key)
		a.b = strconv.AppendInt(a.b, int64(v), 10)
	}
}

func (a *jsonAppender) time(t time.Time) {
	a.b = append(a.b, '"')
	a.b = t.AppendFormat(a.b, time.RFC3339Nano)
	a.b = append(a.b, '"')
}

func (a *jsonAppender) event(e *Event) {
	n := 0
	a.b = append(a.b, '{')
	a.field(&n, "id")
	a.str(e.ID)
	a.strField(&n, "issue", e.IssueID)
	a.strField(&n, "project", e.Project)
	a.field(&n, "timestamp")
	a.time(e.Timestamp)
	a.field(&n, "received")
	a.time(e.Received)
	a.field(&n, "clientTimestamp")
	a.time(e.ClientTimestamp)
	a.strField(&n, "level", e.Level)
	a.strField(&n, "platform", e.Platform)
	a.strField(&n, "logger", e.Logger)
	a.strField(&n, "title", e.Title)
	a.strField(&n, "culprit", e.Culprit)
	a.strField(&n, "message", e.Message)
	a.strField(&n, "messageTemplate", e.MessageTemplate)
	a.strField(&n, "transaction", e.Transaction)
	a.strField(&n, "release", e.Release)
	a.strField(&n, "dist", e.Dist)
	a.strField(&n, "environment", e.Environment)
	a.strField(&n, "serverName", e.ServerName)
	if len(e.Tags) > 0 {
		a.field(&n, "tags")
		a.pairs(e.Tags)
	}
	if len(e.Fingerprint) > 0 {
		a.field(&n, "fingerprint")
		a.b = append(a.b, '[')
		for i, s := range e.Fingerprint {
			if i > 0 {
				a.b = append(a.b, ',')
			}
			a.str(s)
		}
		a.b = append(a.b, ']')
	}
	if len(e.Exceptions) > 0 {
		a.field(&n, "exceptions")
		a.b = append(a.b, '[')
		for i := range e.Exceptions {
			if i > 0 {
				a.b = append(a.b, ',')
			}
			a.exception(&e.Exceptions[i])
		}
		a.b = append(a.b, ']')
	}
	if len(e.Stacktrace) > 0 {
		a.field(&n, "stacktrace")
		a.frames(e.Stacktrace)
	}
	if len(e.Breadcrumbs) > 0 {
		a.field(&n, "breadcrumbs")
		a.b = append(a.b, '[')
		for i := range e.Breadcrumbs {
			if i > 0 {
				a.b = append(a.b, ',')
			}
			a.breadcrumb(&e.Breadcrumbs[i])
		}
		a.b = append(a.b, ']')
	}
	if e.Request != nil {
		a.field(&n, "request")
		a.request(e.Request)
	}
	if u := e.User; u != nil {
		a.field(&n, "user")
		m := 0
		a.b = append(a.b, '{')
		a.strField(&m, "id", u.ID)
		a.strField(&m, "username", u.Username)
		a.strField(&m, "email", u.Email)
		a.strField(&m, "ip", u.IP)
		a.b = append(a.b, '}')
	}
	if len(e.Contexts) > 0 {
		a.field(&n, "contexts")
		a.contexts(e.Contexts)
	}
	if len(e.Extra) > 0 {
		a.field(&n, "extra")
		a.object(e.Extra)
	}
	a.strField(&n, "sdk", e.SDK)
	a.b = append(a.b, '}')
}

// pairs writes key/value pairs as tagPair.MarshalJSON does: [["k","v"],...].
func (a *jsonAppender) pairs(p []Pair) {
	a.b = append(a.b, '[')
	for i, t := range p {
		if i > 0 {
			a.b = append(a.b, ',')
		}
		a.b = append(a.b, '[')
		a.str(t.Key)
		a.b = append(a.b, ',')
		a.str(t.Value)
		a.b = append(a.b, ']')
	}
	a.b = append(a.b, ']')
}

func (a *jsonAppender) exception(x *Exception) {
	n := 0
	a.b = append(a.b, '{')
	a.strField(&n, "type", x.Type)
	a.strField(&n, "value", x.Value)
	a.strField(&n, "module", x.Module)
	a.strField(&n, "mechanism", x.Mechanism)
	if x.Handled != nil {
		a.field(&n, "handled")
		a.b = strconv.AppendBool(a.b, *x.Handled)
	}
	if len(x.Frames) > 0 {
		a.field(&n, "frames")
		a.frames(x.Frames)
	}
	a.b = append(a.b, '}')
}

func (a *jsonAppender) frames(fs []Frame) {
	a.b = append(a.b, '[')
	for i := range fs {
		if i > 0 {
			a.b = append(a.b, ',')
		}
		f := &fs[i]
		n := 0
		a.b = append(a.b, '{')
		a.strField(&n, "function", f.Function)
		a.strField(&n, "module", f.Module)
		a.strField(&n, "filename", f.Filename)
		a.strField(&n, "absPath", f.AbsPath)
		a.intField(&n, "line", f.Line)
		a.intField(&n, "column", f.Column)
		if f.InApp {
			a.field(&n, "inApp")
			a.b = append(a.b, "true"...)
		}
		if len(f.Context) > 0 {
			a.field(&n, "context")
			a.b = append(a.b, '[')
			for j, c := range f.Context {
				if j > 0 {
					a.b = append(a.b, ',')
				}
				a.b = append(a.b, `{"l":`...)
				a.b = strconv.AppendInt(a.b, int64(c.Line), 10)
				a.b = append(a.b, `,"c":`...)
				a.str(c.Code)
				a.b = append(a.b, '}')
			}
			a.b = append(a.b, ']')
		}
		if len(f.Vars) > 0 {
			a.field(&n, "vars")
			a.object(f.Vars)
		}
		a.b = append(a.b, '}')
	}
	a.b = append(a.b, ']')
}

func (a *jsonAppender) breadcrumb(c *Breadcrumb) {
	n := 0
	a.b = append(a.b, '{')
	a.field(&n, "timestamp")
	a.time(c.Timestamp)
	a.strField(&n, "type", c.Type)
	a.strField(&n, "category", c.Category)
	a.strField(&n, "level", c.Level)
	a.strField(&n, "message", c.Message)
	if len(c.Data) > 0 {
		a.field(&n, "data")
		a.object(c.Data)
	}
	a.b = append(a.b, '}')
}

func (a *jsonAppender) request(r *Request) {
	n := 0
	a.b = append(a.b, '{')
	a.strField(&n, "method", r.Method)
	a.strField(&n, "url", r.URL)
	if len(r.Query) > 0 {
		a.field(&n, "query")
		a.pairs(r.Query)
	}
	if len(r.Headers) > 0 {
		a.field(&n, "headers")
		a.pairs(r.Headers)
	}
	if r.Data != nil {
		a.field(&n, "data")
		a.value(r.Data)
	}
	a.b = append(a.b, '}')
}

// contexts writes the contexts by sorted name, each a map of sorted keys.
func (a *jsonAppender) contexts(m map[string]Context) {
	sortedObject(a, m, func(a *jsonAppender, c Context) { a.object(c) })
}

// object writes a map with its keys sorted, as json.Marshal does (null for nil).
func (a *jsonAppender) object(m map[string]any) {
	if m == nil {
		a.b = append(a.b, "null"...)
		return
	}
	sortedObject(a, m, (*jsonAppender).value)
}

// sortedObject writes m as an object with its keys sorted, each value by write.
// The keys go on a stack shared with the nested maps: keys below stays valid when a
// nested map's keys grow the stack into a new array.
func sortedObject[V any](a *jsonAppender, m map[string]V, write func(*jsonAppender, V)) {
	start := len(a.keys)
	for k := range m {
		a.keys = append(a.keys, k)
	}
	keys := a.keys[start:]
	slices.Sort(keys)
	a.b = append(a.b, '{')
	for i, k := range keys {
		if i > 0 {
			a.b = append(a.b, ',')
		}
		a.str(k)
		a.b = append(a.b, ':')
		write(a, m[k])
	}
	a.b = append(a.b, '}')
	clear(a.keys[start:])
	a.keys = a.keys[:start]
}

// value writes a decoded JSON value; other types go through json.Append.
func (a *jsonAppender) value(v any) {
	switch x := v.(type) {
	case nil:
		a.b = append(a.b, "null"...)
	case string:
		a.str(x)
	case float64:
		a.float(x)
	case bool:
		a.b = strconv.AppendBool(a.b, x)
	case map[string]any:
		a.object(x)
	case []any:
		if x == nil {
			a.b = append(a.b, "null"...)
			return
		}
		a.b = append(a.b, '[')
		for i, e := range x {
			if i > 0 {
				a.b = append(a.b, ',')
			}
			a.value(e)
		}
		a.b = append(a.b, ']')
	default:
		b, err := json.Append(a.b, v, json.EscapeHTML|json.SortMapKeys)
		if err != nil {
			a.failed = true
			return
		}
		a.b = b
	}
}

// float writes a number as encoding/json does (ES6 style); NaN and infinities are
// json.Marshal's to refuse.
func (a *jsonAppender) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		a.failed = true
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	a.b = strconv.AppendFloat(a.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		if n := len(a.b); n >= 4 && a.b[n-4] == 'e' && a.b[n-3] == '-' && a.b[n-2] == '0' {
			a.b[n-2] = a.b[n-1]
			a.b = a.b[:n-1]
		}
	}
}

// jsonSafe marks the ASCII bytes a string holds as they are: printable, not a quote,
// backslash or HTML-special character (DEL is printable here, as for json.Marshal).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// str writes a string as json.Marshal does with HTML escaping: short escapes for
// quote, backslash, \b \f \n \r \t; \u00XX for other control and HTML characters;
// U+FFFD for each byte that is not UTF-8; U+2028 and U+2029 escaped.
func (a *jsonAppender) str(s string) {
	a.b = append(a.b, '"')
	i := 0
	for j := htmlSafeRun(s, 0); j < len(s); {
		c := s[j]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				j++
				continue
			}
			a.b = append(a.b, s[i:j]...)
			switch c {
			case '"', '\\':
				a.b = append(a.b, '\\', c)
			case '\b':
				a.b = append(a.b, '\\', 'b')
			case '\f':
				a.b = append(a.b, '\\', 'f')
			case '\n':
				a.b = append(a.b, '\\', 'n')
			case '\r':
				a.b = append(a.b, '\\', 'r')
			case '\t':
				a.b = append(a.b, '\\', 't')
			default:
				a.b = append(a.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i = j + 1
			j = htmlSafeRun(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case r == utf8.RuneError && size == 1:
			a.b = append(a.b, s[i:j]...)
			a.b = append(a.b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			a.b = append(a.b, s[i:j]...)
			a.b = append(a.b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			j = htmlSafeRun(s, j+size)
			continue
		}
		i = j + size
		j = htmlSafeRun(s, i)
	}
	a.b = append(a.b, s[i:]...)
	a.b = append(a.b, '"')
}
